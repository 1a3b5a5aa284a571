// label: race-free
// from: C++ AMP tiled reduction sample
// why: tree reduction in tile_static with barriers; one thread per tile writes the tile's sum
fn reduce(t: TiledIndex<256>, a: ArrayView<f32, 1>, sums: ArrayViewMut<f32, 1>) {
    #[tile_static] let mut part: [f32; 256];
    let l = t.local[0];
    part[l] = a[t.global];
    t.barrier.wait();
    let mut s = 128;
    while s > 0 {
        if l < s { part[l] += part[l + s]; }
        t.barrier.wait();
        s /= 2;
    }
    if l == 0 { sums[t.tile] = part[0]; }
}
