// label: race-free
// from: PolyBench 2mm (first product)
// why: one element per thread
fn two_mm(idx: Index<2>, a: ArrayView<f32, 2>, b: ArrayView<f32, 2>, tmp: ArrayViewMut<f32, 2>, alpha: f32) {
    let mut s = 0.0f32;
    for k in 0..a.extent()[1] {
        s += alpha * a[[idx[0], k]] * b[[k, idx[1]]];
    }
    tmp[idx] = s;
}
