//! `gather` and `scatter`: one thread per index, each moving one element through the map.
//! Both kernels are bounds-checked, so an index past the end of the data is
//! `Error::IndexOutOfBounds` (naming the kernel and the view), never a stray access.

use super::{accelerator_of, check_lengths};
use crate::prelude::*;

#[kernel(amp)]
fn gather_elements<T: DeviceScalar>(
    idx: Index<1>,
    input: ArrayView<T, 1>,
    map: ArrayView<u32, 1>,
    out: ArrayViewMut<T, 1>,
) {
    out[idx] = input[map[idx] as usize];
}

// Each thread writes the element its index names; the map decides whether two collide.
#[kernel(amp, allow(write_conflict))]
fn scatter_elements<T: DeviceScalar>(
    idx: Index<1>,
    input: ArrayView<T, 1>,
    map: ArrayView<u32, 1>,
    out: ArrayViewMut<T, 1>,
) {
    out[map[idx] as usize] = input[idx];
}

/// `out[i] = input[map[i]]` for every `i` (Thrust's `gather`): a permutation applied, or a
/// table looked up. `Error::MismatchedLengths` unless `map` and `out` have the same length;
/// an index of `map` past the end of `input` is `Error::IndexOutOfBounds` (the elements it
/// would have set are zero).
///
/// ```no_run
/// # use amp::prelude::*;
/// # fn main() -> Result<(), amp::Error> {
/// let (data, map) = ([10, 20, 30], [2u32, 0, 0, 1]);
/// let mut out = [0; 4];
/// amp::algorithms::gather(
///     &ArrayView::new([3], &data)?,
///     &ArrayView::new([4], &map)?,
///     &mut ArrayViewMut::new([4], &mut out)?,
/// )?;
/// assert_eq!(out, [30, 10, 10, 20]);
/// # Ok(()) }
/// ```
pub fn gather<T: DeviceScalar>(
    input: &ArrayView<'_, T, 1>,
    map: &ArrayView<'_, u32, 1>,
    out: &mut ArrayViewMut<'_, T, 1>,
) -> Result<(), Error> {
    check_lengths("gather", ("map", map.extent()[0]), ("out", out.extent()[0]))?;
    if out.extent()[0] == 0 {
        return Ok(());
    }
    let acc = accelerator_of(out.accelerator())?;
    parallel_for_each_on(&acc, out.extent(), gather_elements(input, map, out))?;
    out.synchronize()
}

/// `out[map[i]] = input[i]` for every `i` (Thrust's `scatter`): the inverse of [`gather`].
/// `Error::MismatchedLengths` unless `input` and `map` have the same length; an index of `map`
/// past the end of `out` is `Error::IndexOutOfBounds` (that element is not written). Elements
/// of `out` that no index names keep their values; where two indices are equal, one of their
/// elements lands there, which one is unspecified (as in Thrust).
///
/// ```no_run
/// # use amp::prelude::*;
/// # fn main() -> Result<(), amp::Error> {
/// let (data, map) = ([10, 20, 30], [2u32, 0, 3]);
/// let mut out = [0; 4];
/// amp::algorithms::scatter(
///     &ArrayView::new([3], &data)?,
///     &ArrayView::new([3], &map)?,
///     &mut ArrayViewMut::new([4], &mut out)?,
/// )?;
/// assert_eq!(out, [20, 0, 10, 30]);
/// # Ok(()) }
/// ```
pub fn scatter<T: DeviceScalar>(
    input: &ArrayView<'_, T, 1>,
    map: &ArrayView<'_, u32, 1>,
    out: &mut ArrayViewMut<'_, T, 1>,
) -> Result<(), Error> {
    check_lengths(
        "scatter",
        ("input", input.extent()[0]),
        ("map", map.extent()[0]),
    )?;
    if input.extent()[0] == 0 {
        return Ok(());
    }
    let acc = accelerator_of(out.accelerator())?;
    parallel_for_each_on(&acc, input.extent(), scatter_elements(input, map, out))?;
    out.synchronize()
}
