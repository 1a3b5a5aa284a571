// label: race-free
// from: a user's shift through a let binding
// why: i = idx + 1 is one element per thread
fn shifted(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let i = idx[0] + 1;
    out[i] = a[idx];
}
