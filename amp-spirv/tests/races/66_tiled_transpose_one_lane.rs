// label: race
// from: a transpose whose column index took the lane's row twice
// why: threads `(r, c)` and `(r, c')` of a tile write `[origin1 + r, origin0 + r]`
fn tiled_transpose_one_lane(t: TiledIndex<32, 32>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    #[tile_static]
    let mut block: [[f32; 33]; 32];
    let (r, c) = (t.local[0], t.local[1]);
    block[r][c] = a[t.global];
    t.barrier.wait();
    out[[t.tile_origin[1] + r, t.tile_origin[0] + r]] = block[c][r];
}
