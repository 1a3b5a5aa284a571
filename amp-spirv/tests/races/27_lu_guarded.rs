// label: race-free
// from: PolyBench lu, full-extent guarded form
// why: rows k and columns k are never written (the guard), so the reads of a[i][k] and a[k][j] meet no write
fn lu(idx: Index<2>, a: ArrayViewMut<f32, 2>, k: u32) {
    let (i, j) = (idx[0], idx[1]);
    let k = k as usize;
    if i > k && j > k {
        a[idx] -= a[[i, k]] * a[[k, j]];
    }
}
