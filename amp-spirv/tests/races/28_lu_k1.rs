// label: race-free
// from: PolyBench lu, the row scale launched over the columns right of the pivot
// why: thread writes a[k][k + 1 + idx]; the pivot a[k][k] is never written
fn lu_k1(idx: Index<1>, a: ArrayViewMut<f32, 2>, k: u32) {
    let k = k as usize;
    let j = idx[0] + k + 1;
    a[[k, j]] = a[[k, j]] / a[[k, k]];
}
