// label: race-free
// from: complex numbers as pairs of floats, one pair per thread
// why: thread i writes elements 2 i and 2 i + 1, both its own
fn conjugate(idx: Index<1>, z: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let i = idx[0];
    out[i * 2] = z[i * 2];
    out[2 * i + 1] = -z[2 * i + 1];
}
