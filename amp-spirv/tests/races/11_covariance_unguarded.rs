// label: race
// from: PolyBench covariance without its j2 >= j1 guard
// why: threads (a, b) and (b, a) both write both elements
fn cov_all(idx: Index<2>, data: ArrayView<f32, 2>, sym: ArrayViewMut<f32, 2>) {
    let (j1, j2) = (idx[0], idx[1]);
    let mut acc = 0.0f32;
    for i in 0..data.extent()[0] {
        acc += data[[i, j1]] * data[[i, j2]];
    }
    sym[[j1, j2]] = acc;
    sym[[j2, j1]] = acc + 1.0;
}
