//! Barriers under conditions that are the same for every thread of a tile: `t.tile`,
//! `t.tile_origin`, `t.tile_extent`, scalar arguments, constants (outer and local), extents, and
//! locals computed from them.
#![deny(deprecated)] // no amp warning either

use amp::prelude::*;

const TS: usize = 16;

#[kernel(amp)]
fn uniform(
    t: TiledIndex<TS>,
    a: ArrayView<f32, 1>,
    out: ArrayViewMut<f32, 1>,
    n: u32,
    enabled: bool,
) {
    const LIMIT: u32 = 8;
    if t.tile[0] == 0 {
        t.barrier.wait();
    }
    if t.tile_origin[0] > 64 && t.tile_extent[0] == TS {
        t.barrier.wait();
    }
    if n > 3 {
        t.barrier.wait_with_global_memory_fence();
    }
    if enabled || n < LIMIT {
        t.barrier.wait_with_tile_static_memory_fence();
    }
    if TS > 8 {
        t.barrier.wait_with_all_memory_fence();
    }
    if a.extent()[0] % 2 == 0 {
        t.barrier.wait();
    }
    // A `match` on a uniform value is judged as the `if` chain it is.
    match t.tile[0] % 3 {
        0 => t.barrier.wait(),
        1 | 2 if n > 1 => t.barrier.wait_with_tile_static_memory_fence(),
        _ => {}
    }
    // A view the kernel only reads, at a uniform index.
    if a[t.tile] > 0.0 {
        t.barrier.wait();
    }
    let half = if n > 4 { n / 2 } else { n };
    if half == 2 {
        t.barrier.wait();
    } else {
        t.barrier.wait();
    }
    out[t.global] = a[t.global];
}
