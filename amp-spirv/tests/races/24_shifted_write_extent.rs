// label: race-free
// from: a concatenation: the second half at an offset of the first's length
// why: idx + src.extent()[0]
fn concat(idx: Index<1>, src: ArrayView<f32, 1>, more: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let i = idx[0] + src.extent()[0];
    out[i] = more[idx];
}
