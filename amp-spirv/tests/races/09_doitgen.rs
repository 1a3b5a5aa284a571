// label: race-free
// from: PolyBench doitgen
// why: sum[r][q][p] per thread
fn doitgen(idx: Index<3>, a: ArrayView<f32, 3>, c4: ArrayView<f32, 2>, sum: ArrayViewMut<f32, 3>) {
    let mut s = 0.0f32;
    for k in 0..c4.extent()[0] {
        s += a[[idx[0], idx[1], k]] * c4[[k, idx[2]]];
    }
    sum[idx] = s;
}
