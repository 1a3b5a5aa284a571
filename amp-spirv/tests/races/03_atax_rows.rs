// label: race-free
// from: PolyBench atax kernel 1
// why: tmp[i] per thread
fn atax1(idx: Index<1>, a: ArrayView<f32, 2>, x: ArrayView<f32, 1>, tmp: ArrayViewMut<f32, 1>) {
    let i = idx[0];
    let mut s = 0.0f32;
    for j in 0..a.extent()[1] {
        s += a[[i, j]] * x[j];
    }
    tmp[i] = s;
}
