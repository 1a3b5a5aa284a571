// label: race-free
// from: C++ AMP histogram (tile_static atomics, one merge per bin)
// why: atomics on tile_static and global bins
fn histo(t: TiledIndex<256>, data: ArrayView<u32, 1>, bins: ArrayViewMut<u32, 1>) {
    #[tile_static] let mut local: [u32; 256];
    let l = t.local[0];
    local[l] = 0;
    t.barrier.wait();
    let v = data[t.global] % 256;
    atomic_fetch_add(&mut local[v as usize], 1u32);
    t.barrier.wait();
    atomic_fetch_add(&mut bins[l], local[l]);
}
