// label: race-free
// from: PolyBench convolution-3d
// why: reads a, writes b
fn conv3(idx: Index<3>, a: ArrayView<f32, 3>, b: ArrayViewMut<f32, 3>) {
    let (i, j, k) = (idx[0], idx[1], idx[2]);
    if i >= 1 && j >= 1 && k >= 1 && i + 1 < a.extent()[0] && j + 1 < a.extent()[1] && k + 1 < a.extent()[2] {
        b[idx] = 2.0 * a[[i - 1, j - 1, k - 1]] + 4.0 * a[[i + 1, j - 1, k - 1]] + 5.0 * a[[i, j, k]] - 8.0 * a[[i + 1, j + 1, k + 1]];
    }
}
