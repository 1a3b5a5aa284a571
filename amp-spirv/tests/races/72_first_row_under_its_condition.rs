// label: race-free
// from: PolyBench fdtd-2d (the source row set by the threads of row 0)
// why: only threads with i == 0 write ey[[0, j]], and j tells them apart
fn fdtd_ey(idx: Index<2>, fict: ArrayView<f32, 1>, ey: ArrayViewMut<f32, 2>, hz: ArrayView<f32, 2>, t: u32) {
    let (i, j) = (idx[0], idx[1]);
    if i == 0 {
        ey[[0, j]] = fict[t as usize];
    } else {
        ey[[i, j]] = ey[[i, j]] - 0.5 * (hz[[i, j]] - hz[[i - 1, j]]);
    }
}
