// label: race-free
// from: the tiled transpose through `tile_static` memory (CUDA's and C++ AMP's samples)
// why: row `t.tile_origin[1] + t.local[0]` tells apart the tile's column and the lane's row, column `t.tile_origin[0] + t.local[1]` the rest
fn tiled_transpose(t: TiledIndex<32, 32>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    #[tile_static]
    let mut block: [[f32; 33]; 32];
    let (r, c) = (t.local[0], t.local[1]);
    block[r][c] = a[t.global];
    t.barrier.wait();
    out[[t.tile_origin[1] + r, t.tile_origin[0] + c]] = block[c][r];
}
