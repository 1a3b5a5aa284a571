// label: race
// from: a transpose over 16 x 32 tiles whose column spreads the lanes two apart
// why: column `t.tile_origin[0] + 2 * t.local[0]` runs to 30 in tiles 16 apart: lane 8 of tile row `b` and lane 0 of tile row `b + 1` both write column `16 b + 16`
fn tiled_transpose_overlap(t: TiledIndex<16, 32>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    out[[t.tile_origin[1] + t.local[1], t.tile_origin[0] + t.local[0] * 2]] = a[t.global];
}
