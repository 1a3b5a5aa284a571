//! `fill` and `iota`: one thread per element, nothing shared.

use super::accelerator_of;
use crate::prelude::*;

#[kernel(amp, unchecked)]
fn fill_elements<T: DeviceScalar>(idx: Index<1>, out: ArrayViewMut<T, 1>, value: T) {
    out[idx] = value;
}

#[kernel(amp, unchecked)]
fn iota_elements<T: DeviceScalar>(idx: Index<1>, out: ArrayViewMut<T, 1>, start: T) {
    out[idx] = start + idx[0] as T;
}

/// Sets every element of `out` to `value` (Thrust's `fill`, C++ AMP's `fill`).
///
/// ```no_run
/// # use amp::prelude::*;
/// # fn main() -> Result<(), amp::Error> {
/// let mut data = [0; 4];
/// amp::algorithms::fill(&mut ArrayViewMut::new([4], &mut data)?, 7)?;
/// assert_eq!(data, [7; 4]);
/// # Ok(()) }
/// ```
pub fn fill<T: DeviceScalar, const N: usize>(
    out: &mut ArrayViewMut<'_, T, N>,
    value: T,
) -> Result<(), Error> {
    let out = &mut super::flat_mut(out, "fill")?;
    let acc = accelerator_of(out.accelerator())?;
    // SAFETY: one thread per element of `out`, writing only its own.
    parallel_for_each_on(&acc, out.extent(), unsafe { fill_elements(out, value) })?;
    out.synchronize()
}

/// Sets `out[i]` to `start + i` (Thrust's `sequence`, `std::iota`): integers wrap, floats are
/// `start + i as T`, rounded once.
///
/// ```no_run
/// # use amp::prelude::*;
/// # fn main() -> Result<(), amp::Error> {
/// let mut data = [0u32; 4];
/// amp::algorithms::iota(&mut ArrayViewMut::new([4], &mut data)?, 10)?;
/// assert_eq!(data, [10, 11, 12, 13]);
/// # Ok(()) }
/// ```
pub fn iota<T: DeviceScalar, const N: usize>(
    out: &mut ArrayViewMut<'_, T, N>,
    start: T,
) -> Result<(), Error> {
    let out = &mut super::flat_mut(out, "iota")?;
    let acc = accelerator_of(out.accelerator())?;
    // SAFETY: one thread per element of `out`, writing only its own.
    parallel_for_each_on(&acc, out.extent(), unsafe { iota_elements(out, start) })?;
    out.synchronize()
}
