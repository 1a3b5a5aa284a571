// label: race-free
// from: PolyBench correlation (centering in place)
// why: data[i][j] read and written by its own thread
fn center(idx: Index<2>, data: ArrayViewMut<f32, 2>, mean: ArrayView<f32, 1>) {
    data[idx] -= mean[idx[1]];
}
