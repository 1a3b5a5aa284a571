//! `count`: each tile counts the matches of a block of 16,384 elements (per thread, then as a
//! tree in `tile_static` memory) into one partial; `sum` adds the partials. Integers are read
//! as 16-byte vectors of four words where the view's start allows.

use super::reduce::Quads;
use super::{accelerator_of, sum, tiles, TILE};
use crate::prelude::*;

/// Elements each thread of [`count_blocks`] compares.
const COUNT_ITEMS: usize = 64;

/// `partials[b]` is how many elements of block `b` (`256 * COUNT_ITEMS` elements) equal
/// `value`. Thread 0 of each tile writes its block's partial.
#[kernel(amp, unchecked)]
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

/// [`count_blocks`] of `u32` words read four at a time (16-byte loads): `partials[b]` is how
/// many words of `quads[b * 256 * ITEMS ..][.. 256 * ITEMS]` equal `value`; thread 0 of tile 0
/// also counts the first `tail_len` words of `tail` (the view's last words past its whole
/// quads, at most three).
#[kernel(amp, unchecked)]
fn count_quads<const ITEMS: usize>(
    t: TiledIndex<256>,
    quads: ArrayView<UInt4, 1>,
    tail: ArrayView<u32, 1>,
    tail_len: u32,
    partials: &mut Array<u32, 1>,
    value: u32,
) {
    #[tile_static]
    let mut part: [u32; 256];
    let n = quads.extent()[0];
    let l = t.local[0];
    let b = t.tile[0];
    let start = b * 256 * ITEMS;
    let mut matches = 0u32;
    for k in 0..ITEMS {
        let i = start + k * 256 + l;
        if i < n {
            let q = quads[i];
            matches += (q.x == value) as u32
                + (q.y == value) as u32
                + (q.z == value) as u32
                + (q.w == value) as u32;
        }
    }
    if b == 0 && l == 0 {
        for i in 0..tail_len as usize {
            matches += (tail[i] == value) as u32;
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

/// The partial counts of an integer `count` (`T` `i32` or `u32`: equal values have equal
/// words) by [`count_quads`], or `None` where it does not apply ([`Quads::of`]).
fn count_quads_level<T: DeviceScalar>(
    acc: &Accelerator,
    input: &ArrayView<'_, T, 1>,
    value: T,
) -> Result<Option<Array<u32, 1>>, Error> {
    let Some(q) = Quads::of(input)? else {
        return Ok(None);
    };
    let value = super::host::words(std::slice::from_ref(&value))[0];
    let blocks = q.blocks(COUNT_ITEMS / 4);
    let mut partials = Array::<u32, 1>::new_for_overwrite_on(acc, [blocks])?;
    // SAFETY: `count_quads` reads `quads[i]` only for `i` below its length and `tail[i]` for
    // `i < tail_len`, at most its length, and writes `partials[b]` for the launch's tiles
    // `b < blocks`, the length of `partials`.
    parallel_for_each_on(acc, tiles(blocks), unsafe {
        count_quads::<{ COUNT_ITEMS / 4 }>(&q.quads, &q.tail, q.tail_len, &mut partials, value)
    })?;
    Ok(Some(partials))
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
    let partials = match count_quads_level(&acc, input, value)? {
        Some(partials) => partials,
        None => {
            let blocks = n.div_ceil(TILE * COUNT_ITEMS);
            let mut partials = Array::<u32, 1>::new_for_overwrite_on(&acc, [blocks])?;
            // SAFETY: `count_blocks` reads `input[i]` only for `i < n` and writes
            // `partials[b]` for the launch's tiles `b < blocks`, the length of `partials`.
            parallel_for_each_on(&acc, tiles(blocks), unsafe {
                count_blocks(input, &mut partials, value)
            })?;
            partials
        }
    };
    // At most u32::MAX elements (an extent's limit), so the u32 sum does not wrap.
    let total = sum(&partials.view())?;
    Ok(total as usize)
}
