// label: race
// from: a coarsened tile whose stride is half the tile
// why: lane 32 with `k = 0` and lane 0 with `k = 1` both write `t.tile[0] * 256 + 32`
fn coarsened_overlap(t: TiledIndex<64>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    for k in 0..4 {
        let i = t.tile[0] * 256 + t.local[0] + k * 32;
        if i < out.extent()[0] {
            out[i] = a[i] * 2.0;
        }
    }
}
