//! The single-pass scan of integers: decoupled look-back (Merrill and Garland, "Single-pass
//! Parallel Prefix Scan with Decoupled Look-back") with a decoupled fallback (Smith, Levien
//! and Owens, "Decoupled Fallback: A Portable Single-Pass GPU Scan").
//!
//! Each tile takes the next block number from an atomic counter, so blocks start in order.
//! It sums its block, publishes that aggregate, then looks back over the blocks before it:
//! a block that has published its inclusive prefix ends the look-back, one that has published
//! only its aggregate adds it and the look-back goes on. One launch reads the input and writes
//! the output once each (8 bytes of traffic per 4-byte element, against reduce-then-scan's 12
//! in three launches a level). Each thread owns a run of consecutive elements; on a GPU the
//! block is first copied into `tile_static` memory with neighbouring threads on neighbouring
//! elements, so the loads and stores coalesce; a CPU device reads each run in place, twice
//! (to sum, then to scan), which it runs faster ([`stages_blocks`]).
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

use super::{tiles, TILE};
use crate::prelude::*;

/// How many times a tile asks for a block's state before it sums that block itself. A GPU's
/// tile finds its predecessor ready within a few polls (the predecessor started earlier and
/// publishes its aggregate after one pass over its block); summing a block instead reads its
/// block's elements again.
const LOOKBACK_POLLS: u32 = 64;

/// Scans block `block` (taken from `status[0]`) of `input` into `output`; exclusive when
/// `exclusive` is 1. `status[1 + b]` is block `b`'s state: 0 nothing published, 1 its sum in
/// `aggregates[b]`, 2 its inclusive prefix in `prefixes[b]`. A state is published with an
/// atomic exchange after the value and a fence, and read with an atomic then a fence (the
/// kernel language's cross-tile pattern, docs/kernel-language.md). Each thread scans its
/// `ITEMS` consecutive elements in two passes, as `scan_blocks` does: from `input` itself
/// (`staged` 0), or (`staged` 1, `ITEMS` 16) from a copy of the block in `tile_static` memory
/// made and written back with neighbouring threads on neighbouring elements. Block index `j`
/// sits at `j + j / 32` in the copy, so the 32 threads of a subgroup, 16 elements apart, meet
/// 32 different banks.
// Every element of `output` is written once, by the thread that owns it, and each tile writes
// only its own block's `aggregates` and `prefixes` slots (the analysis proves neither: the
// block number comes from an atomic).
#[kernel(amp, unchecked, allow(write_conflict))]
#[allow(clippy::too_many_arguments)]
fn scan_single_pass<const ITEMS: usize>(
    t: TiledIndex<256>,
    input: ArrayView<u32, 1>,
    output: ArrayViewMut<u32, 1>,
    status: ArrayViewMut<u32, 1>,
    aggregates: ArrayViewMut<u32, 1>,
    prefixes: ArrayViewMut<u32, 1>,
    exclusive: u32,
    polls: u32,
    staged: u32,
) {
    #[tile_static]
    let mut staging: [u32; 4224];
    #[tile_static]
    let mut totals: [u32; 256];
    #[tile_static]
    let mut groups: [u32; 16];
    #[tile_static]
    let mut others: [u32; 256];
    #[tile_static]
    let mut other_groups: [u32; 16];
    #[tile_static]
    let mut shared: [u32; 2];
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
    let base = b * 256 * ITEMS;
    let start = base + l * ITEMS;
    let end = if start + ITEMS < n { start + ITEMS } else { n };
    let mut total = 0u32;
    if staged == 1 {
        for k in 0..ITEMS {
            let i = base + k * 256 + l;
            let j = k * 256 + l;
            staging[j + j / 32] = if i < n { input[i] } else { 0u32 };
        }
        t.barrier.wait();
        for k in 0..ITEMS {
            let j = l * ITEMS + k;
            total += staging[j + j / 32];
        }
    } else {
        for i in start..end {
            total += input[i];
        }
    }
    totals[l] = total;
    t.barrier.wait();
    // The threads' totals: 16 groups of 16 scanned serially, then the 16 group sums.
    if l < 16 {
        let mut s = 0u32;
        for k in 0..16 {
            s += totals[l * 16 + k];
            totals[l * 16 + k] = s;
        }
        groups[l] = s;
    }
    t.barrier.wait();
    // The block's sum, published at once so that later blocks need not look past it.
    if l == 0 {
        let mut s = 0u32;
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
    let mut prefix = 0u32;
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
            let mut part = 0u32;
            for k in 0..ITEMS {
                part += input[first + k * 256 + l];
            }
            others[l] = part;
            t.barrier.wait();
            if l < 16 {
                let mut g = 0u32;
                for k in 0..16 {
                    g += others[l * 16 + k];
                }
                other_groups[l] = g;
            }
            t.barrier.wait();
            if l == 0 {
                let mut g = 0u32;
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
    if staged == 1 {
        for k in 0..ITEMS {
            let j = l * ITEMS + k;
            let x = staging[j + j / 32];
            if exclusive == 1 {
                staging[j + j / 32] = run;
                run += x;
            } else {
                run += x;
                staging[j + j / 32] = run;
            }
        }
        t.barrier.wait();
        for k in 0..ITEMS {
            let i = base + k * 256 + l;
            let j = k * 256 + l;
            if i < n {
                output[i] = staging[j + j / 32];
            }
        }
    } else {
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
}

/// Elements per thread of the single pass reading its runs directly (blocks of 32,768): a CPU
/// device pays per tile for the barriers and the look-back (lavapipe, 16M `u32`: 127 ms with
/// runs of 32, 89 ms with 128, 76 ms with 512), and a tile's fallback loops over an earlier
/// block count against a CPU driver's loop limit as runs of this length.
const DIRECT_ITEMS: usize = 128;
/// Elements per thread of the staged single pass (blocks of 4,096: 16.5 KiB of `tile_static`
/// memory, with the padding, for the block's copy).
const STAGED_ITEMS: usize = 16;

/// Whether the single pass on `acc` copies its blocks through `tile_static` memory: on GPUs,
/// whose loads coalesce across neighbouring threads; not on CPU devices (lavapipe, the native
/// accelerator), which run each thread's run of elements as a loop and pay for the copy
/// (lavapipe, 16M `u32`, one run: 954 ms staged, 450 ms in place).
fn stages_blocks(acc: &Accelerator) -> bool {
    !acc.is_emulated()
}

/// Scans the integers of `input` into `output` (same length, at least 1, `T` `i32` or `u32`:
/// [`is_int`](super::host::is_int)) in one launch on `acc`, asking each block's state `polls`
/// times before summing it (0: every tile sums every block before its own, which tests the
/// fallback; `None`: [`LOOKBACK_POLLS`]), its blocks `staged` or not (`None`: the device's
/// choice, [`stages_blocks`]). `i32`s are scanned as their `u32` bits: wrapping addition gives
/// the same bits.
pub(super) fn scan_single_pass_into<T: DeviceScalar>(
    acc: &Accelerator,
    input: &ArrayView<'_, T, 1>,
    output: &mut ArrayViewMut<'_, T, 1>,
    exclusive: bool,
    polls: Option<u32>,
    staged: Option<bool>,
) -> Result<(), Error> {
    debug_assert!(super::host::is_int::<T>());
    let polls = polls.unwrap_or(LOOKBACK_POLLS);
    let staged = staged.unwrap_or_else(|| stages_blocks(acc));
    let input = &input.reinterpret_as::<u32>()?;
    let output = &mut output.reinterpret_as_mut::<u32>()?;
    let n = input.extent()[0];
    let items = if staged { STAGED_ITEMS } else { DIRECT_ITEMS };
    let blocks = n.div_ceil(TILE * items);
    // The tile counter and every block's state start at 0 (nothing published).
    let mut status = Array::<u32, 1>::new_on(acc, [blocks + 1])?;
    let mut aggregates = Array::<u32, 1>::new_for_overwrite_on(acc, [blocks])?;
    let mut prefixes = Array::<u32, 1>::new_for_overwrite_on(acc, [blocks])?;
    let (status, aggregates, prefixes) = (
        &mut status.view_mut(),
        &mut aggregates.view_mut(),
        &mut prefixes.view_mut(),
    );
    let exclusive = exclusive as u32;
    // SAFETY (both): thread `l` of the tile that takes block `b < blocks` reads and writes
    // elements `start..end` of `input` and `output` (the same length, clamped to `n`; staged,
    // `base + k * 256 + l` below `n`), reads whole blocks before `b` (each `256 * ITEMS`
    // elements, all below `n`), and touches `status[0]`, `status[1 + b']`, `aggregates[b']`
    // and `prefixes[b']` for `b' <= b` (`blocks + 1` and `blocks` long): the counter hands out
    // exactly `blocks` numbers, one per tile. `staging` holds `256 * 16` elements at
    // `j + j / 32`, below 4,224, and is used only with `ITEMS` 16.
    if staged {
        parallel_for_each(tiles(blocks), unsafe {
            scan_single_pass::<STAGED_ITEMS>(
                input, output, status, aggregates, prefixes, exclusive, polls, 1,
            )
        })
    } else {
        parallel_for_each(tiles(blocks), unsafe {
            scan_single_pass::<DIRECT_ITEMS>(
                input, output, status, aggregates, prefixes, exclusive, polls, 0,
            )
        })
    }
}

/// The single-pass scan with a chosen number of polls per block and layout, for tests and
/// the benchmark's variants: `polls` 0 makes every tile take the fallback for every block
/// before its own; `staged` `None` is the device's choice.
#[doc(hidden)]
pub fn single_pass_scan<T: DeviceInt>(
    input: &ArrayView<'_, T, 1>,
    output: &mut ArrayViewMut<'_, T, 1>,
    exclusive: bool,
    polls: u32,
    staged: Option<bool>,
) -> Result<(), Error> {
    super::scan_entry("single_pass_scan", input, output, |acc, input, output| {
        scan_single_pass_into(acc, input, output, exclusive, Some(polls), staged)
    })
}
