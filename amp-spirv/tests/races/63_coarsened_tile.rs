// label: race-free
// from: a tile coarsened by hand, CUDA style: each of 64 threads writes 4 outputs 64 apart
// why: `t.tile[0] * 256 + t.local[0] + k * 64` with lane below 64 and `k` below 4 is a mixed-radix number
fn coarsened(t: TiledIndex<64>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    for k in 0..4 {
        let i = t.tile[0] * 256 + t.local[0] + k * 64;
        if i < out.extent()[0] {
            out[i] = a[i] * 2.0;
        }
    }
}
