// label: race-free
// from: amp::algorithms::fill
// why: one element per thread
fn fill(idx: Index<1>, out: ArrayViewMut<u32, 1>, value: u32) {
    out[idx] = value;
}
