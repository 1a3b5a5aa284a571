// label: race
// from: a corner written under a condition on the row alone
// why: every thread of row 0 writes out[[0, 0]]
fn corner(idx: Index<2>, out: ArrayViewMut<f32, 2>) {
    if idx[0] == 0 {
        out[[0, 0]] = 1.0;
    }
}
