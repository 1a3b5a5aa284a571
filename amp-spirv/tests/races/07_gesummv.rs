// label: race-free
// from: PolyBench gesummv
// why: y[i] per thread
fn gesummv(idx: Index<1>, a: ArrayView<f32, 2>, b: ArrayView<f32, 2>, x: ArrayView<f32, 1>, y: ArrayViewMut<f32, 1>, alpha: f32, beta: f32) {
    let i = idx[0];
    let (mut t, mut u) = (0.0f32, 0.0f32);
    for j in 0..a.extent()[1] {
        t += a[[i, j]] * x[j];
        u += b[[i, j]] * x[j];
    }
    y[i] = alpha * t + beta * u;
}
