// label: race-free
// from: a register-tiled matrix product's write-back: each thread RT x RT outputs, TS apart
// why: row `t.tile[0] * (TS * RT) + t.local[0] + i * TS` with `t.local[0] < TS` and `i < RT` is a mixed-radix number, so one thread per element (columns alike)
fn register_tiled_outputs(t: TiledIndex<TS, TS>, c: ArrayViewMut<f32, 2>) {
    let (ty, tx) = (t.local[0], t.local[1]);
    let (row0, col0) = (t.tile[0] * (TS * RT), t.tile[1] * (TS * RT));
    for i in 0..RT {
        for j in 0..RT {
            let (r, col) = (row0 + ty + i * TS, col0 + tx + j * TS);
            if r < c.extent()[0] && col < c.extent()[1] {
                c[[r, col]] = (i * RT + j) as f32;
            }
        }
    }
}
