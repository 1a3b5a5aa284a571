// label: race-free
// from: PolyBench jacobi-2d
// why: reads a, writes b
fn jacobi(idx: Index<2>, a: ArrayView<f32, 2>, b: ArrayViewMut<f32, 2>) {
    let (i, j) = (idx[0], idx[1]);
    let (n, m) = (a.extent()[0], a.extent()[1]);
    if i >= 1 && j >= 1 && i + 1 < n && j + 1 < m {
        b[idx] = 0.2 * (a[idx] + a[[i - 1, j]] + a[[i + 1, j]] + a[[i, j - 1]] + a[[i, j + 1]]);
    }
}
