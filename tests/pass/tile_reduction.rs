//! A tree reduction in tile_static memory: the `if` is per-thread, the barrier outside it.
#![deny(deprecated)]

use amp::prelude::*;

const TILE: usize = 64;

#[kernel(amp)]
fn reduce(t: TiledIndex<TILE>, a: ArrayView<f32, 1>, sums: ArrayViewMut<f32, 1>) {
    #[tile_static]
    let mut s: [f32; TILE];
    s[t.local[0]] = a[t.global];
    t.barrier.wait();
    let mut stride = TILE / 2;
    while stride > 0 {
        if t.local[0] < stride {
            s[t.local[0]] += s[t.local[0] + stride];
        }
        t.barrier.wait();
        stride /= 2;
    }
    if t.local[0] == 0 {
        sums[t.tile] = s[0];
    }
}
