//! Parallel algorithms written in the kernel language: reductions, scans, sorts, searches and
//! the elementwise basics, for any length, on the accelerator the data lives on (C++ AMP's
//! Algorithms Library; Thrust and CUB for CUDA users).
//!
//! ```no_run
//! use amp::prelude::*;
//!
//! # fn main() -> Result<(), amp::Error> {
//! let data: Vec<f32> = (0..1_000_000).map(|i| (i % 7) as f32).collect();
//! let view = ArrayView::new([data.len()], &data)?;
//! let total = amp::algorithms::sum(&view)?;
//! let smallest = amp::algorithms::min(&view)?;
//!
//! let mut prefix = vec![0.0f32; data.len()];
//! let mut out = ArrayViewMut::new([data.len()], &mut prefix)?;
//! amp::algorithms::inclusive_scan(&view, &mut out)?;
//!
//! let mut keys = Array::from_slice([4], &[3u32, 1, 2, 0])?;
//! amp::algorithms::sort(&mut keys.view_mut())?;
//! assert_eq!(keys.to_vec()?, [0, 1, 2, 3]);
//! # Ok(()) }
//! ```
//!
//! Every function works on views: of host data (used in place) or of an [`Array`]
//! ([`Array::view`], [`Array::view_mut`]), whose accelerator then runs the work; views of host
//! data run on the default accelerator. The designs and the measured numbers are in
//! `docs/algorithms.md`.
//!
//! - Reductions ([`sum`], [`min`], [`max`]) and scans ([`inclusive_scan()`],
//!   [`exclusive_scan()`]) combine in a tree, not left to right: integer sums wrap (as
//!   everywhere on the device), float sums may round differently from a sequential loop.
//! - Sorts ([`sort`], [`sort_by_key`], [`sort_descending`]) are LSD radix sorts: floats in
//!   `total_cmp` order (negative NaNs first, positive NaNs last, every bit kept); `sort_by_key`
//!   is stable.
//! - [`fill`], [`iota`], [`gather`], [`scatter`], [`count`], [`histogram`], [`unique`]; searches of sorted data ([`lower_bound`],
//!   [`upper_bound`], a binary search per query) and a stable [`merge`].
//! - The ones that take an `#[amp::device]` function of the caller's are macros, which expand
//!   to the kernels that call it in the caller's crate: [`reduce!`](reduce),
//!   [`transform!`](transform), [`transform_reduce!`](transform_reduce),
//!   [`count_if!`](count_if), [`copy_if!`](copy_if), [`partition!`](partition) (stable),
//!   [`reduce_by_key!`](reduce_by_key), [`inclusive_scan!`](inclusive_scan!) and
//!   [`exclusive_scan!`](exclusive_scan!). The element types come first, the function is a path:
//!   `reduce!(f32, &view, 0.0, max_abs)`.

mod chunked;
mod count;
mod drivers;
mod fill;
mod float_scan;
mod gather;
mod histogram;
mod host;
mod lookback;
mod onesweep;
mod reduce;
mod scan;
mod scan_with;
mod search;
mod sort;
mod unique;
mod with_fn;

pub use count::count;
pub use fill::{fill, iota};
pub use gather::{gather, scatter};
pub use histogram::histogram;
pub use reduce::{max, min, sum};
pub use scan::{exclusive_scan, inclusive_scan};
pub use search::{lower_bound, merge, upper_bound};
pub use sort::{sort, sort_by_key, sort_descending};
pub use unique::unique;

#[doc(inline)]
pub use crate::{
    __amp_algorithms_copy_if as copy_if, __amp_algorithms_count_if as count_if,
    __amp_algorithms_partition as partition, __amp_algorithms_reduce as reduce,
    __amp_algorithms_reduce_by_key as reduce_by_key, __amp_algorithms_transform as transform,
    __amp_algorithms_transform_reduce as transform_reduce,
};
#[doc(inline)]
pub use crate::{
    __amp_algorithms_exclusive_scan as exclusive_scan,
    __amp_algorithms_inclusive_scan as inclusive_scan,
};
#[doc(hidden)]
pub use chunked::{ChunkSegments as __ChunkSegments, ChunkSelect as __ChunkSelect};
#[doc(hidden)]
pub use drivers::{
    count_if as __count_if, reduce as __reduce, reduce_by_key as __reduce_by_key,
    scan_with as __scan_with, select as __select, transform as __transform,
    SegmentKernels as __SegmentKernels, SelectKernels as __SelectKernels,
};
#[doc(hidden)]
pub use lookback::single_pass_scan as __single_pass_scan;
#[doc(hidden)]
pub use scan::reduce_then_scan as __reduce_then_scan;
pub use sort::{
    sort_by_key_with as __sort_by_key_with, sort_with as __sort_with, SortMethod as __SortMethod,
};
#[doc(hidden)]
pub use with_fn::AlgorithmElement as __AlgorithmElement;

use crate::{
    Accelerator, Array, ArrayView, ArrayViewMut, DeviceScalar, Error, Extent, TiledExtent,
};

/// Threads per tile of every algorithm kernel. The kernels write it as the literal `256`, as
/// their tile shape and in their arithmetic: the range analysis proves a `tile_static` index
/// from literals, where a named constant would be a specialization constant it knows nothing
/// of. Their typed launchers take the domains of [`tiles`], a `TiledExtent<TILE>`, so a kernel
/// whose tile is not `TILE` does not compile.
const TILE: usize = 256;

/// Elements per thread of a float scan's blocks (scan.rs, and its native twin float_scan.rs).
const SCAN_ITEMS: usize = 32;
/// Elements per block of a float scan.
const SCAN_BLOCK: usize = TILE * SCAN_ITEMS;

/// Elements each thread of the function algorithms' kernels combines, in order (`reduce!`,
/// `count_if!`, the scans with an operator, `reduce_by_key!`'s chunks): named once for the
/// kernels the macros expand to in the user's crate (they read it by path, a constant compiled
/// in natively and specialized on a device) and for the drivers that size their blocks.
#[doc(hidden)]
pub const __FN_ITEMS: usize = 32;
/// A rank-1 tiled domain of `blocks` tiles (the runtime folds more than a grid row holds onto
/// a second dimension, so any count works).
fn tiles(blocks: usize) -> TiledExtent<TILE, 0, 0> {
    Extent::new([blocks * TILE]).tile::<TILE>()
}

/// [`tiles`], for the kernels the macros of `with_fn.rs` expand to in the user's crate.
#[doc(hidden)]
pub fn __tiles(blocks: usize) -> TiledExtent<TILE, 0, 0> {
    tiles(blocks)
}

/// `Error::MismatchedLengths` of `operation` unless the named lengths are equal.
fn check_lengths(
    operation: &'static str,
    (first_name, first): (&'static str, usize),
    (second_name, second): (&'static str, usize),
) -> Result<(), Error> {
    if first == second {
        return Ok(());
    }
    Err(Error::MismatchedLengths {
        operation,
        first_name,
        first,
        second_name,
        second,
    })
}

/// The total of 0/1 flags or counts from their exclusive scan: the scan's last element plus
/// the last count (both arrays non-empty). At most `u32::MAX` elements: no overflow.
fn scanned_total(scan: &Array<u32, 1>, counts: &Array<u32, 1>) -> Result<usize, Error> {
    let last = |a: &Array<u32, 1>| a.get([a.len() - 1]).map(|v| v.unwrap_or(0));
    Ok((last(scan)? + last(counts)?) as usize)
}

/// `Error::MismatchedLengths` of `operation` unless `out` holds the `kept` selected elements.
fn check_selected_fit<T: DeviceScalar>(
    operation: &'static str,
    kept: usize,
    out: &ArrayViewMut<'_, T, 1>,
) -> Result<(), Error> {
    if kept > out.extent()[0] {
        return Err(Error::MismatchedLengths {
            operation,
            first_name: "the selected elements",
            first: kept,
            second_name: "out",
            second: out.extent()[0],
        });
    }
    Ok(())
}

/// `Error::MismatchedLengths` of `reduce_by_key` unless both outputs hold `found` runs.
fn check_runs_fit<K: DeviceScalar, V: DeviceScalar>(
    found: usize,
    keys_out: &ArrayViewMut<'_, K, 1>,
    values_out: &ArrayViewMut<'_, V, 1>,
) -> Result<(), Error> {
    for (name, len) in [
        ("keys_out", keys_out.extent()[0]),
        ("values_out", values_out.extent()[0]),
    ] {
        if found > len {
            return Err(Error::MismatchedLengths {
                operation: "reduce_by_key",
                first_name: "the runs of equal keys",
                first: found,
                second_name: name,
                second: len,
            });
        }
    }
    Ok(())
}

/// The accelerator a view's data lives on, or the default one for host data.
/// (`view.accelerator()` of an `ArrayView` or `ArrayViewMut`.)
/// A contiguous view of any rank as the rank-1 view of its elements in row-major order, for the
/// algorithms whose result does not depend on the shape (`sum`, `count`, `fill`, ..).
/// [`Error::NotContiguous`] naming `operation` for a section with gaps.
fn flat<'a, T: crate::DeviceElement, const N: usize>(
    input: &ArrayView<'a, T, N>,
    operation: &'static str,
) -> Result<ArrayView<'a, T, 1>, Error> {
    input
        .view_as::<1>([input.extent().size()])
        .map_err(|e| named(e, operation))
}

/// [`flat`], for the macros of `with_fn.rs`.
#[doc(hidden)]
pub fn __flat<'a, T: crate::DeviceElement, const N: usize>(
    input: &ArrayView<'a, T, N>,
    operation: &'static str,
) -> Result<ArrayView<'a, T, 1>, Error> {
    flat(input, operation)
}

/// [`flat_mut`], for the macros of `with_fn.rs`.
#[doc(hidden)]
pub fn __flat_mut<'v, T: crate::DeviceElement, const N: usize>(
    out: &'v mut ArrayViewMut<'_, T, N>,
    operation: &'static str,
) -> Result<ArrayViewMut<'v, T, 1>, Error> {
    flat_mut(out, operation)
}

/// [`flat`] for a writable view.
fn flat_mut<'v, T: crate::DeviceElement, const N: usize>(
    out: &'v mut ArrayViewMut<'_, T, N>,
    operation: &'static str,
) -> Result<ArrayViewMut<'v, T, 1>, Error> {
    let size = out.extent().size();
    out.view_as_mut::<1>([size])
        .map_err(|e| named(e, operation))
}

/// A `NotContiguous` error of `view_as` as the algorithm's own.
fn named(e: Error, operation: &'static str) -> Error {
    match e {
        Error::NotContiguous {
            extent, strides, ..
        } => Error::NotContiguous {
            operation,
            extent,
            strides,
        },
        other => other,
    }
}

/// What the scans' entries share (`scan_with!`'s, and the hidden ones that run one scan path
/// for tests and the benchmark): `input` and `output` of one length (`operation` names the
/// call in the error), nothing to do when they are empty, `run` on the input's accelerator,
/// then the output waited for.
fn scan_entry<'a, 'b, T: DeviceScalar>(
    operation: &'static str,
    input: &ArrayView<'a, T, 1>,
    output: &mut ArrayViewMut<'b, T, 1>,
    run: impl FnOnce(
        &Accelerator,
        &ArrayView<'a, T, 1>,
        &mut ArrayViewMut<'b, T, 1>,
    ) -> Result<(), Error>,
) -> Result<(), Error> {
    let n = input.extent()[0];
    check_lengths(operation, ("input", n), ("output", output.extent()[0]))?;
    if n == 0 {
        return Ok(());
    }
    let acc = accelerator_of(input.accelerator())?;
    run(&acc, input, output)?;
    output.synchronize()
}

fn accelerator_of(view: Option<Accelerator>) -> Result<Accelerator, Error> {
    match view {
        Some(acc) => Ok(acc),
        None => Accelerator::default(),
    }
}
