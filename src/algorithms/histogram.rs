//! `histogram`: each tile counts into its own bins in `tile_static` memory, then adds them to
//! the global counters (one atomic add per element into the global counters past 1,024 bins).
//! Integers are read as 16-byte vectors of four words where the view's start allows.

use super::reduce::Quads;
use super::{accelerator_of, tiles, TILE};
use crate::prelude::*;
use crate::{DeviceElement, ScalarType};

/// `floor(a * b / c)` for `a < c`, exactly: the 64-bit product in two words (16-bit limbs),
/// then a long division of its low word under the high word (`a < c` keeps the high word and
/// the quotient below 2^32). Device-only: it relies on the kernel language's wrapping `-`.
#[amp::device(amp)]
fn mul_div(a: u32, b: u32, c: u32) -> u32 {
    let (a_lo, a_hi) = (a & 0xffff, a >> 16);
    let (b_lo, b_hi) = (b & 0xffff, b >> 16);
    let ll = a_lo * b_lo;
    let lh = a_lo * b_hi;
    let hl = a_hi * b_lo;
    let mid = (ll >> 16) + (lh & 0xffff) + (hl & 0xffff);
    let lo = (ll & 0xffff) | (mid << 16);
    let mut rem = a_hi * b_hi + (lh >> 16) + (hl >> 16) + (mid >> 16);
    let mut q = 0u32;
    for k in 0..32 {
        let top = rem >> 31;
        rem = (rem << 1) | ((lo >> (31 - k)) & 1);
        q <<= 1;
        // `top` set: the shifted remainder is at least 2^32 > c (the wrapping subtraction
        // gives the true difference, which is below c).
        if top == 1 || rem >= c {
            rem -= c;
            q |= 1;
        }
    }
    q
}

/// The bin of `x` among `bins` equal-width bins of `[lo, hi)`, or `bins` when `x` is outside
/// (or NaN): integers exactly (`(x - lo) * bins / (hi - lo)`), floats as
/// `((x - lo) / (hi - lo) * bins)` rounded down in `T` (and kept below `bins`).
#[amp::device(amp)]
fn bin_of<T: DeviceScalar>(x: T, lo: T, hi: T, bins: u32, float: bool) -> u32 {
    if !(x >= lo && x < hi) {
        return bins;
    }
    if float {
        let b = ((x - lo) / (hi - lo) * bins as T) as u32;
        if b >= bins {
            bins - 1
        } else {
            b
        }
    } else {
        // Kernel integers wrap: the differences are right for any `lo <= x < hi`.
        let offset = x as u32 - lo as u32;
        let width = hi as u32 - lo as u32;
        if width <= u32::MAX / bins {
            // The product fits 32 bits (the usual case): one multiply and one divide.
            offset * bins / width
        } else {
            mul_div(offset, bins, width)
        }
    }
}

/// One atomic add per counted element, into the global counters (any number of bins).
#[kernel(amp)]
fn count_bins<T: DeviceScalar>(
    idx: Index<1>,
    input: ArrayView<T, 1>,
    counts: &mut Array<u32, 1>,
    lo: T,
    hi: T,
    bins: u32,
    float: bool,
) {
    let bin = bin_of(input[idx], lo, hi, bins, float);
    if bin < bins {
        atomic_fetch_add(&mut counts[bin as usize], 1);
    }
}

/// Bins a tile keeps privately in `tile_static` memory (up to this many bins).
const PRIVATE_BINS: usize = 1024;
/// Elements each thread of [`count_bins_tiled`] counts.
const HISTOGRAM_ITEMS: usize = 64;

/// Each tile counts a block of `256 * HISTOGRAM_ITEMS` elements into its own bins in
/// `tile_static` memory (cheap atomics, no contention between tiles), then adds each non-empty
/// bin to the global counters once: one global atomic per bin per tile instead of one per
/// element (the privatization of CUB's and the C++ AMP sample's histograms).
#[kernel(amp, unchecked)]
fn count_bins_tiled<T: DeviceScalar>(
    t: TiledIndex<256>,
    input: ArrayView<T, 1>,
    counts: &mut Array<u32, 1>,
    lo: T,
    hi: T,
    bins: u32,
    float: bool,
) {
    #[tile_static]
    let mut local: [u32; 1024];
    let l = t.local[0];
    for k in 0..4 {
        local[l + 256 * k] = 0;
    }
    t.barrier.wait();
    let n = input.extent()[0];
    let start = t.tile[0] * 256 * HISTOGRAM_ITEMS;
    for k in 0..HISTOGRAM_ITEMS {
        let i = start + k * 256 + l;
        if i < n {
            let bin = bin_of(input[i], lo, hi, bins, float);
            if bin < bins {
                atomic_fetch_add(&mut local[bin as usize], 1);
            }
        }
    }
    t.barrier.wait();
    for k in 0..4 {
        let b = l + 256 * k;
        if (b as u32) < bins {
            let c = local[b];
            if c > 0 {
                atomic_fetch_add(&mut counts[b], c);
            }
        }
    }
}

/// The bin of the word `w` ([`bin_of`] of `u32`s), where `i32`s come with their sign bit
/// flipped (`flip`), `lo` and `hi` too: the flip keeps their order, and the wrapping
/// differences `bin_of` takes are the same.
#[amp::device(amp)]
fn word_bin(w: u32, lo: u32, hi: u32, bins: u32, flip: u32) -> u32 {
    bin_of(w ^ flip, lo, hi, bins, false)
}

/// [`count_bins_tiled`] of `u32` words read four at a time (16-byte loads): each tile counts
/// `quads[b * 256 * ITEMS ..][.. 256 * ITEMS]` into its own bins, and the first `tail_len`
/// threads of tile 0 also count one word each of `tail` (the view's last words past its whole
/// quads, at most three). `lo` and `hi` are flipped as the words are ([`word_bin`]).
#[kernel(amp, unchecked)]
fn count_bins_quads<const ITEMS: usize>(
    t: TiledIndex<256>,
    quads: ArrayView<UInt4, 1>,
    tail: ArrayView<u32, 1>,
    tail_len: u32,
    counts: &mut Array<u32, 1>,
    lo: u32,
    hi: u32,
    bins: u32,
    flip: u32,
) {
    #[tile_static]
    let mut local: [u32; 1024];
    let l = t.local[0];
    for k in 0..4 {
        local[l + 256 * k] = 0;
    }
    t.barrier.wait();
    let n = quads.extent()[0];
    let start = t.tile[0] * 256 * ITEMS;
    for k in 0..ITEMS {
        let i = start + k * 256 + l;
        if i < n {
            let q = quads[i];
            let bx = word_bin(q.x, lo, hi, bins, flip);
            let by = word_bin(q.y, lo, hi, bins, flip);
            let bz = word_bin(q.z, lo, hi, bins, flip);
            let bw = word_bin(q.w, lo, hi, bins, flip);
            if bx < bins {
                atomic_fetch_add(&mut local[bx as usize], 1);
            }
            if by < bins {
                atomic_fetch_add(&mut local[by as usize], 1);
            }
            if bz < bins {
                atomic_fetch_add(&mut local[bz as usize], 1);
            }
            if bw < bins {
                atomic_fetch_add(&mut local[bw as usize], 1);
            }
        }
    }
    if t.tile[0] == 0 && (l as u32) < tail_len {
        let b = word_bin(tail[l], lo, hi, bins, flip);
        if b < bins {
            atomic_fetch_add(&mut local[b as usize], 1);
        }
    }
    t.barrier.wait();
    for k in 0..4 {
        let b = l + 256 * k;
        if (b as u32) < bins {
            let c = local[b];
            if c > 0 {
                atomic_fetch_add(&mut counts[b], c);
            }
        }
    }
}

/// Counts an integer `input` (`T` `i32` or `u32`) into `counts` (`bins` of at most
/// [`PRIVATE_BINS`]) by [`count_bins_quads`]; `false` where it does not apply ([`Quads::of`]).
fn count_bins_by_quads<T: DeviceScalar>(
    acc: &Accelerator,
    input: &ArrayView<'_, T, 1>,
    counts: &mut Array<u32, 1>,
    (lo, hi, bins): (T, T, u32),
) -> Result<bool, Error> {
    let Some(q) = Quads::of(input)? else {
        return Ok(false);
    };
    // `i32`s compare as `u32`s with their sign bit flipped.
    let flip = match <T as DeviceElement>::TYPE {
        ScalarType::I32 => 0x8000_0000u32,
        _ => 0,
    };
    let [lo, hi] = [lo, hi].map(|v| super::host::words(std::slice::from_ref(&v))[0] ^ flip);
    let blocks = q.blocks(HISTOGRAM_ITEMS / 4);
    // SAFETY: `count_bins_quads` reads `quads[i]` only for `i` below its length and `tail[l]`
    // for `l < tail_len`, at most its length, and adds to `counts[b]` only for `b < bins`, the
    // length of `counts`.
    parallel_for_each_on(acc, tiles(blocks), unsafe {
        count_bins_quads::<{ HISTOGRAM_ITEMS / 4 }>(
            &q.quads, &q.tail, q.tail_len, counts, lo, hi, bins, flip,
        )
    })?;
    Ok(true)
}

/// How many elements of `input` fall in each of `bins` equal-width bins of `[lo, hi)`
/// (Thrust's histogram with `upper_bound` on the bin edges, C++ AMP's histogram sample):
/// integer bins exactly (`bin = (x - lo) * bins / (hi - lo)`, rounded down), float bins as
/// `((x - lo) / (hi - lo) * bins as T) as u32` in `T` (kept below `bins`). Elements outside
/// `[lo, hi)` and NaNs are not counted.
///
/// Errors: [`Error::EmptyInput`] for `bins == 0` or an empty range (`hi <= lo`, or a NaN bound),
/// [`Error::ExtentTooLarge`] for more than `u32::MAX` bins, and the launch errors.
///
/// ```no_run
/// # use amp::prelude::*;
/// # fn main() -> Result<(), amp::Error> {
/// let data = [0.5f32, 1.5, 1.7, 9.0, -1.0, 3.9];
/// let counts = amp::algorithms::histogram(&ArrayView::new([6], &data)?, 4, 0.0, 4.0)?;
/// assert_eq!(counts, [1, 2, 0, 1]);
/// # Ok(()) }
/// ```
pub fn histogram<T: DeviceScalar, const N: usize>(
    input: &ArrayView<'_, T, N>,
    bins: usize,
    lo: T,
    hi: T,
) -> Result<Vec<u32>, Error> {
    let input = &super::flat(input, "histogram")?;
    // `!(lo < hi)` also refuses NaN bounds.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    if bins == 0 || !(lo < hi) {
        return Err(Error::EmptyInput {
            operation: "histogram (no bins, or an empty range)",
        });
    }
    let bins32 = u32::try_from(bins).map_err(|_| Error::ExtentTooLarge {
        what: "the number of histogram bins",
        value: bins as u64,
        limit: u64::from(u32::MAX),
    })?;
    let acc = accelerator_of(input.accelerator())?;
    if let Some(counts) = super::host::histogram(input, bins32, lo, hi, &acc) {
        return Ok(counts);
    }
    let mut counts = Array::<u32, 1>::new_on(&acc, [bins])?;
    let float = matches!(
        <T as DeviceElement>::TYPE,
        ScalarType::F32 | ScalarType::F64
    );
    if bins <= PRIVATE_BINS {
        if !count_bins_by_quads(&acc, input, &mut counts, (lo, hi, bins32))? {
            let blocks = input.extent()[0].div_ceil(TILE * HISTOGRAM_ITEMS);
            // SAFETY: `count_bins_tiled` reads `input[i]` only for `i < n` and adds to
            // `counts[b]` only for `b < bins`, the length of `counts`.
            parallel_for_each_on(&acc, tiles(blocks), unsafe {
                count_bins_tiled(input, &mut counts, lo, hi, bins32, float)
            })?;
        }
    } else {
        parallel_for_each_on(
            &acc,
            input.extent(),
            count_bins(input, &mut counts, lo, hi, bins32, float),
        )?;
    }
    counts.to_vec()
}
