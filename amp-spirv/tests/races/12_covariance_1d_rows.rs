// label: race-free
// from: PolyBench covariance (1-D form)
// why: thread j1 writes row j1 right of the diagonal and the diagonal element [j1, j1]
fn cov_rows(idx: Index<1>, data: ArrayView<f32, 2>, sym: ArrayViewMut<f32, 2>) {
    let j1 = idx[0];
    sym[[j1, j1]] = 1.0;
}
