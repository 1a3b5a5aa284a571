// label: race
// from: a 2-D launch whose column index lost the thread's column
// why: threads `(i, j)` and `(i, j')` both write `[i, i % 3]`
fn one_component(idx: Index<2>, out: ArrayViewMut<f32, 2>) {
    let i = idx[0];
    out[[i, i % 3]] = 1.0;
}
