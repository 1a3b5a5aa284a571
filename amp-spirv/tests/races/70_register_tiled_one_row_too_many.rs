// label: race
// from: a register tile whose loop runs one row past its block
// why: with `i` up to `RT`, tile `b`'s last row `b * TS * RT + ty + RT * TS` is tile `b + 1`'s row `ty`
fn register_tiled_row_too_many(t: TiledIndex<TS>, c: ArrayViewMut<f32, 1>) {
    let ty = t.local[0];
    for i in 0..RT + 1 {
        let r = t.tile[0] * (TS * RT) + ty + i * TS;
        if r < c.extent()[0] {
            c[r] = i as f32;
        }
    }
}
