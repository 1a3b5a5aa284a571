// label: race-free
// from: PolyBench fdtd-2d (hz update)
// why: hz[i][j] from ex and ey
fn fdtd_hz(idx: Index<2>, ex: ArrayView<f32, 2>, ey: ArrayView<f32, 2>, hz: ArrayViewMut<f32, 2>) {
    let (i, j) = (idx[0], idx[1]);
    if i + 1 < hz.extent()[0] && j + 1 < hz.extent()[1] {
        hz[idx] = hz[idx] - 0.7 * (ex[[i, j + 1]] - ex[[i, j]] + ey[[i + 1, j]] - ey[[i, j]]);
    }
}
