//! `sum`, `min` and `max`: each tile combines a block of 16,384 elements (coalesced loads, then
//! a tree in `tile_static` memory or subgroup sums) into one partial; the partials are reduced
//! the same way until one is left. Integer sums read their input as 16-byte vectors of four
//! words where its start allows.

use super::{accelerator_of, tiles, TILE};
use crate::prelude::*;

pub(super) const OP_SUM: u32 = 0;
const OP_MIN: u32 = 1;
const OP_MAX: u32 = 2;

/// `a + b`, `a.min(b)` or `a.max(b)`: the choice is uniform, a scalar argument.
#[amp::device]
fn combine<T: DeviceScalar>(a: T, b: T, op: u32) -> T {
    if op == OP_SUM {
        a + b
    } else if op == OP_MIN {
        a.min(b)
    } else {
        a.max(b)
    }
}

/// One partial per block of `256 * ITEMS` elements: `partials[b]` combines
/// `input[b * 256 * ITEMS ..][.. 256 * ITEMS]`. `OP` and `ITEMS` are specialization constants,
/// so the driver folds the choice of operation and can unroll the loads. Thread 0 of each tile
/// writes its block's partial (`partials[t.tile]`).
#[kernel(amp, unchecked)]
pub(super) fn reduce_blocks<T: DeviceScalar, const OP: u32, const ITEMS: usize>(
    t: TiledIndex<256>,
    input: ArrayView<T, 1>,
    partials: ArrayViewMut<T, 1>,
    identity: T,
) {
    #[tile_static]
    let mut part: [T; 256];
    let n = input.extent()[0];
    let l = t.local[0];
    let b = t.tile[0];
    let start = b * 256 * ITEMS;
    let mut acc = identity;
    for k in 0..ITEMS {
        let i = start + k * 256 + l;
        if i < n {
            acc = combine(acc, input[i], OP);
        }
    }
    part[l] = acc;
    t.barrier.wait();
    let mut stride = 128;
    while stride > 0 {
        if l < stride {
            part[l] = combine(part[l], part[l + stride], OP);
        }
        t.barrier.wait();
        stride /= 2;
    }
    if l == 0 {
        partials[b] = part[0];
    }
}

/// One sum per block of `256 * ITEMS` elements, as [`reduce_blocks`] with `OP_SUM`, combining
/// the tile's 256 values with subgroup additions: each subgroup adds its lanes (`sg.add`), lane
/// 0 of each writes its sum, and thread 0 adds the subgroups' sums in order. One barrier instead
/// of the tree's nine, which is what a CPU driver pays most for (lavapipe switches between the
/// tile's threads at each).
#[kernel(amp, unchecked)]
pub(super) fn sum_blocks<T: DeviceScalar, const ITEMS: usize>(
    t: TiledIndex<256>,
    input: ArrayView<T, 1>,
    partials: ArrayViewMut<T, 1>,
) {
    #[tile_static]
    let mut part: [T; 256];
    let sg = t.subgroup();
    let n = input.extent()[0];
    let l = t.local[0];
    let b = t.tile[0];
    let start = b * 256 * ITEMS;
    let mut acc = T::ZERO;
    for k in 0..ITEMS {
        let i = start + k * 256 + l;
        if i < n {
            acc += input[i];
        }
    }
    let s = sg.add(acc);
    if sg.lane() == 0 {
        part[sg.index() as usize] = s;
    }
    t.barrier.wait();
    if l == 0 {
        let mut total = part[0];
        for i in 1..sg.count() as usize {
            total += part[i];
        }
        partials[b] = total;
    }
}

/// [`sum_blocks`] of `u32` words read four at a time: each thread's loads are 16-byte vectors,
/// a quarter of the load instructions of one word each, so fewer threads keep as many bytes in
/// flight. `partials[b]` is the wrapping sum of `quads[b * 256 * ITEMS ..][.. 256 * ITEMS]`;
/// thread 0 of tile 0 also adds the first `tail_len` words of `tail` (the view's last words
/// past its whole quads, at most three).
#[kernel(amp, unchecked)]
fn sum_quads<const ITEMS: usize>(
    t: TiledIndex<256>,
    quads: ArrayView<UInt4, 1>,
    tail: ArrayView<u32, 1>,
    tail_len: u32,
    partials: ArrayViewMut<u32, 1>,
) {
    #[tile_static]
    let mut part: [u32; 256];
    let sg = t.subgroup();
    let n = quads.extent()[0];
    let l = t.local[0];
    let b = t.tile[0];
    let start = b * 256 * ITEMS;
    let mut acc = UInt4::splat(0);
    for k in 0..ITEMS {
        let i = start + k * 256 + l;
        if i < n {
            acc += quads[i];
        }
    }
    let mut mine = acc.x + acc.y + acc.z + acc.w;
    if b == 0 && l == 0 {
        for i in 0..tail_len as usize {
            mine += tail[i];
        }
    }
    let s = sg.add(mine);
    if sg.lane() == 0 {
        part[sg.index() as usize] = s;
    }
    t.barrier.wait();
    if l == 0 {
        let mut total = part[0];
        for i in 1..sg.count() as usize {
            total += part[i];
        }
        partials[b] = total;
    }
}

/// Quads per thread of [`sum_quads`]: blocks of 16,384 words, as the scalar kernels'.
const QUAD_ITEMS: usize = REDUCE_ITEMS / 4;

/// An integer view (`i32` or `u32`) as 16-byte vectors of four words: `quads` covers the
/// view's whole quads, `tail` its last `tail_len` words (at most three; a one-word stand-in
/// when there are none, as every kernel parameter needs a buffer).
pub(super) struct Quads<'a> {
    pub(super) quads: ArrayView<'a, UInt4, 1>,
    pub(super) tail: ArrayView<'a, u32, 1>,
    pub(super) tail_len: u32,
}

impl<'a> Quads<'a> {
    /// `input` as quads, or `None` where the kernels that read them do not apply: `T` not an
    /// integer, fewer than 4,096 elements, or a view that does not start at a 16-byte boundary
    /// of its data.
    pub(super) fn of<T: DeviceScalar>(input: &ArrayView<'a, T, 1>) -> Result<Option<Self>, Error> {
        let n = input.extent()[0];
        if !super::host::is_int::<T>() || n < 16 * TILE {
            return Ok(None);
        }
        let words = input.reinterpret_as::<u32>()?;
        let whole = n / 4 * 4;
        let Ok(quads) = words.section([0], [whole])?.reinterpret_as::<UInt4>() else {
            return Ok(None);
        };
        let tail_len = n - whole;
        let tail = words.section([n - tail_len.max(1)], [tail_len.max(1)])?;
        Ok(Some(Quads {
            quads,
            tail,
            tail_len: tail_len as u32,
        }))
    }

    /// Tiles of 256 threads that read `items` quads each.
    pub(super) fn blocks(&self, items: usize) -> usize {
        self.quads.extent()[0].div_ceil(TILE * items)
    }
}

/// The first level of an integer sum (`T` `i32` or `u32`, summed as `u32` words: wrapping
/// addition gives the same bits) by [`sum_quads`]: the partials, or `None` where it does not
/// apply ([`Quads::of`]) or the device lacks subgroup arithmetic.
fn sum_quads_level<T: DeviceScalar>(
    acc: &Accelerator,
    input: &ArrayView<'_, T, 1>,
) -> Result<Option<Array<T, 1>>, Error> {
    let Some(q) = Quads::of(input)? else {
        return Ok(None);
    };
    let blocks = q.blocks(QUAD_ITEMS);
    let mut partials = Array::<T, 1>::new_for_overwrite_on(acc, [blocks])?;
    {
        let mut partials = partials.view_mut();
        let partials = &mut partials.reinterpret_as_mut::<u32>()?;
        // SAFETY: `sum_quads` reads `quads[i]` only for `i` below its length and `tail[i]` for
        // `i < tail_len`, at most its length, and writes `partials[b]` for the launch's tiles
        // `b < blocks`, the length of `partials`.
        let launched = parallel_for_each_on(acc, tiles(blocks), unsafe {
            sum_quads::<QUAD_ITEMS>(&q.quads, &q.tail, q.tail_len, partials)
        });
        match launched {
            Err(Error::MissingCapability { .. }) => return Ok(None),
            other => other?,
        }
    }
    Ok(Some(partials))
}

/// Elements per thread of a reduction (more than a scan's: fewer barriers per element, which
/// are what a CPU driver pays most for).
const REDUCE_ITEMS: usize = 64;

/// Launches `reduce_blocks` over every block of `ITEMS * 256` elements of `input` into
/// `partials` (one per block).
pub(super) fn reduce_into<T: DeviceScalar, const OP: u32, const ITEMS: usize>(
    input: &ArrayView<'_, T, 1>,
    partials: &mut Array<T, 1>,
    identity: T,
) -> Result<(), Error> {
    // SAFETY: `reduce_blocks` reads `input[i]` only for `i < n` and writes `partials[b]` for
    // the launch's tiles `b < partials.len()`.
    parallel_for_each(tiles(partials.len()), unsafe {
        reduce_blocks::<T, OP, ITEMS>(input, &mut partials.view_mut(), identity)
    })
}

/// Launches [`sum_blocks`] over every block of `ITEMS * 256` elements of `input` into
/// `partials`, where the device has subgroup arithmetic; `reduce_blocks` elsewhere.
pub(super) fn sum_into<T: DeviceScalar, const ITEMS: usize>(
    input: &ArrayView<'_, T, 1>,
    partials: &mut Array<T, 1>,
) -> Result<(), Error> {
    // SAFETY: as in `reduce_into`.
    let launched = parallel_for_each(tiles(partials.len()), unsafe {
        sum_blocks::<T, ITEMS>(input, &mut partials.view_mut())
    });
    match launched {
        Err(Error::MissingCapability { .. }) => {
            reduce_into::<T, OP_SUM, ITEMS>(input, partials, T::ZERO)
        }
        other => other,
    }
}

fn reduce<T: DeviceScalar, const OP: u32>(
    input: &ArrayView<'_, T, 1>,
    identity: T,
    operation: &'static str,
) -> Result<T, Error> {
    let n = input.extent()[0];
    if n == 0 {
        return Err(Error::EmptyInput { operation });
    }
    let acc = accelerator_of(input.accelerator())?;
    let block = TILE * REDUCE_ITEMS;
    let level = |input: &ArrayView<'_, T, 1>, out: &mut Array<T, 1>| match OP {
        OP_SUM => sum_into::<T, REDUCE_ITEMS>(input, out),
        _ => reduce_into::<T, OP, REDUCE_ITEMS>(input, out, identity),
    };
    let quads = match OP {
        OP_SUM => sum_quads_level(&acc, input)?,
        _ => None,
    };
    let mut partials = match quads {
        Some(partials) => partials,
        None => {
            let mut partials = Array::<T, 1>::new_for_overwrite_on(&acc, [n.div_ceil(block)])?;
            level(input, &mut partials)?;
            partials
        }
    };
    while partials.len() > 1 {
        let mut next = Array::<T, 1>::new_for_overwrite_on(&acc, [partials.len().div_ceil(block)])?;
        level(&partials.view(), &mut next)?;
        partials = next;
    }
    let total = partials.to_vec()?;
    Ok(total[0])
}

/// The sum of the elements (integers wrap; floats are added in a tree, so the rounding may
/// differ from a sequential loop's). An empty view sums to zero.
///
/// ```no_run
/// # use amp::prelude::*;
/// # fn main() -> Result<(), amp::Error> {
/// let data = [1, 2, 3, 4];
/// assert_eq!(amp::algorithms::sum(&ArrayView::new([4], &data)?)?, 10);
/// # Ok(()) }
/// ```
pub fn sum<T: DeviceScalar, const N: usize>(input: &ArrayView<'_, T, N>) -> Result<T, Error> {
    let input = &super::flat(input, "sum")?;
    if input.extent()[0] == 0 {
        return Ok(T::ZERO);
    }
    let acc = accelerator_of(input.accelerator())?;
    if let Some(total) = super::host::sum(input, &acc) {
        return Ok(total);
    }
    reduce::<T, OP_SUM>(input, T::ZERO, "sum")
}

/// The smallest element (floats: NaNs are passed over as by `f32::min`; only NaNs give NaN).
///
/// Errors: [`Error::EmptyInput`] for no elements, and the launch errors.
pub fn min<T: DeviceScalar, const N: usize>(input: &ArrayView<'_, T, N>) -> Result<T, Error> {
    reduce::<T, OP_MIN>(&super::flat(input, "min")?, T::MIN_IDENTITY, "min")
}

/// The largest element (floats: NaNs are passed over as by `f32::max`; only NaNs give NaN).
///
/// Errors: [`Error::EmptyInput`] for no elements, and the launch errors.
pub fn max<T: DeviceScalar, const N: usize>(input: &ArrayView<'_, T, N>) -> Result<T, Error> {
    reduce::<T, OP_MAX>(&super::flat(input, "max")?, T::MAX_IDENTITY, "max")
}
