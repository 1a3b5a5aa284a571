// label: race
// from: a register tile whose block size is another constant than its rows
// why: where `K` is less than `RT` (nothing relates them), tile `b`'s rows from `b * TS * K + TS * K` on are tile `b + 1`'s
fn register_tiled_unrelated_block(t: TiledIndex<TS>, c: ArrayViewMut<f32, 1>) {
    let ty = t.local[0];
    for i in 0..RT {
        let r = t.tile[0] * (TS * K) + ty + i * TS;
        if r < c.extent()[0] {
            c[r] = i as f32;
        }
    }
}
