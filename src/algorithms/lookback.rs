//! The single-pass scan of integers: decoupled look-back (Merrill and Garland, "Single-pass
//! Parallel Prefix Scan with Decoupled Look-back") with a decoupled fallback (Smith, Levien
//! and Owens, "Decoupled Fallback: A Portable Single-Pass GPU Scan").
//!
//! Each tile takes the next block number from an atomic counter, so blocks start in order.
//! It sums its block, publishes that aggregate, then looks back over the blocks before it:
//! a block that has published its inclusive prefix ends the look-back, one that has published
//! only its aggregate adds it and the look-back goes on. The input is read twice within the
//! block's own tile (once to sum, once to scan: 8 bytes of traffic per 4-byte element, against
//! reduce-then-scan's 12) and the output written once, in one launch.
//!
//! A tile never waits for another. Vulkan promises no forward progress between workgroups,
//! so a tile that spun until an earlier one published could occupy the thread the earlier one
//! needs (lavapipe runs a dispatch on a few threads; a GPU may not schedule the earlier
//! workgroup before the spinning ones finish). Here a tile asks a block's state a bounded
//! number of times; if it is still not ready, the tile sums that block's input itself (the
//! fallback) and looks further back. Every tile therefore ends after at most as much work as
//! summing the blocks before it, on any scheduler, and in practice it finds its predecessor's
//! aggregate or prefix at once.
//!
//! Integers only: wrapping addition is associative, so the result does not depend on which
//! blocks were ready when a tile looked. A float scan's rounding would (the sums of the
//! blocks would be grouped differently from run to run); floats keep reduce-then-scan
//! (`scan.rs`), whose grouping is fixed.

use super::scan::{SCAN_BLOCK, SCAN_ITEMS};
use super::tiles;
use crate::prelude::*;

/// How many times a tile asks for a block's state before it sums that block itself. A GPU's
/// tile finds its predecessor ready within a few polls (the predecessor started earlier and
/// publishes its aggregate after one pass over its block); summing a block instead reads its
/// `SCAN_BLOCK` elements again.
pub(super) const LOOKBACK_POLLS: u32 = 64;

/// Scans block `block` (taken from `status[0]`) of `input` into `output`; exclusive when
/// `exclusive` is 1. `status[1 + b]` is block `b`'s state: 0 nothing published, 1 its sum in
/// `aggregates[b]`, 2 its inclusive prefix in `prefixes[b]`. A state is published with an
/// atomic exchange after the value and a fence, and read with an atomic then a fence (the
/// kernel language's cross-tile pattern, docs/kernel-language.md). Each thread scans its
/// `ITEMS` consecutive elements in two passes, as `scan_blocks` does.
// Every element of `output` is written once, by the thread that owns it, and each tile writes
// only its own block's `aggregates` and `prefixes` slots (the analysis proves neither: the
// block number comes from an atomic).
#[kernel(amp, unchecked, allow(write_conflict))]
#[allow(clippy::too_many_arguments)]
fn scan_single_pass<T: DeviceScalar, const ITEMS: usize>(
    t: TiledIndex<256>,
    input: ArrayView<T, 1>,
    output: ArrayViewMut<T, 1>,
    status: ArrayViewMut<u32, 1>,
    aggregates: ArrayViewMut<T, 1>,
    prefixes: ArrayViewMut<T, 1>,
    exclusive: u32,
    polls: u32,
) {
    #[tile_static]
    let mut totals: [T; 256];
    #[tile_static]
    let mut groups: [T; 16];
    #[tile_static]
    let mut others: [T; 256];
    #[tile_static]
    let mut other_groups: [T; 16];
    #[tile_static]
    let mut shared: [T; 2];
    #[tile_static]
    let mut block: u32;
    #[tile_static]
    let mut state: u32;
    let n = input.extent()[0];
    let l = t.local[0];
    if l == 0 {
        block = atomic_fetch_add(&mut status[0], 1u32);
    }
    t.barrier.wait();
    let b = block as usize;
    let start = (b * 256 + l) * ITEMS;
    let end = if start + ITEMS < n { start + ITEMS } else { n };
    let mut total = T::ZERO;
    for i in start..end {
        total += input[i];
    }
    totals[l] = total;
    t.barrier.wait();
    // The threads' totals: 16 groups of 16 scanned serially, then the 16 group sums.
    if l < 16 {
        let mut s = T::ZERO;
        for k in 0..16 {
            s += totals[l * 16 + k];
            totals[l * 16 + k] = s;
        }
        groups[l] = s;
    }
    t.barrier.wait();
    // The block's sum, published at once so that later blocks need not look past it.
    if l == 0 {
        let mut s = T::ZERO;
        for k in 0..16 {
            let g = groups[k];
            groups[k] = s;
            s += g;
        }
        shared[0] = s;
        if b == 0 {
            prefixes[0] = s;
        } else {
            aggregates[b] = s;
        }
        global_memory_fence(t.barrier);
        if b == 0 {
            atomic_exchange(&mut status[1], 2u32);
        } else {
            atomic_exchange(&mut status[1 + b], 1u32);
        }
    }
    t.barrier.wait();
    // The look-back: `p - 1` is the block looked at; ends at a published prefix or block 0.
    let mut prefix = T::ZERO;
    let mut p = b;
    while p > 0 {
        if l == 0 {
            let mut s = 0u32;
            let mut k = 0u32;
            while s == 0 && k < polls {
                s = atomic_fetch_or(&mut status[p], 0u32);
                k += 1;
            }
            global_memory_fence(t.barrier);
            if s == 2 {
                shared[1] = prefixes[p - 1];
            } else if s == 1 {
                shared[1] = aggregates[p - 1];
            }
            state = s;
        }
        t.barrier.wait();
        let s = state;
        if s == 0 {
            // The fallback: the tile sums block `p - 1` itself (a whole block: only the
            // last block is partial).
            let first = (p - 1) * 256 * ITEMS;
            let mut part = T::ZERO;
            for k in 0..ITEMS {
                part += input[first + k * 256 + l];
            }
            others[l] = part;
            t.barrier.wait();
            if l < 16 {
                let mut g = T::ZERO;
                for k in 0..16 {
                    g += others[l * 16 + k];
                }
                other_groups[l] = g;
            }
            t.barrier.wait();
            if l == 0 {
                let mut g = T::ZERO;
                for k in 0..16 {
                    g += other_groups[k];
                }
                shared[1] = g;
            }
            t.barrier.wait();
        }
        prefix += shared[1];
        p = if s == 2 { 0 } else { p - 1 };
        // Every thread has read `state` and `shared[1]` before thread 0 writes them again.
        t.barrier.wait();
    }
    if l == 0 && b > 0 {
        prefixes[b] = prefix + shared[0];
        global_memory_fence(t.barrier);
        atomic_exchange(&mut status[1 + b], 2u32);
    }
    let mut run = prefix + groups[l / 16];
    if l % 16 != 0 {
        run += totals[l - 1];
    }
    for i in start..end {
        let x = input[i];
        if exclusive == 1 {
            output[i] = run;
            run += x;
        } else {
            run += x;
            output[i] = run;
        }
    }
}

/// Scans the integers of `input` into `output` (same length, at least 1) in one launch on
/// `acc`, asking each block's state `polls` times before summing it (0: every tile sums every
/// block before its own, which tests the fallback).
pub(super) fn scan_single_pass_into<T: DeviceScalar>(
    acc: &Accelerator,
    input: &ArrayView<'_, T, 1>,
    output: &mut ArrayViewMut<'_, T, 1>,
    exclusive: bool,
    polls: u32,
) -> Result<(), Error> {
    let n = input.extent()[0];
    let blocks = n.div_ceil(SCAN_BLOCK);
    // The tile counter and every block's state start at 0 (nothing published).
    let mut status = Array::<u32, 1>::new_on(acc, [blocks + 1])?;
    let mut aggregates = Array::<T, 1>::new_for_overwrite_on(acc, [blocks])?;
    let mut prefixes = Array::<T, 1>::new_for_overwrite_on(acc, [blocks])?;
    // SAFETY: thread `l` of the tile that takes block `b < blocks` reads and writes elements
    // `start..end` of `input` and `output` (the same length, clamped to `n`), reads whole
    // blocks before `b` (each `SCAN_BLOCK` elements, all below `n`), and touches
    // `status[0]`, `status[1 + b']`, `aggregates[b']` and `prefixes[b']` for `b' <= b`
    // (`blocks + 1` and `blocks` long). The counter hands out exactly `blocks` numbers, one per
    // tile.
    let launched = parallel_for_each(tiles(blocks), unsafe {
        scan_single_pass::<T, SCAN_ITEMS>(
            input,
            output,
            &mut status.view_mut(),
            &mut aggregates.view_mut(),
            &mut prefixes.view_mut(),
            exclusive as u32,
            polls,
        )
    });
    launched
}

/// The single-pass scan with a chosen number of polls per block, for tests: `polls` 0 makes
/// every tile take the fallback for every block before its own. Meant for `i32` and `u32`: a
/// float scan runs too, but its rounding then depends on the schedule, which is why the public
/// scans send only integers here.
#[doc(hidden)]
pub fn single_pass_scan<T: DeviceScalar>(
    input: &ArrayView<'_, T, 1>,
    output: &mut ArrayViewMut<'_, T, 1>,
    exclusive: bool,
    polls: u32,
) -> Result<(), Error> {
    let n = input.extent()[0];
    super::check_lengths("single_pass_scan", ("input", n), ("output", output.extent()[0]))?;
    if n == 0 {
        return Ok(());
    }
    let acc = super::accelerator_of(input.accelerator())?;
    scan_single_pass_into(&acc, input, output, exclusive, polls)?;
    output.synchronize()
}
