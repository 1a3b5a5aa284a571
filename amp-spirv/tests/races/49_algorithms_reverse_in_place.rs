// label: race
// from: reversal in place launched over the whole view
// why: thread i and thread n - 1 - i swap the same pair
fn reverse(idx: Index<1>, data: ArrayViewMut<u32, 1>) {
    let n = data.extent()[0];
    let (i, j) = (idx[0], n - 1 - idx[0]);
    let (a, b) = (data[i], data[j]);
    data[i] = b;
    data[j] = a;
}
