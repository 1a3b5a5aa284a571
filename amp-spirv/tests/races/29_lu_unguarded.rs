// label: race
// from: lu without its guard
// why: thread (i, k) writes a[i][k] while others read it
fn lu_bad(idx: Index<2>, a: ArrayViewMut<f32, 2>, k: u32) {
    let k = k as usize;
    a[idx] -= a[[idx[0], k]] * a[[k, idx[1]]];
}
