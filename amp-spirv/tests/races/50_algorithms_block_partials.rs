// label: race-free
// from: amp::algorithms count blocks (one partial per tile)
// why: thread 0 of each tile writes partials[tile]
fn blocks(t: TiledIndex<256>, input: ArrayView<u32, 1>, partials: ArrayViewMut<u32, 1>) {
    #[tile_static] let mut part: [u32; 256];
    let l = t.local[0];
    part[l] = input[t.global];
    t.barrier.wait();
    if l == 0 {
        let mut s = 0u32;
        for k in 0..256 { s += part[k]; }
        partials[t.tile] = s;
    }
}
