// label: race
// from: a scatter to indices read from memory
// why: two equal indices collide (the library proves them distinct by construction, the checker cannot)
fn scatter(idx: Index<1>, values: ArrayView<u32, 1>, indices: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    out[indices[idx] as usize] = values[idx];
}
