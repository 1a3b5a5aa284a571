// label: race-free
// from: PolyBench covariance (2-D, as the CUDA version)
// why: thread (j1, j2) with j2 >= j1 writes [j1, j2] and [j2, j1]; thread (j2, j1) then fails the guard
fn cov(idx: Index<2>, data: ArrayView<f32, 2>, sym: ArrayViewMut<f32, 2>) {
    let (j1, j2) = (idx[0], idx[1]);
    if j2 >= j1 {
        let mut acc = 0.0f32;
        for i in 0..data.extent()[0] {
            acc += data[[i, j1]] * data[[i, j2]];
        }
        sym[[j1, j2]] = acc;
        sym[[j2, j1]] = acc;
    }
}
