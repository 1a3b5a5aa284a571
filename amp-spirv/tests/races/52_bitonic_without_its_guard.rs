// label: race
// from: a port of the bitonic step that dropped the `partner > i` guard
// why: threads `i` and `i ^ j` both read and write both elements of their pair
fn bitonic_unguarded(idx: Index<1>, data: ArrayViewMut<u32, 1>, j: u32) {
    let i = idx[0];
    let partner = i ^ (j as usize);
    let (a, b) = (data[i], data[partner]);
    if a > b {
        data[i] = b;
        data[partner] = a;
    }
}
