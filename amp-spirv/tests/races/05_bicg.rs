// label: race-free
// from: PolyBench bicg
// why: s[j] per thread
fn bicg(idx: Index<1>, a: ArrayView<f32, 2>, r: ArrayView<f32, 1>, s: ArrayViewMut<f32, 1>) {
    let mut acc = 0.0f32;
    for i in 0..a.extent()[0] {
        acc += r[i] * a[[i, idx[0]]];
    }
    s[idx] = acc;
}
