//! A tile_static value read after a barrier is the same for the whole tile, so it may decide
//! whether the tile waits at another barrier.
#![deny(deprecated)]

use amp::prelude::*;

#[kernel(amp)]
fn rounds(t: TiledIndex<64>, data: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    #[tile_static]
    let mut count: [u32; 1];
    #[tile_static]
    let mut values: [u32; 64];
    if t.local[0] == 0 {
        count[0] = data[t.tile];
    }
    values[t.local[0]] = data[t.global];
    t.barrier.wait();
    if values[0] > 0 {
        t.barrier.wait();
    }
    let mut round = 0;
    while round < count[0] {
        t.barrier.wait();
        round += 1;
    }
    out[t.global] = values[t.local[0]] + round;
}
