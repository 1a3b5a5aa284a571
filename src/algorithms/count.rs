//! `count`: each element's match as a 0 or 1, then their sum.

use super::{accelerator_of, sum};
use crate::prelude::*;

#[kernel(amp, unchecked)]
fn matches<T: DeviceScalar>(
    idx: Index<1>,
    input: ArrayView<T, 1>,
    flags: &mut Array<u32, 1>,
    value: T,
) {
    flags[idx] = if input[idx] == value { 1 } else { 0 };
}

/// How many elements equal `value` (`==`: floats as Rust compares them, so a NaN matches
/// nothing and `-0.0` matches `0.0`) (Thrust's `count`).
///
/// ```no_run
/// # use amp::prelude::*;
/// # fn main() -> Result<(), amp::Error> {
/// let data = [1, 2, 1, 3, 1];
/// assert_eq!(amp::algorithms::count(&ArrayView::new([5], &data)?, 1)?, 3);
/// # Ok(()) }
/// ```
pub fn count<T: DeviceScalar>(input: &ArrayView<'_, T, 1>, value: T) -> Result<usize, Error> {
    let n = input.extent()[0];
    if n == 0 {
        return Ok(0);
    }
    let acc = accelerator_of(input.accelerator())?;
    let mut flags = Array::<u32, 1>::new_on(&acc, [n])?;
    parallel_for_each_on(&acc, input.extent(), matches(input, &mut flags, value))?;
    // At most u32::MAX elements (an extent's limit), so the u32 sum does not wrap.
    Ok(sum(&flags.view())? as usize)
}
