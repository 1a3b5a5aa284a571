//! Prefix sums. Integers of more than one block take the single-pass scan (`lookback.rs`).
//! Floats, and a single block of anything, take reduce-then-scan: the sums of the blocks of
//! 8,192 elements (the reduction's kernel), an exclusive scan of those (the same algorithm,
//! recursively), then each tile scans its block from its block's offset. Its grouping of the
//! additions is fixed, so a float scan rounds the same way on every run; the look-back's
//! grouping depends on which blocks were ready. See docs/algorithms.md.

use super::lookback::scan_single_pass_into;
use super::reduce::sum_into;
use super::{accelerator_of, check_lengths, tiles, SCAN_BLOCK, SCAN_ITEMS};
use crate::prelude::*;

/// Scans block `t.tile` (`256 * ITEMS` elements) of `input` into `output`,
/// starting from `offsets[block]`; exclusive when `exclusive` is 1. Each thread scans its
/// `ITEMS` consecutive elements in two passes over memory (its total, then its outputs), so
/// the tile only shares the threads' totals: three barriers per block.
// Every element is written once, by the thread that owns it (the analysis does not prove it
// for the thread's run of `ITEMS` elements).
#[kernel(amp, unchecked, allow(write_conflict))]
fn scan_blocks<T: DeviceScalar, const ITEMS: usize>(
    t: TiledIndex<256>,
    input: ArrayView<T, 1>,
    offsets: ArrayView<T, 1>,
    output: ArrayViewMut<T, 1>,
    exclusive: u32,
) {
    #[tile_static]
    let mut totals: [T; 256];
    #[tile_static]
    let mut groups: [T; 16];
    let n = input.extent()[0];
    let l = t.local[0];
    let b = t.tile[0];
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
    if l == 0 {
        let mut s = T::ZERO;
        for k in 0..16 {
            let g = groups[k];
            groups[k] = s;
            s += g;
        }
    }
    t.barrier.wait();
    let mut run = offsets[b] + groups[l / 16];
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

/// [`scan_blocks`] with the threads' totals scanned by subgroups: each subgroup scans its
/// lanes (`sg.exclusive_add`) and publishes its sum, and each thread adds the sums of the
/// subgroups before its own: one barrier per block instead of three.
#[kernel(amp, unchecked, allow(write_conflict))]
fn scan_blocks_subgroups<T: DeviceScalar, const ITEMS: usize>(
    t: TiledIndex<256>,
    input: ArrayView<T, 1>,
    offsets: ArrayView<T, 1>,
    output: ArrayViewMut<T, 1>,
    exclusive: u32,
) {
    #[tile_static]
    let mut sums: [T; 256];
    let sg = t.subgroup();
    let n = input.extent()[0];
    let l = t.local[0];
    let b = t.tile[0];
    let start = (b * 256 + l) * ITEMS;
    let end = if start + ITEMS < n { start + ITEMS } else { n };
    let mut total = T::ZERO;
    for i in start..end {
        total += input[i];
    }
    let before = sg.exclusive_add(total);
    let whole = sg.add(total);
    let index = sg.index() as usize;
    if sg.lane() == 0 {
        sums[index] = whole;
    }
    t.barrier.wait();
    let mut run = offsets[b] + before;
    for k in 0..index {
        run += sums[k];
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

/// Scans `input` into `output` (same length, at least 1) on `acc`.
fn scan_into<T: DeviceScalar>(
    acc: &Accelerator,
    input: &ArrayView<'_, T, 1>,
    output: &mut ArrayViewMut<'_, T, 1>,
    exclusive: bool,
) -> Result<(), Error> {
    let n = input.extent()[0];
    let blocks = n.div_ceil(SCAN_BLOCK);
    if blocks > 1 && super::host::is_int::<T>() {
        return scan_single_pass_into(acc, input, output, exclusive, None, None);
    }
    reduce_then_scan_into(acc, input, output, exclusive)
}

/// Reduce-then-scan: the blocks' sums, their exclusive scan (by [`scan_into`]), then each
/// block scanned from its offset.
fn reduce_then_scan_into<T: DeviceScalar>(
    acc: &Accelerator,
    input: &ArrayView<'_, T, 1>,
    output: &mut ArrayViewMut<'_, T, 1>,
    exclusive: bool,
) -> Result<(), Error> {
    let blocks = input.extent()[0].div_ceil(SCAN_BLOCK);
    let offsets = if blocks == 1 {
        Array::from_slice_on(acc, [1], &[T::ZERO])?
    } else {
        let mut sums = Array::<T, 1>::new_for_overwrite_on(acc, [blocks])?;
        sum_into::<T, SCAN_ITEMS>(input, &mut sums)?;
        let mut offsets = Array::<T, 1>::new_for_overwrite_on(acc, [blocks])?;
        scan_into(acc, &sums.view(), &mut offsets.view_mut(), true)?;
        offsets
    };
    scan_blocks_into(input, &offsets, output, exclusive)
}

/// Scans every block of `input` into `output` from its offset in `offsets` (one per block).
fn scan_blocks_into<T: DeviceScalar>(
    input: &ArrayView<'_, T, 1>,
    offsets: &Array<T, 1>,
    output: &mut ArrayViewMut<'_, T, 1>,
    exclusive: bool,
) -> Result<(), Error> {
    let blocks = offsets.len();
    let exclusive = exclusive as u32;
    // SAFETY (both kernels): thread `l` of tile `b < blocks` reads and writes elements
    // `start..end` of `input` and `output` (the same length), clamped to `n`, and reads
    // `offsets[b]` (`blocks` long).
    let subgroups = parallel_for_each(tiles(blocks), unsafe {
        scan_blocks_subgroups::<T, SCAN_ITEMS>(input, &offsets.view(), output, exclusive)
    });
    match subgroups {
        Err(Error::MissingCapability { .. }) => {
            // SAFETY: as above.
            parallel_for_each(tiles(blocks), unsafe {
                scan_blocks::<T, SCAN_ITEMS>(input, &offsets.view(), output, exclusive)
            })
        }
        other => other,
    }
}

/// The reduce-then-scan kernels on any accelerator, without the plain-Rust path (integers of
/// more than one block still scan their blocks' sums in a single pass): for the tests that
/// hold the native accelerator's plain-Rust float scan to the kernels.
#[doc(hidden)]
pub fn reduce_then_scan<T: DeviceScalar>(
    input: &ArrayView<'_, T, 1>,
    output: &mut ArrayViewMut<'_, T, 1>,
    exclusive: bool,
) -> Result<(), Error> {
    super::scan_entry("reduce_then_scan", input, output, |acc, input, output| {
        reduce_then_scan_into(acc, input, output, exclusive)
    })
}

/// The scan of `input` into `output`, of any rank (their elements in row-major order).
fn scan<T: DeviceScalar, const N: usize>(
    input: &ArrayView<'_, T, N>,
    output: &mut ArrayViewMut<'_, T, N>,
    exclusive: bool,
    operation: &'static str,
) -> Result<(), Error> {
    let input = &super::flat(input, operation)?;
    let output = &mut super::flat_mut(output, operation)?;
    let n = input.extent()[0];
    check_lengths(operation, ("input", n), ("output", output.extent()[0]))?;
    if n == 0 {
        return Ok(());
    }
    let acc = accelerator_of(input.accelerator())?;
    if super::host::scan(input, output, exclusive, &acc).is_some() {
        return Ok(());
    }
    scan_into(&acc, input, output, exclusive)?;
    output.synchronize()
}

/// `output[i] = input[0] + ... + input[i]`.
///
/// Views of rank 2 and 3 are scanned in row-major order (their elements as one sequence, as
/// Thrust's and NumPy's `cumsum` without an axis do); both views need the same number of
/// elements, each in one contiguous run.
///
/// Errors: [`Error::MismatchedLengths`] when the lengths differ, [`Error::NotContiguous`] for
/// a view whose elements are not one contiguous run, and the launch errors.
///
/// ```no_run
/// # use amp::prelude::*;
/// # fn main() -> Result<(), amp::Error> {
/// let data = [1, 2, 3, 4];
/// let mut out = [0; 4];
/// amp::algorithms::inclusive_scan(&ArrayView::new([4], &data)?, &mut ArrayViewMut::new([4], &mut out)?)?;
/// assert_eq!(out, [1, 3, 6, 10]);
/// # Ok(()) }
/// ```
pub fn inclusive_scan<T: DeviceScalar, const N: usize>(
    input: &ArrayView<'_, T, N>,
    output: &mut ArrayViewMut<'_, T, N>,
) -> Result<(), Error> {
    scan(input, output, false, "inclusive_scan")
}

/// `output[i] = input[0] + ... + input[i - 1]` (`output[0]` is zero).
///
/// Views of rank 2 and 3 are scanned in row-major order, as [`inclusive_scan`] scans them.
///
/// Errors: [`Error::MismatchedLengths`] when the lengths differ, [`Error::NotContiguous`] for
/// a view whose elements are not one contiguous run, and the launch errors.
pub fn exclusive_scan<T: DeviceScalar, const N: usize>(
    input: &ArrayView<'_, T, N>,
    output: &mut ArrayViewMut<'_, T, N>,
) -> Result<(), Error> {
    scan(input, output, true, "exclusive_scan")
}

/// The exclusive scan of `input` into `output` on `acc`, for the sort's digit counts.
pub(super) fn exclusive_scan_on(
    acc: &Accelerator,
    input: &ArrayView<'_, u32, 1>,
    output: &mut ArrayViewMut<'_, u32, 1>,
) -> Result<(), Error> {
    scan_into(acc, input, output, true)
}
