// label: race
// from: two writes per thread, at its element and one to the right
// why: thread i's second write and thread i + 1's first hit one element
fn two_writes(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = 1.0;
    out[idx[0] + 1] = 2.0;
}
