// label: race-free
// from: C++ AMP transpose sample
// why: out[j][i] per thread
fn transpose(idx: Index<2>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    out[[idx[1], idx[0]]] = a[idx];
}
