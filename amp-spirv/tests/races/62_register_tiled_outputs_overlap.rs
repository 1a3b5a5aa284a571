// label: race
// from: a port that kept the simple product's tile origin in a register-tiled write-back
// why: tile `b` writes rows `b * TS + ty + i * TS`, so its rows from `TS` on are the next tile's
fn register_tiled_overlap(t: TiledIndex<TS, TS>, c: ArrayViewMut<f32, 2>) {
    let (ty, tx) = (t.local[0], t.local[1]);
    let (row0, col0) = (t.tile[0] * TS, t.tile[1] * TS);
    for i in 0..RT {
        for j in 0..RT {
            let (r, col) = (row0 + ty + i * TS, col0 + tx + j * TS);
            if r < c.extent()[0] && col < c.extent()[1] {
                c[[r, col]] = (i * RT + j) as f32;
            }
        }
    }
}
