//! Scans of floats on the native CPU accelerator as plain Rust, rounding as the kernels round
//! there. A float scan's result depends on how its additions are grouped, and the kernels'
//! grouping (scan.rs: reduce-then-scan over blocks of `TILE * SCAN_ITEMS` elements) is part of
//! what a user sees: the same input scans to the same bits on every run and whichever path
//! runs it. So this twin repeats every addition of the kernels as the native back end runs
//! them (docs/native.md, subgroups): its subgroups are 32 consecutive threads, a subgroup sum
//! adds the lanes in order from the first lane's value, and an exclusive subgroup scan gives
//! the first lane `0.0` and each later lane the sum of the lanes before it, also from the
//! first lane's value. What it saves is the tiles' frames and barriers: each block is a few
//! plain loops over a slice, and blocks run in parallel on the accelerator's pool.
//!
//! `tests/device/algorithms.rs` holds the twin to the kernels bit for bit.

use super::{SCAN_BLOCK, SCAN_ITEMS, TILE};
use crate::prelude::*;
use rayon::prelude::*;

/// Threads of a native subgroup.
const SUBGROUP: usize = amp_runtime::native_rt::SUBGROUP_SIZE as usize;

/// The scan of `x` into `out` (the same length, at least 1), exclusive or inclusive, with the
/// kernels' grouping. Called on the native pool.
pub(super) fn scan<T: DeviceScalar>(x: &[T], out: &mut [T], exclusive: bool) {
    let blocks = x.len().div_ceil(SCAN_BLOCK);
    let offsets = if blocks == 1 {
        vec![T::ZERO]
    } else {
        let sums: Vec<T> = x.par_chunks(SCAN_BLOCK).map(block_sum).collect();
        let mut offsets = vec![T::ZERO; blocks];
        scan(&sums, &mut offsets, true);
        offsets
    };
    x.par_chunks(SCAN_BLOCK)
        .zip(out.par_chunks_mut(SCAN_BLOCK))
        .zip(offsets.par_iter())
        .for_each(|((x, out), &offset)| scan_block(x, out, offset, exclusive));
}

/// A block's sum as `reduce::sum_blocks::<T, SCAN_ITEMS>` adds it: thread `l` adds the
/// block's elements `k * TILE + l` (`k` ascending) to `0.0`, each subgroup adds its threads'
/// sums in lane order, and the first thread adds the subgroups' sums in order.
fn block_sum<T: DeviceScalar>(block: &[T]) -> T {
    let mut lanes = [T::ZERO; TILE];
    for row in block.chunks(TILE) {
        for (lane, &v) in lanes.iter_mut().zip(row) {
            *lane += v;
        }
    }
    let subgroups: Vec<T> = lanes.chunks(SUBGROUP).map(in_order).collect();
    in_order(&subgroups)
}

/// One block as `scan::scan_blocks_subgroups` scans it: thread `l` owns elements `l *
/// SCAN_ITEMS ..` and adds them to `0.0`; its run starts at the block's offset plus the exclusive
/// subgroup scan of those totals, plus the sums of the subgroups before its own, one by one;
/// then it writes its elements' prefixes from there.
fn scan_block<T: DeviceScalar>(x: &[T], out: &mut [T], offset: T, exclusive: bool) {
    let mut totals = [T::ZERO; TILE];
    for (total, run) in totals.iter_mut().zip(x.chunks(SCAN_ITEMS)) {
        for &v in run {
            *total += v;
        }
    }
    let mut sums = [T::ZERO; TILE / SUBGROUP];
    for (sum, s) in sums.iter_mut().zip(totals.chunks(SUBGROUP)) {
        *sum = in_order(s);
    }
    let mut starts = [T::ZERO; TILE];
    for (g, (start, lanes)) in starts
        .chunks_mut(SUBGROUP)
        .zip(totals.chunks(SUBGROUP))
        .enumerate()
    {
        let mut before = T::ZERO;
        for (k, (start, &total)) in start.iter_mut().zip(lanes).enumerate() {
            let mut run = offset + before;
            for &sum in &sums[..g] {
                run += sum;
            }
            *start = run;
            before = if k == 0 { total } else { before + total };
        }
    }
    for ((x, out), &start) in x
        .chunks(SCAN_ITEMS)
        .zip(out.chunks_mut(SCAN_ITEMS))
        .zip(&starts)
    {
        let mut run = start;
        for (&v, o) in x.iter().zip(out) {
            if exclusive {
                *o = run;
                run += v;
            } else {
                run += v;
                *o = run;
            }
        }
    }
}

/// The lanes' values added in order from the first one's (a native subgroup sum).
fn in_order<T: DeviceScalar>(lanes: &[T]) -> T {
    let (&first, rest) = lanes.split_first().expect("a subgroup has a lane");
    rest.iter().fold(first, |acc, &v| acc + v)
}
