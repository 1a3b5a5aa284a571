// label: race
// from: a row written by whichever thread matches the loop's step
// why: thread (0, j) at k == 0 and thread (1, j) at k == 1 both write out[[0, j]]
fn rows_by_step(idx: Index<2>, out: ArrayViewMut<f32, 2>, n: u32) {
    let (i, j) = (idx[0], idx[1]);
    for k in 0..n as usize {
        if i == k {
            out[[0, j]] = k as f32;
        }
    }
}
