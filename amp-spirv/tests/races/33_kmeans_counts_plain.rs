// label: race
// from: kmeans cluster sizes counted with a plain add
// why: every thread of a cluster adds to counts[cluster]
fn counts(idx: Index<1>, membership: ArrayView<i32, 1>, counts: ArrayViewMut<u32, 1>) {
    let c = membership[idx] as usize;
    counts[c] += 1;
}
