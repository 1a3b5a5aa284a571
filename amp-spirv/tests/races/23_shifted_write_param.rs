// label: race-free
// from: a user's shift by a scalar parameter through a let
// why: idx + kk with kk uniform
fn shifted_param(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>, kk: u32) {
    let i = idx[0] + kk as usize;
    out[i] = a[idx];
}
