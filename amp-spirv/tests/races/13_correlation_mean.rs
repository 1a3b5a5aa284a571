// label: race-free
// from: PolyBench correlation (means)
// why: mean[j] per thread
fn mean(idx: Index<1>, data: ArrayView<f32, 2>, mean: ArrayViewMut<f32, 1>, n: f32) {
    let j = idx[0];
    let mut s = 0.0f32;
    for i in 0..data.extent()[0] {
        s += data[[i, j]];
    }
    mean[j] = s / n;
}
