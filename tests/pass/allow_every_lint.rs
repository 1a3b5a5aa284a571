//! Every warning allowed by name, on a kernel that triggers all four.
#![deny(deprecated)]

use amp::prelude::*;

#[kernel(
    amp,
    allow(tile_static_race, write_conflict, flow_dependence, bank_conflict)
)]
fn everything(t: TiledIndex<32, 32>, out: ArrayViewMut<f32, 2>, m: ArrayViewMut<f32, 2>) {
    #[tile_static]
    let mut row: [f32; 32];
    #[tile_static]
    let mut tile: [[f32; 32]; 32];
    row[t.local[1]] = 1.0;
    let x = row[0];
    t.barrier.wait();
    tile[t.local[1]][0] = x;
    out[[0, 0]] = x;
    m[t.global] = m[[t.global[1], 0]];
}

// The names may also come one `allow` at a time, and in any order.
#[kernel(amp, allow(write_conflict), allow(tile_static_race))]
fn split(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {
    #[tile_static]
    let mut s: [f32; 64];
    s[t.local[0]] = 1.0;
    out[[0]] = s[0];
}
