// label: race-free
// from: Rodinia backprop (layer forward, one output per thread)
// why: out[j] per thread
fn layer(idx: Index<1>, input: ArrayView<f32, 1>, weights: ArrayView<f32, 2>, out: ArrayViewMut<f32, 1>) {
    let j = idx[0];
    let mut s = 0.0f32;
    for i in 0..input.extent()[0] {
        s += weights[[i, j]] * input[i];
    }
    out[j] = 1.0 / (1.0 + (-s).exp());
}
