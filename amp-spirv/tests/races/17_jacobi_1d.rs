// label: race-free
// from: PolyBench jacobi-1d
// why: reads a, writes b
fn jacobi1(idx: Index<1>, a: ArrayView<f32, 1>, b: ArrayViewMut<f32, 1>) {
    let i = idx[0];
    if i >= 1 && i + 1 < a.extent()[0] {
        b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
    }
}
