//! Per-thread control flow that has ended before the barrier: every thread gets there.
#![deny(deprecated)]

use amp::prelude::*;

#[kernel(amp)]
fn after(t: TiledIndex<64>, data: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    // A loop each thread leaves at its own time.
    let mut found = 0u32;
    for i in 0..16u32 {
        if data[t.global] == i {
            found = i;
            break;
        }
    }
    // A per-thread trip count.
    let mut j = 0u32;
    while j < data[t.global] {
        j += 1;
    }
    // A per-thread `if` without barriers.
    if t.local[0] == 0 {
        found += 1;
    }
    t.barrier.wait();
    out[t.global] = found + j;
}
