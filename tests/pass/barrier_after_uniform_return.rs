//! A `return` every thread of the tile takes together does not split the tile.
#![deny(deprecated)]

use amp::prelude::*;

#[kernel(amp)]
fn maybe(t: TiledIndex<64>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>, n: u32) {
    #[tile_static]
    let mut shared: [f32; 64];
    if n == 0 {
        return;
    }
    if t.tile[0] >= 1000 {
        return;
    }
    shared[t.local[0]] = a[t.global];
    t.barrier.wait();
    out[t.global] = shared[63 - t.local[0]];
}
