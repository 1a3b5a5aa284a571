// label: race-free
// from: an FFT butterfly's data movement (each element to its xor partner's slot)
// why: `i ^ j` with `j` the same for every thread is a bijection: each slot written once
fn butterfly_scatter(idx: Index<1>, src: ArrayView<f32, 1>, dst: ArrayViewMut<f32, 1>, j: u32) {
    let i = idx[0];
    dst[i ^ (j as usize)] = src[i];
}
