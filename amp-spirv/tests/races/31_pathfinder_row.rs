// label: race-free
// from: Rodinia pathfinder (one row)
// why: reads prev, writes next
fn pathfinder(idx: Index<1>, wall: ArrayView<i32, 2>, prev: ArrayView<i32, 1>, next: ArrayViewMut<i32, 1>, row: u32) {
    let c = idx[0];
    let n = prev.extent()[0];
    let mut m = prev[c];
    if c > 0 && prev[c - 1] < m { m = prev[c - 1]; }
    if c + 1 < n && prev[c + 1] < m { m = prev[c + 1]; }
    next[c] = m + wall[[row as usize, c]];
}
