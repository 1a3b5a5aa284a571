//! `unique`: each element's "first of its run" flag, an exclusive scan of the flags for the
//! output positions, then a scatter of the first elements.

use super::{accelerator_of, exclusive_scan};
use crate::prelude::*;

/// `flags[i]` is 1 where `input[i]` starts a run of equal elements (`!=` its predecessor).
#[kernel(amp, unchecked)]
pub(super) fn run_starts<T: DeviceScalar>(
    idx: Index<1>,
    input: ArrayView<T, 1>,
    flags: &mut Array<u32, 1>,
) {
    let i = idx[0];
    let previous = if i == 0 { 0 } else { i - 1 };
    flags[idx] = if i == 0 || input[i] != input[previous] {
        1
    } else {
        0
    };
}

/// Each run's first element at its position (`positions[i]`, the exclusive scan of the flags).
#[kernel(amp, allow(write_conflict))]
pub(super) fn scatter_starts<T: DeviceScalar>(
    idx: Index<1>,
    input: ArrayView<T, 1>,
    flags: &Array<u32, 1>,
    positions: &Array<u32, 1>,
    out: ArrayViewMut<T, 1>,
) {
    if flags[idx] == 1 {
        out[positions[idx] as usize] = input[idx];
    }
}

/// Copies `input` to `out` keeping one element of each run of consecutive equal elements (as
/// `Vec::dedup`, which compares with `==`: NaNs are never equal, `-0.0 == 0.0`), and returns
/// how many it wrote (Thrust's `unique_copy`). The rest of `out` is left as it was.
///
/// Errors: [`Error::MismatchedLengths`] when `out` is shorter than the result, and the launch
/// errors.
///
/// ```no_run
/// # use amp::prelude::*;
/// # fn main() -> Result<(), amp::Error> {
/// let data = [1, 1, 2, 2, 2, 1, 3];
/// let mut out = [0; 7];
/// let n = amp::algorithms::unique(
///     &ArrayView::new([7], &data)?,
///     &mut ArrayViewMut::new([7], &mut out)?,
/// )?;
/// assert_eq!(&out[..n], &[1, 2, 1, 3]);
/// # Ok(()) }
/// ```
pub fn unique<T: DeviceScalar>(
    input: &ArrayView<'_, T, 1>,
    out: &mut ArrayViewMut<'_, T, 1>,
) -> Result<usize, Error> {
    let n = input.extent()[0];
    if n == 0 {
        return Ok(0);
    }
    let acc = accelerator_of(input.accelerator())?;
    if let Some(result) = super::host::unique(input, out, &acc) {
        return result.map_err(|kept| too_short(kept, out.extent()[0]));
    }
    let mut flags = Array::<u32, 1>::new_for_overwrite_on(&acc, [n])?;
    // SAFETY: one thread per element of `input`; `flags` has its length.
    parallel_for_each_on(&acc, input.extent(), unsafe {
        run_starts(input, &mut flags)
    })?;
    let mut positions = Array::<u32, 1>::new_for_overwrite_on(&acc, [n])?;
    exclusive_scan(&flags.view(), &mut positions.view_mut())?;
    let kept = super::scanned_total(&positions, &flags)?;
    if kept > out.extent()[0] {
        return Err(too_short(kept, out.extent()[0]));
    }
    parallel_for_each_on(
        &acc,
        input.extent(),
        scatter_starts(input, &flags, &positions, out),
    )?;
    out.synchronize()?;
    Ok(kept)
}

/// The error of an `out` of `len` elements for `kept` unique elements.
fn too_short(kept: usize, len: usize) -> Error {
    Error::MismatchedLengths {
        operation: "unique",
        first_name: "the unique elements",
        first: kept,
        second_name: "out",
        second: len,
    }
}
