//! `allow(bank_conflict)` silences the warning this column walk gives; with
//! `#![deny(deprecated)]`, any amp warning left would fail the build.
#![deny(deprecated)]

use amp::prelude::*;

#[kernel(amp, allow(bank_conflict))]
fn transpose(t: TiledIndex<32, 32>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    #[tile_static]
    let mut tile: [[f32; 32]; 32];
    tile[t.local[1]][t.local[0]] = a[t.global];
    t.barrier.wait();
    out[t.global] = tile[t.local[1]][t.local[0]];
}
