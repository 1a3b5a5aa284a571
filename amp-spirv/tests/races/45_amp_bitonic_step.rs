// label: race-free
// from: C++ AMP bitonic sort sample (one compare-exchange step)
// why: the thread with the lower index of each pair swaps both; partners never both act
fn bitonic(idx: Index<1>, data: ArrayViewMut<u32, 1>, j: u32, k: u32) {
    let i = idx[0];
    let partner = i ^ (j as usize);
    if partner > i {
        let (a, b) = (data[i], data[partner]);
        let up = (i & (k as usize)) == 0;
        if (a > b) == up {
            data[i] = b;
            data[partner] = a;
        }
    }
}
