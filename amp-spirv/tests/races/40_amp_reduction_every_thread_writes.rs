// label: race
// from: the reduction with every thread storing the tile's sum
// why: all threads of a tile write sums[tile]
fn reduce_all(t: TiledIndex<256>, a: ArrayView<f32, 1>, sums: ArrayViewMut<f32, 1>) {
    #[tile_static] let mut part: [f32; 256];
    let l = t.local[0];
    part[l] = a[t.global];
    t.barrier.wait();
    sums[t.tile] = part[0];
}
