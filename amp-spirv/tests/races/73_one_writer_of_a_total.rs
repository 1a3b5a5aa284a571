// label: race-free
// from: a result written by the first thread only
// why: idx[0] == 0 holds in one thread
fn first_writes(idx: Index<1>, x: ArrayView<f32, 1>, total: ArrayViewMut<f32, 1>) {
    if idx[0] == 0 {
        total[0] = x[0] + x[1];
    }
}
