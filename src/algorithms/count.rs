//! `count`: each tile counts the matches of a block of 16,384 elements (per thread, then as a
//! tree in `tile_static` memory) into one partial; `sum` adds the partials.

use super::{accelerator_of, sum, tiles, TILE};
use crate::prelude::*;

/// Elements each thread of [`count_blocks`] compares.
const COUNT_ITEMS: usize = 64;

/// `partials[b]` is how many elements of block `b` (`256 * COUNT_ITEMS` elements) equal
/// `value`. Thread 0 of each tile writes its block's partial.
#[kernel(amp, unchecked, allow(write_conflict))]
fn count_blocks<T: DeviceScalar>(
    t: TiledIndex<256>,
    input: ArrayView<T, 1>,
    partials: &mut Array<u32, 1>,
    value: T,
) {
    #[tile_static]
    let mut part: [u32; 256];
    let n = input.extent()[0];
    let l = t.local[0];
    let b = t.tile[0];
    let start = b * 256 * COUNT_ITEMS;
    let mut matches = 0u32;
    for k in 0..COUNT_ITEMS {
        let i = start + k * 256 + l;
        if i < n && input[i] == value {
            matches += 1;
        }
    }
    part[l] = matches;
    t.barrier.wait();
    let mut stride = 128;
    while stride > 0 {
        if l < stride {
            part[l] += part[l + stride];
        }
        t.barrier.wait();
        stride /= 2;
    }
    if l == 0 {
        partials[b] = part[0];
    }
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
pub fn count<T: DeviceScalar, const N: usize>(
    input: &ArrayView<'_, T, N>,
    value: T,
) -> Result<usize, Error> {
    let input = &super::flat(input, "count")?;
    let n = input.extent()[0];
    if n == 0 {
        return Ok(0);
    }
    let acc = accelerator_of(input.accelerator())?;
    if let Some(matches) = super::host::count(input, value, &acc) {
        return Ok(matches);
    }
    let blocks = n.div_ceil(TILE * COUNT_ITEMS);
    let mut partials = Array::<u32, 1>::new_for_overwrite_on(&acc, [blocks])?;
    // SAFETY: `count_blocks` reads `input[i]` only for `i < n` and writes `partials[b]` for
    // the launch's tiles `b < blocks`, the length of `partials`.
    parallel_for_each_on(&acc, tiles(blocks), unsafe {
        count_blocks(input, &mut partials, value)
    })?;
    // At most u32::MAX elements (an extent's limit), so the u32 sum does not wrap.
    let total = sum(&partials.view())?;
    Ok(total as usize)
}
