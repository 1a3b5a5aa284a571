//! The algorithms with a user's function (`copy_if!`, `partition!`, `reduce_by_key!`) on the
//! native CPU accelerator, as a CPU runs them best: one thread per chunk of
//! [`NATIVE_CHUNK`] elements walks its chunk in order (Thrust's and rayon's chunked CPU
//! loops), so the data is read two or three times instead of once per pass of the GPU form
//! (flags, a scan over every element, a scatter), and no array of `n` flags or positions is
//! made. The kernels are the macros', over the user's function, so the function means what it
//! means in every kernel; only the shape of the work is the CPU's.
//!
//! Only where the result cannot depend on that shape: a selection moves elements without
//! arithmetic, and a `reduce_by_key` of integer values combines them exactly in any grouping
//! (its operator is associative by contract). Float values keep the kernels every device
//! runs, so that a run's sum rounds the same on every accelerator.

use super::scan::exclusive_scan_on;
use super::with_fn::AlgorithmElement;
use super::{check_runs_fit, check_selected_fit, scanned_total};
use crate::prelude::*;

/// Elements per chunk, one native thread each: long enough that a thread's loop dwarfs its
/// launch share, short enough for a few chunks per pool thread at a million elements.
pub(super) const NATIVE_CHUNK: usize = 4096;

/// Launches the one-pass kernel of a chunked `copy_if` or `partition`: `(input, scratch,
/// counts, partition, chunk)`.
type CompactChunks<'f, T> = &'f dyn Fn(
    &ArrayView<'_, T, 1>,
    &mut Array<T, 1>,
    &mut Array<u32, 1>,
    u32,
    u32,
) -> Result<(), Error>;

/// The user's kernels of a `copy_if` or `partition` on the native accelerator.
#[doc(hidden)]
pub struct ChunkSelect<'f, T: DeviceScalar> {
    /// Chunk `c`'s selected elements at the start of its part of a scratch array and
    /// `counts[c]`; with `partition` its others from the part's end backwards.
    pub compact: CompactChunks<'f, T>,
}

/// `select`'s work on the native accelerator, over `n = input.len() > 0` elements; the length
/// checks are the caller's, except `copy_if`'s (`out` holds the selected elements), made here
/// before anything is written to `out`. One pass over the input: each chunk compacts its
/// selection (and with `partition` its others) into its part of a scratch array, then the
/// parts move to their places. Returns how many were selected.
pub(super) fn select<T: AlgorithmElement>(
    acc: &Accelerator,
    operation: &'static str,
    partition: bool,
    input: &ArrayView<'_, T, 1>,
    out: &mut ArrayViewMut<'_, T, 1>,
    kernels: &ChunkSelect<'_, T>,
) -> Result<usize, Error> {
    let n = input.extent()[0];
    let (chunks, chunk) = chunks_of(n);
    let mut counts = Array::<u32, 1>::new_for_overwrite_on(acc, [chunks])?;
    let mut scratch = Array::<T, 1>::new_for_overwrite_on(acc, [n])?;
    let split = u32::from(partition);
    (kernels.compact)(input, &mut scratch, &mut counts, split, chunk)?;
    let (offsets, kept) = offsets(acc, &counts)?;
    if !partition {
        check_selected_fit(operation, kept, out)?;
    }
    let scratch = scratch.view();
    let moves = move_chunks(&scratch, &counts, &offsets, out, kept as u32, split, chunk);
    parallel_for_each_on(acc, counts.extent(), moves)?;
    Ok(kept)
}

/// Chunk `c`'s compacted selection (`counts[c]` elements from `scratch[c * chunk]`) to
/// `out[offsets[c]..]`; with `partition == 1` its others (stored from the end of its part
/// backwards) in input order from `out[kept + c * chunk - offsets[c]]`.
#[kernel(amp, allow(write_conflict))]
#[allow(clippy::too_many_arguments)]
fn move_chunks<T: DeviceScalar>(
    idx: Index<1>,
    scratch: ArrayView<T, 1>,
    counts: &Array<u32, 1>,
    offsets: &Array<u32, 1>,
    out: ArrayViewMut<T, 1>,
    kept: u32,
    partition: u32,
    chunk: u32,
) {
    let n = scratch.extent()[0];
    let start = idx[0] * chunk as usize;
    let end = min(start + chunk as usize, n);
    let to = offsets[idx] as usize;
    let selected = counts[idx] as usize;
    for k in 0..selected {
        out[to + k] = scratch[start + k];
    }
    if partition == 1 {
        let others = kept as usize + start - to;
        for r in 0..end - start - selected {
            out[others + r] = scratch[end - 1 - r];
        }
    }
}

/// Launches the head-count kernel of a chunked `reduce_by_key`: `(keys, counts, chunk)`.
type CountHeads<'f, K> =
    &'f dyn Fn(&ArrayView<'_, K, 1>, &mut Array<u32, 1>, u32) -> Result<(), Error>;
/// Launches the runs kernel: `(keys, values, offsets, keys_out, values_out, pre, suf, chunk)`.
type RunChunks<'f, K, V> = &'f dyn Fn(
    &ArrayView<'_, K, 1>,
    &ArrayView<'_, V, 1>,
    &Array<u32, 1>,
    &mut ArrayViewMut<'_, K, 1>,
    &mut ArrayViewMut<'_, V, 1>,
    &mut Array<V, 1>,
    &mut Array<V, 1>,
    u32,
) -> Result<(), Error>;
/// Launches the one-thread join kernel: `(keys, counts, offsets, pre, suf, values_out, chunk)`.
type JoinChunks<'f, K, V> = &'f dyn Fn(
    &ArrayView<'_, K, 1>,
    &Array<u32, 1>,
    &Array<u32, 1>,
    &Array<V, 1>,
    &Array<V, 1>,
    &mut ArrayViewMut<'_, V, 1>,
    u32,
) -> Result<(), Error>;

/// The user's kernels of a `reduce_by_key` on the native accelerator.
#[doc(hidden)]
pub struct ChunkSegments<'f, K: DeviceScalar, V: DeviceScalar> {
    /// `counts[c]`: the run heads in chunk `c`.
    pub count: CountHeads<'f, K>,
    /// The runs that start and end in a chunk, written; `pre[c]` the chunk's part of the run
    /// it starts inside, `suf[c]` the part of its last run.
    pub runs: RunChunks<'f, K, V>,
    /// The runs that reach a chunk's end, joined from their parts in chunk order.
    pub join: JoinChunks<'f, K, V>,
}

/// `reduce_by_key`'s work on the native accelerator over `n = keys.len() > 0` elements (the
/// lengths of `keys` and `values` agree); returns how many runs.
pub(super) fn runs<K: AlgorithmElement, V: AlgorithmElement>(
    acc: &Accelerator,
    keys: &ArrayView<'_, K, 1>,
    values: &ArrayView<'_, V, 1>,
    keys_out: &mut ArrayViewMut<'_, K, 1>,
    values_out: &mut ArrayViewMut<'_, V, 1>,
    kernels: &ChunkSegments<'_, K, V>,
) -> Result<usize, Error> {
    let (chunks, chunk) = chunks_of(keys.extent()[0]);
    let mut counts = Array::<u32, 1>::new_for_overwrite_on(acc, [chunks])?;
    (kernels.count)(keys, &mut counts, chunk)?;
    let (offsets, found) = offsets(acc, &counts)?;
    check_runs_fit(found, keys_out, values_out)?;
    // `pre[c]` is written where chunk `c` starts inside a run, `suf[c]` where it has a head:
    // the join reads each only then.
    let mut pre = Array::<V, 1>::new_for_overwrite_on(acc, [chunks])?;
    let mut suf = Array::<V, 1>::new_for_overwrite_on(acc, [chunks])?;
    (kernels.runs)(
        keys, values, &offsets, keys_out, values_out, &mut pre, &mut suf, chunk,
    )?;
    (kernels.join)(keys, &counts, &offsets, &pre, &suf, values_out, chunk)?;
    Ok(found)
}

/// How many chunks `n` elements make, and the chunk length as the kernels take it.
fn chunks_of(n: usize) -> (usize, u32) {
    (n.div_ceil(NATIVE_CHUNK), NATIVE_CHUNK as u32)
}

/// The exclusive scan of `counts` (each chunk's first output place) and the total.
fn offsets(acc: &Accelerator, counts: &Array<u32, 1>) -> Result<(Array<u32, 1>, usize), Error> {
    let mut offsets = Array::<u32, 1>::new_for_overwrite_on(acc, [counts.len()])?;
    exclusive_scan_on(acc, &counts.view(), &mut offsets.view_mut())?;
    let total = scanned_total(&offsets, counts)?;
    Ok((offsets, total))
}
