// label: race-free
// from: PolyBench convolution-2d
// why: reads a, writes b
fn conv2(idx: Index<2>, a: ArrayView<f32, 2>, b: ArrayViewMut<f32, 2>) {
    let (i, j) = (idx[0], idx[1]);
    if i >= 1 && j >= 1 && i + 1 < a.extent()[0] && j + 1 < a.extent()[1] {
        b[idx] = 0.2 * a[[i - 1, j - 1]] + 0.5 * a[[i, j - 1]] - 0.8 * a[[i + 1, j - 1]]
            - 0.3 * a[[i - 1, j]] + 0.6 * a[[i, j]] - 0.9 * a[[i + 1, j]]
            + 0.4 * a[[i - 1, j + 1]] + 0.7 * a[[i, j + 1]] + 0.1 * a[[i + 1, j + 1]];
    }
}
