//! Barriers in loops whose trip count is the same for every thread of a tile.
#![deny(deprecated)]

use amp::prelude::*;

const TS: usize = 8;

#[kernel(amp)]
fn loops(t: TiledIndex<TS, TS>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>, n: u32) {
    let mut sum = 0.0;
    for _ in 0..TS {
        t.barrier.wait();
    }
    for k in (0..a.extent()[1]).step_by(TS) {
        sum += a[[t.global[0], k]];
        t.barrier.wait();
    }
    for _ in 0..=t.tile[1] {
        t.barrier.wait();
    }
    let mut j = 0;
    while j < n {
        t.barrier.wait();
        j += 1;
    }
    let mut k = 0u32;
    loop {
        if k == n {
            break;
        }
        t.barrier.wait();
        k += 1;
    }
    out[t.global] = sum;
}
