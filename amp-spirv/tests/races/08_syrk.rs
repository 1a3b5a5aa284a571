// label: race-free
// from: PolyBench syrk
// why: c[i][j] per thread, read before written
fn syrk(idx: Index<2>, a: ArrayView<f32, 2>, c: ArrayViewMut<f32, 2>, alpha: f32, beta: f32) {
    let mut s = c[idx] * beta;
    for k in 0..a.extent()[1] {
        s += alpha * a[[idx[0], k]] * a[[idx[1], k]];
    }
    c[idx] = s;
}
