// label: race
// from: a strip written by a loop, shifted by the loop variable
// why: thread 0 at j == 1 and thread 1 at j == 0 write element 1
fn strips(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    for j in 0..4 {
        out[idx[0] + j] = 1.0;
    }
}
