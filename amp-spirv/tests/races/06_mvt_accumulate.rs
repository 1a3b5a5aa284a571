// label: race-free
// from: PolyBench mvt
// why: x1[i] read and written at the own element
fn mvt(idx: Index<1>, a: ArrayView<f32, 2>, y1: ArrayView<f32, 1>, x1: ArrayViewMut<f32, 1>) {
    for j in 0..a.extent()[1] {
        x1[idx] += a[[idx[0], j]] * y1[j];
    }
}
