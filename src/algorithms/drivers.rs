//! The drivers of the algorithms that take a user's function (`with_fn.rs`): the macros expand,
//! in the user's crate, to kernels that call the function, and pass launchers of them here; these
//! functions check the arguments, allocate, and launch them together with the library's own
//! kernels (scans, scatters), pass after pass. Hidden: only the macros call them.

use super::chunked::{self, ChunkSegments, ChunkSelect};
use super::host::is_int;
use super::scan::exclusive_scan_on;
use super::unique::{run_starts, scatter_starts};
use super::with_fn::AlgorithmElement;
use super::{
    accelerator_of, check_lengths, check_runs_fit, check_selected_fit, scanned_total, sum,
    __FN_ITEMS, TILE,
};
use crate::prelude::*;

/// Elements per block of the reduction kernels (a tile's threads, `__FN_ITEMS` each).
const REDUCE_BLOCK: usize = TILE * __FN_ITEMS;
/// Elements per block of `count_if`'s kernel.
const COUNT_BLOCK: usize = TILE * __FN_ITEMS;
/// Values per thread of `reduce_by_key`'s chunk kernel.
const CHUNK: usize = __FN_ITEMS;

/// Elements per block of the scans with an operator (a tile's threads, `__FN_ITEMS` each).
const SCAN_WITH_BLOCK: usize = TILE * __FN_ITEMS;

/// Launches a scan's totals kernel: `(input, totals)`, one total per block.
type ScanTotals<'f, T> = &'f dyn Fn(&ArrayView<'_, T, 1>, &mut Array<T, 1>) -> Result<(), Error>;
/// Launches a scan's blocks kernel: `(blocks, input, carries, output, init, exclusive)`.
type ScanBlocks<'f, T> = &'f dyn Fn(
    usize,
    &ArrayView<'_, T, 1>,
    &ArrayView<'_, T, 1>,
    &mut ArrayViewMut<'_, T, 1>,
    T,
    u32,
) -> Result<(), Error>;

/// `inclusive_scan!` (`init` is `None`) and `exclusive_scan!` (`Some(init)`): checks the
/// lengths and scans `input` into `output` with the user's kernels.
#[doc(hidden)]
pub fn scan_with<T: AlgorithmElement>(
    operation: &'static str,
    input: &ArrayView<'_, T, 1>,
    output: &mut ArrayViewMut<'_, T, 1>,
    init: Option<T>,
    totals: ScanTotals<'_, T>,
    blocks: ScanBlocks<'_, T>,
) -> Result<(), Error> {
    super::scan_entry(operation, input, output, |acc, input, output| {
        scan_pass(acc, input, output, init, totals, blocks)
    })
}

/// One level of a scan with an operator: the blocks' totals and their inclusive scan (this
/// function again) when there is more than one block, then the blocks.
fn scan_pass<T: AlgorithmElement>(
    acc: &Accelerator,
    input: &ArrayView<'_, T, 1>,
    output: &mut ArrayViewMut<'_, T, 1>,
    init: Option<T>,
    totals: ScanTotals<'_, T>,
    blocks: ScanBlocks<'_, T>,
) -> Result<(), Error> {
    let count = input.extent()[0].div_ceil(SCAN_WITH_BLOCK);
    // `carries[b]` is the operator over blocks `0..=b` (read for the block after it).
    let carries = if count == 1 {
        Array::<T, 1>::new_on(acc, [1])?
    } else {
        let mut sums = Array::<T, 1>::new_for_overwrite_on(acc, [count])?;
        totals(input, &mut sums)?;
        let mut carries = Array::<T, 1>::new_for_overwrite_on(acc, [count])?;
        scan_pass(
            acc,
            &sums.view(),
            &mut carries.view_mut(),
            None,
            totals,
            blocks,
        )?;
        carries
    };
    let exclusive = u32::from(init.is_some());
    let carries = carries.view();
    blocks(
        count,
        input,
        &carries,
        output,
        init.unwrap_or(T::ZERO),
        exclusive,
    )
}

/// Launches a reduction's blocks kernel: `(input, partials, init, first)`.
type Blocks<'f, A, B> =
    &'f dyn Fn(&ArrayView<'_, A, 1>, &mut Array<B, 1>, B, u32) -> Result<(), Error>;

/// The reduction of `input` into one value, `init` first: `first` (the user's blocks kernel,
/// mapping each element if it is a `transform_reduce`) makes one partial per block of the input,
/// `rest` (the plain blocks kernel) one per block of the partials, until one is left. Each
/// partial combines its block in order, and the partials stay in order, so the operator need not
/// be commutative.
#[doc(hidden)]
pub fn reduce<A: AlgorithmElement, B: AlgorithmElement>(
    input: &ArrayView<'_, A, 1>,
    init: B,
    first: impl Fn(&ArrayView<'_, A, 1>, &mut Array<B, 1>, B, u32) -> Result<(), Error>,
    rest: impl Fn(&ArrayView<'_, B, 1>, &mut Array<B, 1>, B, u32) -> Result<(), Error>,
) -> Result<B, Error> {
    let (first, rest): (Blocks<'_, A, B>, Blocks<'_, B, B>) = (&first, &rest);
    let n = input.extent()[0];
    if n == 0 {
        return Ok(init);
    }
    let acc = accelerator_of(input.accelerator())?;
    let mut partials = Array::<B, 1>::new_for_overwrite_on(&acc, [n.div_ceil(REDUCE_BLOCK)])?;
    first(input, &mut partials, init, 1)?;
    while partials.len() > 1 {
        let mut next =
            Array::<B, 1>::new_for_overwrite_on(&acc, [partials.len().div_ceil(REDUCE_BLOCK)])?;
        rest(&partials.view(), &mut next, init, 0)?;
        partials = next;
    }
    let total = partials.to_vec()?;
    Ok(total[0])
}

/// `transform`: checks the lengths and launches the user's kernel over `input`'s extent.
#[doc(hidden)]
pub fn transform<A: AlgorithmElement, B: AlgorithmElement>(
    input: &ArrayView<'_, A, 1>,
    out: &mut ArrayViewMut<'_, B, 1>,
    launch: impl Fn(&ArrayView<'_, A, 1>, &mut ArrayViewMut<'_, B, 1>) -> Result<(), Error>,
) -> Result<(), Error> {
    let n = input.extent()[0];
    check_lengths("transform", ("input", n), ("out", out.extent()[0]))?;
    if n == 0 {
        return Ok(());
    }
    launch(input, out)?;
    out.synchronize()
}

/// `count_if`: the user's kernel counts each block's matches into a partial, `sum` adds them.
#[doc(hidden)]
pub fn count_if<T: AlgorithmElement>(
    input: &ArrayView<'_, T, 1>,
    blocks: impl Fn(&ArrayView<'_, T, 1>, &mut Array<u32, 1>) -> Result<(), Error>,
) -> Result<usize, Error> {
    let n = input.extent()[0];
    if n == 0 {
        return Ok(0);
    }
    let acc = accelerator_of(input.accelerator())?;
    let mut partials = Array::<u32, 1>::new_for_overwrite_on(&acc, [n.div_ceil(COUNT_BLOCK)])?;
    blocks(input, &mut partials)?;
    // At most u32::MAX elements (an extent's limit), so the u32 sum does not wrap.
    let total = sum(&partials.view())?;
    Ok(total as usize)
}

/// Each element at its place in a stable partition: the selected ones (`flags[i] == 1`) at
/// their rank among them (`positions[i]`, the exclusive scan of the flags), the others after
/// the `kept` selected ones, at their rank among the others.
#[kernel(amp, unchecked, allow(write_conflict))]
fn scatter_partition<T: DeviceScalar>(
    idx: Index<1>,
    input: ArrayView<T, 1>,
    flags: &Array<u32, 1>,
    positions: &Array<u32, 1>,
    out: ArrayViewMut<T, 1>,
    kept: u32,
) {
    let i = idx[0];
    let p = positions[idx] as usize;
    if flags[idx] == 1 {
        out[p] = input[idx];
    } else {
        out[kept as usize + i - p] = input[idx];
    }
}

/// Launches the flags kernel of a selection: `(input, flags)`.
type Flags<'f, T> = &'f dyn Fn(&ArrayView<'_, T, 1>, &mut Array<u32, 1>) -> Result<(), Error>;

/// The user's kernels of a `copy_if` or `partition`, as the macro launches them.
#[doc(hidden)]
pub struct SelectKernels<'f, T: DeviceScalar> {
    /// `flags[i]` is 1 where the predicate holds for `input[i]` (every device but the native
    /// one).
    pub flags: Flags<'f, T>,
    /// The chunked form (the native accelerator; `chunked.rs`).
    pub chunks: ChunkSelect<'f, T>,
}

/// `copy_if` (`partition == false`) and `partition`: the user's kernel flags the selected
/// elements, an exclusive scan of the flags gives their output positions, and the library's
/// scatter writes them; on the native accelerator, the chunked form.
#[doc(hidden)]
pub fn select<T: AlgorithmElement>(
    operation: &'static str,
    partition: bool,
    input: &ArrayView<'_, T, 1>,
    out: &mut ArrayViewMut<'_, T, 1>,
    kernels: &SelectKernels<'_, T>,
) -> Result<usize, Error> {
    let n = input.extent()[0];
    if partition {
        check_lengths(operation, ("input", n), ("out", out.extent()[0]))?;
    }
    if n == 0 {
        return Ok(0);
    }
    let acc = accelerator_of(input.accelerator())?;
    let kept = if acc.is_native() {
        chunked::select(&acc, operation, partition, input, out, &kernels.chunks)?
    } else {
        select_by_flags(&acc, operation, partition, input, out, kernels.flags)?
    };
    out.synchronize()?;
    Ok(kept)
}

/// [`select`]'s flags, scan and scatter over `n > 0` elements.
fn select_by_flags<T: AlgorithmElement>(
    acc: &Accelerator,
    operation: &'static str,
    partition: bool,
    input: &ArrayView<'_, T, 1>,
    out: &mut ArrayViewMut<'_, T, 1>,
    flag: Flags<'_, T>,
) -> Result<usize, Error> {
    let n = input.extent()[0];
    let mut flags = Array::<u32, 1>::new_for_overwrite_on(acc, [n])?;
    flag(input, &mut flags)?;
    let mut positions = Array::<u32, 1>::new_for_overwrite_on(acc, [n])?;
    exclusive_scan_on(acc, &flags.view(), &mut positions.view_mut())?;
    let kept = scanned_total(&positions, &flags)?;
    if partition {
        // SAFETY: `flags`, `positions` and `out` have `input`'s length `n` (checked by the
        // caller); `positions` is the exclusive scan of the 0/1 `flags`, so a selected element
        // goes to `positions[i] < kept` and an unselected one to `kept + i - positions[i] < n`.
        let kernel = unsafe { scatter_partition(input, &flags, &positions, out, kept as u32) };
        parallel_for_each_on(acc, input.extent(), kernel)?;
    } else {
        check_selected_fit(operation, kept, out)?;
        let kernel = scatter_starts(input, &flags, &positions, out);
        parallel_for_each_on(acc, input.extent(), kernel)?;
    }
    Ok(kept)
}

/// `out[indices[r]] = values[r]` for each `r` of the launch.
#[kernel(amp, unchecked, allow(write_conflict))]
fn scatter_to<T: DeviceScalar>(
    idx: Index<1>,
    values: ArrayView<T, 1>,
    indices: &Array<u32, 1>,
    out: ArrayViewMut<T, 1>,
) {
    out[indices[idx] as usize] = values[idx];
}

/// Launches `reduce_by_key`'s chunk kernel: `(values, flags, positions, out, pre, suf, last)`.
type Chunks<'f, V> = &'f dyn Fn(
    &ArrayView<'_, V, 1>,
    &Array<u32, 1>,
    &Array<u32, 1>,
    &mut ArrayViewMut<'_, V, 1>,
    &mut Array<V, 1>,
    &mut Array<V, 1>,
    &mut Array<u32, 1>,
) -> Result<(), Error>;

/// Launches `reduce_by_key`'s finishing kernel: `(last, pre, flags, whole, out)`.
type Finish<'f, V> = &'f dyn Fn(
    &Array<u32, 1>,
    &Array<V, 1>,
    &Array<u32, 1>,
    &Array<V, 1>,
    &mut ArrayViewMut<'_, V, 1>,
) -> Result<(), Error>;

/// The user's kernels of a `reduce_by_key`, as the macro launches them.
#[doc(hidden)]
pub struct SegmentKernels<'f, K: DeviceScalar, V: DeviceScalar> {
    /// Each chunk's complete runs, and its partial runs at either end.
    pub chunks: Chunks<'f, V>,
    /// The runs that cross chunk ends.
    pub finish: Finish<'f, V>,
    /// The chunked form (the native accelerator, integer values; `chunked.rs`).
    pub native: ChunkSegments<'f, K, V>,
}

/// `reduce_by_key`: checks the lengths, then [`runs`] (or its chunked form natively).
#[doc(hidden)]
pub fn reduce_by_key<K: AlgorithmElement, V: AlgorithmElement>(
    keys: &ArrayView<'_, K, 1>,
    values: &ArrayView<'_, V, 1>,
    keys_out: &mut ArrayViewMut<'_, K, 1>,
    values_out: &mut ArrayViewMut<'_, V, 1>,
    kernels: &SegmentKernels<'_, K, V>,
) -> Result<usize, Error> {
    let n = keys.extent()[0];
    check_lengths("reduce_by_key", ("keys", n), ("values", values.extent()[0]))?;
    if n == 0 {
        return Ok(0);
    }
    let acc = accelerator_of(keys.accelerator())?;
    let found = if acc.is_native() && is_int::<V>() {
        chunked::runs(&acc, keys, values, keys_out, values_out, &kernels.native)?
    } else {
        runs(&acc, keys, values, keys_out, values_out, kernels)?
    };
    keys_out.synchronize()?;
    values_out.synchronize()?;
    Ok(found)
}

/// One level of `reduce_by_key` over `n > 0` elements: run heads (`keys[i] != keys[i - 1]`),
/// their exclusive scan (each run's index), the runs' keys scattered to `keys_out`; the user's
/// chunk kernel writes the runs inside one chunk of 32 values and leaves each chunk's partial
/// runs at its ends. The partials of the runs that reach a chunk's end (`suf`, keyed by the
/// run's index) are the same problem 32 times smaller, solved by the next level (or already
/// solved, for one chunk); the finishing kernel adds the part of each such run in the chunk
/// where it ends (`pre`). No tile waits for another: every level is a few ordinary launches.
/// (`UserKey` is the key type of the caller's kernels; a deeper level's keys are run indices.)
fn runs<K: DeviceScalar, V: DeviceScalar, UserKey: DeviceScalar>(
    acc: &Accelerator,
    keys: &ArrayView<'_, K, 1>,
    values: &ArrayView<'_, V, 1>,
    keys_out: &mut ArrayViewMut<'_, K, 1>,
    values_out: &mut ArrayViewMut<'_, V, 1>,
    kernels: &SegmentKernels<'_, UserKey, V>,
) -> Result<usize, Error> {
    let n = keys.extent()[0];
    let mut flags = Array::<u32, 1>::new_for_overwrite_on(acc, [n])?;
    // SAFETY: one thread per key; `flags` has the keys' length `n`.
    parallel_for_each_on(acc, keys.extent(), unsafe { run_starts(keys, &mut flags) })?;
    let mut positions = Array::<u32, 1>::new_for_overwrite_on(acc, [n])?;
    exclusive_scan_on(acc, &flags.view(), &mut positions.view_mut())?;
    let found = scanned_total(&positions, &flags)?;
    check_runs_fit(found, keys_out, values_out)?;
    let scatter = scatter_starts(keys, &flags, &positions, keys_out);
    parallel_for_each_on(acc, keys.extent(), scatter)?;
    let chunks = n.div_ceil(CHUNK);
    let mut pre = Array::<V, 1>::new_on(acc, [chunks])?;
    let mut suf = Array::<V, 1>::new_on(acc, [chunks])?;
    let mut ends = Array::<u32, 1>::new_on(acc, [chunks])?;
    (kernels.chunks)(
        values, &flags, &positions, values_out, &mut pre, &mut suf, &mut ends,
    )?;
    let mut whole = Array::<V, 1>::new_on(acc, [found])?;
    if chunks == 1 {
        // SAFETY: one thread, reading element 0 of the one-chunk `suf` and `ends`; `ends[0]`
        // is the index of the chunk's last run, `found - 1`, inside `whole` (`found` long).
        parallel_for_each_on(acc, Extent::new([1]), unsafe {
            scatter_to(&suf.view(), &ends, &mut whole.view_mut())
        })?;
    } else {
        let mut next_keys = Array::<u32, 1>::new_on(acc, [chunks])?;
        let mut next_values = Array::<V, 1>::new_on(acc, [chunks])?;
        let m = runs(
            acc,
            &ends.view(),
            &suf.view(),
            &mut next_keys.view_mut(),
            &mut next_values.view_mut(),
            kernels,
        )?;
        // SAFETY: `m <= chunks` threads read `next_values` and `next_keys` (`chunks` long);
        // `next_keys` holds distinct run indices below `found`, the length of `whole`.
        parallel_for_each_on(acc, Extent::new([m]), unsafe {
            scatter_to(&next_values.view(), &next_keys, &mut whole.view_mut())
        })?;
    }
    (kernels.finish)(&ends, &pre, &flags, &whole, values_out)?;
    Ok(found)
}
