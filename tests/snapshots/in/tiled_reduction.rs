//! A tiled reduction: `tile_static` memory, barriers, and the stride `s` that every thread of a
//! tile shares (the native back end keeps it once per tile, between its work-item loops).
use amp::prelude::*;

#[kernel(amp)]
fn reduce_tile(t: TiledIndex<64>, input: ArrayView<f32, 1>, sums: ArrayViewMut<f32, 1>) {
    #[tile_static]
    let mut part: [f32; 64];
    let l = t.local[0];
    part[l] = input[t.global];
    t.barrier.wait();
    let mut s = 32;
    while s > 0 {
        if l < s {
            part[l] += part[l + s];
        }
        t.barrier.wait();
        s /= 2;
    }
    if l == 0 {
        sums[t.tile] = part[0];
    }
}
