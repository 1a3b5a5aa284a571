// label: race
// from: jacobi-2d written in place
// why: a neighbour's element is read while every thread writes its own
fn jacobi_in_place(idx: Index<2>, a: ArrayViewMut<f32, 2>) {
    let (i, j) = (idx[0], idx[1]);
    if i >= 1 && j >= 1 && i + 1 < a.extent()[0] && j + 1 < a.extent()[1] {
        a[idx] = 0.25 * (a[[i - 1, j]] + a[[i + 1, j]] + a[[i, j - 1]] + a[[i, j + 1]]);
    }
}
