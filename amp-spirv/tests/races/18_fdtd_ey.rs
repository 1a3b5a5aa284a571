// label: race-free
// from: PolyBench fdtd-2d (ey update)
// why: ey[i][j] from hz, per thread
fn fdtd_ey(idx: Index<2>, hz: ArrayView<f32, 2>, ey: ArrayViewMut<f32, 2>) {
    let (i, j) = (idx[0], idx[1]);
    if i > 0 {
        ey[idx] = ey[idx] - 0.5 * (hz[[i, j]] - hz[[i - 1, j]]);
    }
}
