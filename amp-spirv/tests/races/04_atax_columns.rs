// label: race-free
// from: PolyBench atax kernel 2
// why: y[j] per thread
fn atax2(idx: Index<1>, a: ArrayView<f32, 2>, tmp: ArrayView<f32, 1>, y: ArrayViewMut<f32, 1>) {
    let j = idx[0];
    let mut s = 0.0f32;
    for i in 0..a.extent()[0] {
        s += a[[i, j]] * tmp[i];
    }
    y[j] = s;
}
