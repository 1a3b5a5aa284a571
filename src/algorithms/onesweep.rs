//! Onesweep (Adinets and Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for
//! GPUs"): an LSD radix sort of 32-bit keys with 8-bit digits that reads and writes the keys
//! once per digit, with the decoupled look-back of the integer scan (`lookback.rs`) chaining
//! each digit's count across blocks, and a decoupled fallback instead of any wait.
//!
//! 1. `radix_histograms`: one pass over the keys counts all four digits of every key (1,024
//!    bins: `tile_static` atomics, then one global atomic per non-empty bin and tile);
//!    `digit_starts` turns each digit's 256 counts into the first output position of each
//!    value of that digit.
//! 2. One `onesweep_pass` launch per digit. Each tile takes the next block of 1,024 keys from
//!    an atomic counter (so blocks start in order), counts the block's digits and publishes
//!    the counts at once; sorts the block stably by the digit in `tile_static` memory (two
//!    counting passes of 4 bits, each thread four consecutive keys); then thread `d` looks back
//!    for digit `d`: a block that has published its inclusive count (the keys of digit `d` in
//!    it and every block before it) ends thread `d`'s look-back, one that has published only
//!    its own count adds it and the look-back goes on. Every key's place is then its digit's
//!    start, plus the keys of that digit in earlier blocks, plus its rank within the block; a
//!    tile writes its sorted block in order, so neighbouring threads write neighbouring places
//!    within a digit's run.
//!
//! A block's state for one digit is one word: the state in the top two bits (0 nothing, 1 the
//! block's own count, 2 the inclusive count), the count in the low 30. A reader sees the state
//! and its count together, so no fence is needed between them; keys are at most 2^30 - 1.
//!
//! No tile waits for another. A tile asks for a block's states a bounded number of times; a
//! digit still unpublished makes the whole tile count that block's digits itself (the block's
//! keys are read again) and look further back. The sort therefore ends on any scheduler, as
//! the scan does.
//!
//! Stable: the block's sort keeps the input order within a digit, and blocks are placed in
//! order, so every pass is stable and the passes compose.

use super::{tiles, TILE};
use crate::prelude::*;

/// Keys per thread of a Onesweep block.
const ITEMS: usize = 4;
/// Keys per Onesweep block: with the block's sort in `tile_static` memory (keys, two orders,
/// a 16 x 256 table of counts and the digit counts: 31 KiB), it fits the 32 KiB [`fits`]
/// asks of the device (lavapipe's whole `tile_static` memory; GPUs have 48 KiB or more).
const BLOCK: usize = TILE * ITEMS;
/// Bytes of `tile_static` memory `onesweep_pass` takes (its arrays, rounded up).
const TILE_STATIC_BYTES: usize = 32 * 1024;
/// Keys per tile of `radix_histograms`.
const HISTOGRAM_BLOCK: usize = TILE * 32;
/// The states of a block's digit count, in the word's top two bits.
const AGGREGATE: u32 = 1 << 30;
const PREFIX: u32 = 2 << 30;
/// The count in a state word.
const COUNT: u32 = (1 << 30) - 1;
/// How many times a thread asks for a block's state before its tile counts that block itself.
pub(super) const POLLS: u32 = 64;

/// `hist[r * 256 + v]` gains the keys whose digit `r` (bits `8r..8r + 8`) is `v`; `hist` starts
/// at zero.
// Each tile adds its counts with atomics; its `tile_static` counts are indexed by digit, whose
// bank conflicts are allowed.
#[kernel(amp, allow(bank_conflict))]
fn radix_histograms(t: TiledIndex<256>, keys: ArrayView<u32, 1>, hist: ArrayViewMut<u32, 1>) {
    #[tile_static]
    let mut local: [u32; 1024];
    let n = keys.extent()[0];
    let l = t.local[0];
    for r in 0..4 {
        local[r * 256 + l] = 0;
    }
    t.barrier.wait();
    let base = t.tile[0] * 8192;
    for k in 0..32 {
        let i = base + k * 256 + l;
        if i < n {
            let key = keys[i];
            atomic_fetch_add(&mut local[(key & 255) as usize], 1u32);
            atomic_fetch_add(&mut local[256 + ((key >> 8) & 255) as usize], 1u32);
            atomic_fetch_add(&mut local[512 + ((key >> 16) & 255) as usize], 1u32);
            atomic_fetch_add(&mut local[768 + (key >> 24) as usize], 1u32);
        }
    }
    t.barrier.wait();
    for r in 0..4 {
        let c = local[r * 256 + l];
        if c != 0 {
            atomic_fetch_add(&mut hist[r * 256 + l], c);
        }
    }
}

/// `starts[r * 256 + v]`: the keys whose digit `r` is below `v` (the exclusive scan of each
/// digit's counts); thread `r` scans digit `r`.
#[kernel(amp)]
fn digit_starts(idx: Index<1>, hist: ArrayView<u32, 1>, starts: ArrayViewMut<u32, 1>) {
    let r = idx[0];
    let mut s = 0u32;
    for v in 0..256 {
        starts[r * 256 + v] = s;
        s += hist[r * 256 + v];
    }
}

/// One digit's pass (bits `shift..shift + 8`, digit `row` of `starts`): moves each key of the
/// block the tile takes from `status[0]` (and its index when `WITH_INDEX` is 1, its position
/// when 2) to its place. `status[1 + b * 256 + v]` is block `b`'s state for digit value `v`;
/// the tile zeroes its block's entries of `next_status`, the next pass's `status`.
// Every key goes to a place of its own (the places are a permutation), and each tile writes
// only its own block's states: the analysis proves neither.
#[kernel(amp, allow(write_conflict, bank_conflict))]
#[allow(clippy::too_many_arguments)]
fn onesweep_pass<const WITH_INDEX: u32>(
    t: TiledIndex<256>,
    keys_in: ArrayView<u32, 1>,
    index_in: ArrayView<u32, 1>,
    starts: ArrayView<u32, 1>,
    keys_out: ArrayViewMut<u32, 1>,
    index_out: ArrayViewMut<u32, 1>,
    status: ArrayViewMut<u32, 1>,
    next_status: ArrayViewMut<u32, 1>,
    shift: u32,
    row: u32,
    polls: u32,
) {
    // The block's keys in input order; `order` and `sorted` hold block positions in the order
    // of the low 4 bits of the digit, then of the whole digit.
    #[tile_static]
    let mut keys: [u32; 1024];
    #[tile_static]
    let mut order: [u32; 1024];
    #[tile_static]
    let mut sorted: [u32; 1024];
    // Entry `v * 256 + thread`: that thread's keys with 4-bit value `v`, then their places.
    #[tile_static]
    let mut counts: [u32; 4096];
    #[tile_static]
    let mut totals: [u32; 256];
    // The block's count of each digit value, then its first position in the sorted block.
    #[tile_static]
    let mut hist: [u32; 256];
    #[tile_static]
    let mut offsets: [u32; 256];
    #[tile_static]
    let mut groups: [u32; 16];
    #[tile_static]
    let mut block: u32;
    // Per look-back step, by its parity: whether a digit found nothing published, and how
    // many digits still look back.
    #[tile_static]
    let mut fallback: [u32; 2];
    #[tile_static]
    let mut remaining: [u32; 2];
    let n = keys_in.extent()[0];
    let l = t.local[0];
    if l == 0 {
        block = atomic_fetch_add(&mut status[0], 1u32);
        fallback[0] = 0;
        fallback[1] = 0;
        remaining[0] = 0;
        remaining[1] = 0;
    }
    hist[l] = 0;
    t.barrier.wait();
    let b = block as usize;
    // The next pass's states of this block start at 0 (nothing published), and its counter
    // too: the two passes' state arrays take turns, so no pass needs a fill of its own.
    next_status[1 + b * 256 + l] = 0;
    if b == 0 && l == 0 {
        next_status[0] = 0;
    }
    let base = b * 1024;
    let count = if base + 1024 < n { 1024 } else { n - base };
    for k in 0..4 {
        let j = k * 256 + l;
        if j < count {
            let key = keys_in[base + j];
            keys[j] = key;
            atomic_fetch_add(&mut hist[((key >> shift) & 255) as usize], 1u32);
        }
    }
    t.barrier.wait();
    // The block's own counts, published at once (block 0's are already inclusive).
    let mine = hist[l];
    if b == 0 {
        atomic_exchange(&mut status[1 + l], PREFIX | mine);
    } else {
        atomic_exchange(&mut status[1 + b * 256 + l], AGGREGATE | mine);
    }
    // The block sorted stably by the digit: by its low 4 bits, then by its high 4 bits. Each
    // thread counts its four consecutive keys into its own column of `counts`; the exclusive
    // scan of the whole table (value-major) is every (value, thread)'s first place.
    for half in 0..2u32 {
        for v in 0..16 {
            counts[v * 256 + l] = 0;
        }
        let bits = shift + 4 * half;
        // The thread's keys' block positions and 4-bit values, kept for placing them.
        let mut srcs = [0usize; 4];
        let mut values = [0usize; 4];
        for k in 0..4 {
            let j = l * 4 + k;
            if j < count {
                let src = if half == 0 { j } else { order[j] as usize };
                let v = ((keys[src] >> bits) & 15) as usize;
                srcs[k] = src;
                values[k] = v;
                counts[v * 256 + l] += 1;
            }
        }
        t.barrier.wait();
        // Thread `l` scans entries `l * 16 ..`; then 16 groups of 16 threads' totals.
        let mut run = 0u32;
        for k in 0..16 {
            let c = counts[l * 16 + k];
            counts[l * 16 + k] = run;
            run += c;
        }
        totals[l] = run;
        t.barrier.wait();
        if l < 16 {
            let mut s = 0u32;
            for k in 0..16 {
                let c = totals[l * 16 + k];
                totals[l * 16 + k] = s;
                s += c;
            }
            groups[l] = s;
        }
        t.barrier.wait();
        if l == 0 {
            let mut s = 0u32;
            for k in 0..16 {
                let c = groups[k];
                groups[k] = s;
                s += c;
            }
        }
        t.barrier.wait();
        for k in 0..4 {
            let j = l * 4 + k;
            if j < count {
                let src = srcs[k];
                let e = values[k] * 256 + l;
                let place = (counts[e] + totals[e / 16] + groups[e / 256]) as usize;
                counts[e] += 1;
                if half == 0 {
                    order[place] = src as u32;
                } else {
                    sorted[place] = src as u32;
                }
            }
        }
        t.barrier.wait();
    }
    // Each digit value's first position in the sorted block.
    if l < 16 {
        let mut s = 0u32;
        for k in 0..16 {
            offsets[l * 16 + k] = s;
            s += hist[l * 16 + k];
        }
        groups[l] = s;
    }
    t.barrier.wait();
    if l == 0 {
        let mut s = 0u32;
        for k in 0..16 {
            let c = groups[k];
            groups[k] = s;
            s += c;
        }
    }
    t.barrier.wait();
    let first = offsets[l] + groups[l / 16];
    // The look-back, thread `l` for digit value `l`; block `p - 1` is the one looked at, the
    // same for the whole tile, and `q` the step's parity.
    let mut before = 0u32;
    let mut done = b == 0;
    let mut p = b;
    let mut q = 0usize;
    while p > 0 {
        let mut s = 0u32;
        if !done {
            let mut k = 0u32;
            while s == 0 && k < polls {
                s = atomic_fetch_or(&mut status[1 + (p - 1) * 256 + l], 0u32);
                k += 1;
            }
            if s == 0 {
                atomic_exchange(&mut fallback[q], 1u32);
            }
        }
        t.barrier.wait();
        let fall = fallback[q];
        if l == 0 {
            // The other parity's flags were last read in the step before this one, which
            // every thread has finished.
            fallback[1 - q] = 0;
            remaining[1 - q] = 0;
        }
        if fall != 0 {
            // The fallback: the tile counts block `p - 1`'s digits itself (a whole block: only
            // the last block is partial).
            counts[l] = 0;
            t.barrier.wait();
            let other = (p - 1) * 1024;
            for k in 0..4 {
                let key = keys_in[other + k * 256 + l];
                atomic_fetch_add(&mut counts[((key >> shift) & 255) as usize], 1u32);
            }
            t.barrier.wait();
            if s == 0 {
                s = AGGREGATE | counts[l];
            }
        }
        if !done {
            before += s & COUNT;
            done = s >= PREFIX;
            if !done {
                atomic_fetch_add(&mut remaining[q], 1u32);
            }
        }
        t.barrier.wait();
        p = if remaining[q] == 0 { 0 } else { p - 1 };
        q = 1 - q;
    }
    if b > 0 {
        atomic_exchange(&mut status[1 + b * 256 + l], PREFIX | (before + mine));
    }
    // Where digit value `l`'s keys of this block go: their place is `offsets[v]` plus their
    // rank in the block, the sorted position less `hist[v]`, the value's first position.
    offsets[l] = starts[row as usize * 256 + l] + before;
    hist[l] = first;
    t.barrier.wait();
    for k in 0..4 {
        let i = k * 256 + l;
        if i < count {
            let src = sorted[i] as usize;
            let key = keys[src];
            let v = ((key >> shift) & 255) as usize;
            let place = (offsets[v] + (i as u32 - hist[v])) as usize;
            keys_out[place] = key;
            if WITH_INDEX == 1 {
                index_out[place] = index_in[base + src];
            } else if WITH_INDEX == 2 {
                index_out[place] = (base + src) as u32;
            }
        }
    }
}

/// Whether `acc` can run a Onesweep pass over `n` keys: the block's `tile_static` memory fits
/// the device, and every count fits a state word's 30 bits.
pub(super) fn fits(acc: &Accelerator, n: usize) -> bool {
    acc.limits().max_tile_static_bytes() as usize >= TILE_STATIC_BYTES && n <= COUNT as usize
}

/// Whether `acc` sorts by Onesweep by default: on GPUs, whose cost is the bytes the passes
/// move (Onesweep moves a third of the 4-bit passes' per 8 bits of key), and not on CPU devices,
/// whose cost is instructions, where the block's sort in `tile_static` memory makes Onesweep
/// the slower (16M random `u32`, one run each: lavapipe 21.3 s against 8.5 s, the native
/// accelerator's kernels 1.61 s against 0.97 s).
pub(super) fn preferred(acc: &Accelerator) -> bool {
    !acc.is_emulated()
}

/// Sorts `keys[0]` stably by its four 8-bit digits (with the payload in `index[0]`, in the
/// mode `payload(pass)` gives: absent when 0, carried when 1, made from the positions when 2),
/// asking each block's state `polls` times before counting it. Each pass swaps the two buffers, so the keys (and
/// payload) end in `keys[0]` (`index[0]`). The caller checks [`fits`].
pub(super) fn sort_passes(
    acc: &Accelerator,
    keys: &mut [Array<u32, 1>; 2],
    index: &mut [Array<u32, 1>; 2],
    payload: impl Fn(u32) -> u32,
    polls: u32,
) -> Result<(), Error> {
    let n = keys[0].len();
    let blocks = n.div_ceil(BLOCK);
    let mut hist = Array::<u32, 1>::new_on(acc, [1024])?;
    let mut starts = Array::<u32, 1>::new_for_overwrite_on(acc, [1024])?;
    parallel_for_each(
        tiles(n.div_ceil(HISTOGRAM_BLOCK)),
        radix_histograms(&keys[0].view(), &mut hist.view_mut()),
    )?;
    parallel_for_each(
        Extent::new([4]),
        digit_starts(&hist.view(), &mut starts.view_mut()),
    )?;
    // Each pass's tile counter and states start at 0 (nothing published): the first pass's
    // from the fill, each later one's from the pass before it.
    let mut status = [
        Array::<u32, 1>::new_on(acc, [1 + blocks * 256])?,
        Array::<u32, 1>::new_for_overwrite_on(acc, [1 + blocks * 256])?,
    ];
    for pass in 0..4u32 {
        {
            let [keys_in, keys_out] = &mut *keys;
            let [index_in, index_out] = &mut *index;
            let domain = tiles(blocks);
            let (keys_in, index_in) = (&keys_in.view(), &index_in.view());
            let starts = &starts.view();
            let (keys_out, index_out) = (&mut keys_out.view_mut(), &mut index_out.view_mut());
            let [this_status, next_status] = &mut status;
            let (status, next_status) = (&mut this_status.view_mut(), &mut next_status.view_mut());
            let shift = pass * 8;
            // The payload mode is a specialization constant: no branch per key.
            match payload(pass) {
                0 => parallel_for_each(
                    domain,
                    onesweep_pass::<0>(
                        keys_in,
                        index_in,
                        starts,
                        keys_out,
                        index_out,
                        status,
                        next_status,
                        shift,
                        pass,
                        polls,
                    ),
                )?,
                1 => parallel_for_each(
                    domain,
                    onesweep_pass::<1>(
                        keys_in,
                        index_in,
                        starts,
                        keys_out,
                        index_out,
                        status,
                        next_status,
                        shift,
                        pass,
                        polls,
                    ),
                )?,
                _ => parallel_for_each(
                    domain,
                    onesweep_pass::<2>(
                        keys_in,
                        index_in,
                        starts,
                        keys_out,
                        index_out,
                        status,
                        next_status,
                        shift,
                        pass,
                        polls,
                    ),
                )?,
            }
        }
        keys.swap(0, 1);
        index.swap(0, 1);
        status.swap(0, 1);
    }
    Ok(())
}
