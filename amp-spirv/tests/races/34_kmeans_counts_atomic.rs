// label: race-free
// from: kmeans cluster sizes counted with an atomic
// why: atomics never conflict
fn counts_atomic(idx: Index<1>, membership: ArrayView<i32, 1>, counts: ArrayViewMut<u32, 1>) {
    let c = membership[idx] as usize;
    atomic_fetch_add(&mut counts[c], 1u32);
}
