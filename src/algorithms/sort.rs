//! LSD radix sorts of 32-bit keys (`i32`, `u32`, `f32`) with 4-bit digits, and of `f64` keys as
//! two 32-bit halves; `sort_by_key` is stable.
//!
//! Keys are first mapped to `u32`s whose unsigned order is the order wanted (signed integers
//! flip their sign bit; floats flip every bit when negative and the sign bit otherwise, which
//! is `total_cmp`'s order: negative NaNs < `-inf` < .. < `-0.0` < `+0.0` < .. < `+inf` <
//! positive NaNs, and the mapping keeps every bit). Each pass
//! then sorts stably by one digit:
//! 1. `radix_counts`: each tile counts the digits of its block of 2,048 keys in `tile_static`
//!    memory and writes them digit-major (`counts[digit * blocks + block]`);
//! 2. an exclusive scan of the counts gives every (digit, block) its first output position;
//! 3. `radix_scatter`: each thread takes 8 consecutive keys of the block, the tile scans the
//!    threads' digit counts, and every key goes to its digit's next position: the order within
//!    a digit is the input order, so each pass is stable and the passes compose.
//!
//! Where the device has the `tile_static` memory for it, the passes are Onesweep's instead
//! (`onesweep.rs`: 8-bit digits, one read and one write of the keys per digit); see
//! docs/algorithms.md.

use super::onesweep;
use super::scan::exclusive_scan_on;
use super::{accelerator_of, check_lengths, tiles, TILE};
use crate::prelude::*;
use crate::{DeviceElement, ScalarType};

/// Keys per tile of the counting and scattering kernels (8 per thread).
const SORT_BLOCK: usize = TILE * 8;

/// How the keys' bits become `u32`s in the order wanted (`KIND_*`).
const KIND_U32: u32 = 0;
const KIND_I32: u32 = 1;
const KIND_F32: u32 = 2;

/// The order-preserving `u32` of a key's bits.
#[amp::device(amp)]
fn to_sort_key(bits: u32, kind: u32) -> u32 {
    if kind == KIND_U32 {
        bits
    } else if kind == KIND_I32 {
        bits ^ 0x8000_0000
    } else if (bits & 0x8000_0000) != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

/// The inverse of `to_sort_key` (every bit comes back, NaN payloads and signs included).
#[amp::device(amp)]
fn from_sort_key(key: u32, kind: u32) -> u32 {
    if kind == KIND_U32 {
        key
    } else if kind == KIND_I32 {
        key ^ 0x8000_0000
    } else if (key & 0x8000_0000) != 0 {
        key & 0x7fff_ffff
    } else {
        !key
    }
}

#[kernel(amp)]
fn encode_keys(idx: Index<1>, bits: ArrayView<u32, 1>, keys: ArrayViewMut<u32, 1>, kind: u32) {
    keys[idx] = to_sort_key(bits[idx], kind);
}

#[kernel(amp)]
fn decode_keys(idx: Index<1>, keys: ArrayView<u32, 1>, bits: ArrayViewMut<u32, 1>, kind: u32) {
    bits[idx] = from_sort_key(keys[idx], kind);
}

/// `f64` keys from their words (`words[2i]` low, `words[2i + 1]` high), in `total_cmp` order.
#[kernel(amp)]
fn encode_keys_f64(
    idx: Index<1>,
    words: ArrayView<u32, 1>,
    low: ArrayViewMut<u32, 1>,
    high: ArrayViewMut<u32, 1>,
) {
    let i = idx[0];
    let lo = words[2 * i];
    let hi = words[2 * i + 1];
    if (hi & 0x8000_0000) != 0 {
        low[idx] = !lo;
        high[idx] = !hi;
    } else {
        low[idx] = lo;
        high[idx] = hi | 0x8000_0000;
    }
}

/// `counts[digit * blocks + block]`: how many keys of each block have each digit.
// Each (digit, block) entry is written by one thread of one tile, which the analysis does not
// prove.
#[kernel(amp, allow(write_conflict))]
fn radix_counts(
    t: TiledIndex<256>,
    keys: ArrayView<u32, 1>,
    counts: ArrayViewMut<u32, 1>,
    shift: u32,
) {
    #[tile_static]
    let mut hist: [u32; 16];
    let n = keys.extent()[0];
    let blocks = counts.extent()[0] / 16;
    let l = t.local[0];
    if l < 16 {
        hist[l] = 0;
    }
    t.barrier.wait();
    let b = t.tile[0];
    let start = b * 2048;
    for k in 0..8 {
        let i = start + k * 256 + l;
        if i < n {
            let digit = ((keys[i] >> shift) & 15) as usize;
            atomic_fetch_add(&mut hist[digit], 1);
        }
    }
    t.barrier.wait();
    if l < 16 {
        counts[l * blocks + b] = hist[l];
    }
}

/// Moves each key of the block (and its index, when `WITH_INDEX` is 1; the position itself
/// when it is 2) to its digit's next position: `offsets` is the exclusive scan of the counts.
#[kernel(amp, allow(write_conflict, bank_conflict))]
fn radix_scatter<const WITH_INDEX: u32>(
    t: TiledIndex<256>,
    keys_in: ArrayView<u32, 1>,
    index_in: ArrayView<u32, 1>,
    offsets: ArrayView<u32, 1>,
    keys_out: ArrayViewMut<u32, 1>,
    index_out: ArrayViewMut<u32, 1>,
    shift: u32,
) {
    // Digit-major: entry `digit * 256 + thread` is that thread's count of that digit.
    #[tile_static]
    let mut counts: [u32; 4096];
    #[tile_static]
    let mut totals: [u32; 256];
    let n = keys_in.extent()[0];
    let blocks = offsets.extent()[0] / 16;
    let l = t.local[0];
    let b = t.tile[0];
    let start = b * 2048 + l * 8;
    // Each thread counts into its own column of `counts` (no atomics: no other thread
    // touches it), then the tile scans each digit's row.
    for d in 0..16 {
        counts[d * 256 + l] = 0;
    }
    for k in 0..8 {
        let i = start + k;
        if i < n {
            let digit = ((keys_in[i] >> shift) & 15) as usize;
            counts[digit * 256 + l] += 1;
        }
    }
    t.barrier.wait();
    // Exclusive scan within each digit's 256 entries: 16 per thread, then the 16 threads of
    // the digit (thread `l` covers entries `l * 16 ..`, all of digit `l / 16`).
    let mut run = 0u32;
    for k in 0..16 {
        let v = counts[l * 16 + k];
        counts[l * 16 + k] = run;
        run += v;
    }
    totals[l] = run;
    t.barrier.wait();
    if l < 16 {
        let mut s = 0u32;
        for k in 0..16 {
            let v = totals[l * 16 + k];
            totals[l * 16 + k] = s;
            s += v;
        }
    }
    t.barrier.wait();
    // A key's position: its (digit, block)'s first slot, plus the keys of that digit in the
    // block before this thread's, plus this thread's earlier keys of that digit (the column
    // entry counts up as they are placed).
    for k in 0..8 {
        let i = start + k;
        if i < n {
            let key = keys_in[i];
            let digit = ((key >> shift) & 15) as usize;
            let e = digit * 256 + l;
            let p = (offsets[digit * blocks + b] + counts[e] + totals[e / 16]) as usize;
            counts[e] += 1;
            keys_out[p] = key;
            if WITH_INDEX == 1 {
                index_out[p] = index_in[i];
            } else if WITH_INDEX == 2 {
                index_out[p] = i as u32;
            }
        }
    }
}

#[kernel(amp)]
fn gather<V: DeviceScalar>(
    idx: Index<1>,
    order: ArrayView<u32, 1>,
    src: ArrayView<V, 1>,
    dst: ArrayViewMut<V, 1>,
) {
    dst[idx] = src[order[idx] as usize];
}

/// How the radix sort's passes run: for tests and the benchmark's variants; the public sorts
/// take [`SortMethod::Auto`].
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortMethod {
    /// The device's choice: Onesweep on GPUs where it fits ([`onesweep::fits`]), else 4-bit
    /// digits ([`onesweep::preferred`]).
    Auto,
    /// 8 passes of 4-bit digits, each a count, a scan and a scatter.
    FourBit,
    /// 4 Onesweep passes of 8-bit digits, each thread asking a block's state `polls` times
    /// before its tile counts the block itself (0: every tile counts every block before its
    /// own, which tests the fallback).
    Onesweep { polls: u32 },
}

impl SortMethod {
    /// The method for `n` keys on `acc`: `Auto` resolved, and Onesweep only where it fits.
    fn on(self, acc: &Accelerator, n: usize) -> SortMethod {
        match self {
            SortMethod::Auto | SortMethod::Onesweep { .. } if !onesweep::fits(acc, n) => {
                SortMethod::FourBit
            }
            SortMethod::Auto if !onesweep::preferred(acc) => SortMethod::FourBit,
            SortMethod::Auto => SortMethod::Onesweep {
                polls: onesweep::POLLS,
            },
            method => method,
        }
    }
}

/// Keys (and, with `index`, a payload of indices) being sorted: two buffers each, swapped
/// after every pass, so the sorted keys end in `keys[0]`.
struct Passes {
    acc: Accelerator,
    method: SortMethod,
    keys: [Array<u32, 1>; 2],
    /// The payload, or two one-element stand-ins when there is none (the kernel never touches
    /// them then, but every parameter needs a buffer).
    index: [Array<u32, 1>; 2],
    with_index: bool,
}

impl Passes {
    fn new(
        acc: &Accelerator,
        keys: Array<u32, 1>,
        with_index: bool,
        method: SortMethod,
    ) -> Result<Self, Error> {
        let n = keys.len();
        let payload = if with_index { n } else { 1 };
        Ok(Passes {
            acc: acc.clone(),
            method: method.on(acc, n),
            keys: [keys, Array::new_for_overwrite_on(acc, [n])?],
            index: [
                Array::new_for_overwrite_on(acc, [payload])?,
                Array::new_for_overwrite_on(acc, [payload])?,
            ],
            with_index,
        })
    }

    /// Sorts stably by the 8 digits of the current keys. `fresh_index`: the payload starts as
    /// the positions; otherwise it is carried as it is.
    fn run(&mut self, fresh_index: bool) -> Result<(), Error> {
        // The kernels' payload mode for a pass: 0 none, 1 carried, 2 made from the positions
        // (the first pass of a fresh payload).
        let with_index = self.with_index;
        let payload = move |pass: u32| match (with_index, fresh_index && pass == 0) {
            (false, _) => 0,
            (true, true) => 2,
            (true, false) => 1,
        };
        if let SortMethod::Onesweep { polls } = self.method {
            return onesweep::sort_passes(
                &self.acc,
                &mut self.keys,
                &mut self.index,
                payload,
                polls,
            );
        }
        // Each (digit, block)'s count and first output position.
        let blocks = self.keys[0].len().div_ceil(SORT_BLOCK);
        let mut counts = Array::<u32, 1>::new_for_overwrite_on(&self.acc, [16 * blocks])?;
        let mut offsets = Array::<u32, 1>::new_for_overwrite_on(&self.acc, [16 * blocks])?;
        for pass in 0..8u32 {
            let shift = pass * 4;
            parallel_for_each(
                tiles(blocks),
                radix_counts(&self.keys[0].view(), &mut counts.view_mut(), shift),
            )?;
            exclusive_scan_on(&self.acc, &counts.view(), &mut offsets.view_mut())?;
            let with_index = payload(pass);
            // The views borrow the buffers until the block ends; the swap comes after.
            {
                let [keys_in, keys_out] = &mut self.keys;
                let [index_in, index_out] = &mut self.index;
                let domain = tiles(blocks);
                let (keys_in, index_in) = (&keys_in.view(), &index_in.view());
                let offsets = &offsets.view();
                let (keys_out, index_out) = (&mut keys_out.view_mut(), &mut index_out.view_mut());
                // The payload mode is a specialization constant: no branch per key.
                match with_index {
                    0 => parallel_for_each(
                        domain,
                        radix_scatter::<0>(keys_in, index_in, offsets, keys_out, index_out, shift),
                    )?,
                    1 => parallel_for_each(
                        domain,
                        radix_scatter::<1>(keys_in, index_in, offsets, keys_out, index_out, shift),
                    )?,
                    _ => parallel_for_each(
                        domain,
                        radix_scatter::<2>(keys_in, index_in, offsets, keys_out, index_out, shift),
                    )?,
                }
            }
            self.keys.swap(0, 1);
            self.index.swap(0, 1);
        }
        Ok(())
    }
}

/// How `T`'s bits map to sort keys; `None` for `f64` (two words).
fn kind_of<T: DeviceScalar>() -> Option<u32> {
    match <T as DeviceElement>::TYPE {
        ScalarType::U32 => Some(KIND_U32),
        ScalarType::I32 => Some(KIND_I32),
        ScalarType::F32 => Some(KIND_F32),
        _ => None,
    }
}

/// The permutation that sorts `keys` stably: `order[i]` is the input position of the `i`-th
/// smallest key.
fn sorted_order<K: DeviceScalar>(
    acc: &Accelerator,
    keys: &ArrayView<'_, K, 1>,
    method: SortMethod,
) -> Result<Array<u32, 1>, Error> {
    let n = keys.extent()[0];
    let everything = Extent::new([n]);
    let words = keys.reinterpret_as::<u32>()?;
    match kind_of::<K>() {
        Some(kind) => {
            let mut encoded = Array::<u32, 1>::new_for_overwrite_on(acc, [n])?;
            parallel_for_each(
                everything,
                encode_keys(&words, &mut encoded.view_mut(), kind),
            )?;
            let mut passes = Passes::new(acc, encoded, true, method)?;
            passes.run(true)?;
            let [order, _] = passes.index;
            Ok(order)
        }
        None => {
            // f64: by the low words, then stably by the high words (carrying the order).
            let mut low = Array::<u32, 1>::new_for_overwrite_on(acc, [n])?;
            let mut high = Array::<u32, 1>::new_for_overwrite_on(acc, [n])?;
            parallel_for_each(
                everything,
                encode_keys_f64(&words, &mut low.view_mut(), &mut high.view_mut()),
            )?;
            let mut passes = Passes::new(acc, low, true, method)?;
            passes.run(true)?;
            let mut high_in_order = Array::<u32, 1>::new_for_overwrite_on(acc, [n])?;
            parallel_for_each(
                everything,
                gather::<u32>(
                    &passes.index[0].view(),
                    &high.view(),
                    &mut high_in_order.view_mut(),
                ),
            )?;
            passes.keys[0] = high_in_order;
            passes.run(false)?;
            let [order, _] = passes.index;
            Ok(order)
        }
    }
}

/// Writes `values[order[i]]` to `values[i]` for every `i`.
fn permute<V: DeviceScalar>(
    acc: &Accelerator,
    order: &Array<u32, 1>,
    values: &mut ArrayViewMut<'_, V, 1>,
) -> Result<(), Error> {
    let n = values.extent()[0];
    let original = Array::<V, 1>::from_slice_on(acc, [n], &values.to_vec()?)?;
    parallel_for_each(
        Extent::new([n]),
        gather(&order.view(), &original.view(), values),
    )?;
    values.synchronize()
}

/// Sorts the elements in ascending order: integers by value, floats as `f32::total_cmp` /
/// `f64::total_cmp` order them (negative NaNs first, then `-inf`, .., `-0.0`, `+0.0`, ..,
/// `+inf`, positive NaNs last), every bit kept: the result is a permutation of the input, the
/// same as `sort_by(f32::total_cmp)`. Not stable, as the order of equal values cannot be seen.
///
/// A radix sort: 8 passes of 4-bit digits over 32-bit keys, 16 for `f64`; see
/// docs/algorithms.md.
///
/// ```no_run
/// # use amp::prelude::*;
/// # fn main() -> Result<(), amp::Error> {
/// let mut data = [3.5f32, -0.0, f32::NAN, -1.0, 0.0, f32::NEG_INFINITY];
/// amp::algorithms::sort(&mut ArrayViewMut::new([6], &mut data)?)?;
/// assert_eq!(&data[..5], &[f32::NEG_INFINITY, -1.0, -0.0, 0.0, 3.5]);
/// assert!(data[5].is_nan());
/// # Ok(()) }
/// ```
pub fn sort<T: DeviceScalar>(data: &mut ArrayViewMut<'_, T, 1>) -> Result<(), Error> {
    sort_with(data, SortMethod::Auto)
}

/// [`sort`] by a chosen method; any method but `Auto` runs the kernels on every accelerator
/// (natively `Auto` sorts on the host), for tests and the benchmark's variants.
#[doc(hidden)]
pub fn sort_with<T: DeviceScalar>(
    data: &mut ArrayViewMut<'_, T, 1>,
    method: SortMethod,
) -> Result<(), Error> {
    let n = data.extent()[0];
    if n <= 1 {
        return Ok(());
    }
    let acc = accelerator_of(data.accelerator())?;
    if method == SortMethod::Auto && super::host::sort(data, false, &acc).is_some() {
        return Ok(());
    }
    let Some(kind) = kind_of::<T>() else {
        let order = sorted_order(&acc, &data.view_as::<1>([n])?, method)?;
        return permute(&acc, &order, data);
    };
    let everything = Extent::new([n]);
    let mut encoded = Array::<u32, 1>::new_for_overwrite_on(&acc, [n])?;
    parallel_for_each(
        everything,
        encode_keys(
            &data.reinterpret_as::<u32>()?,
            &mut encoded.view_mut(),
            kind,
        ),
    )?;
    let mut passes = Passes::new(&acc, encoded, false, method)?;
    passes.run(false)?;
    let mut bits = data.reinterpret_as_mut::<u32>()?;
    parallel_for_each(
        everything,
        decode_keys(&passes.keys[0].view(), &mut bits, kind),
    )?;
    bits.synchronize()
}

/// Swaps element `i` with element `n - 1 - i` for the first half: the view reversed in place
/// (each thread owns one pair, so the other thread's element it reads is its own too).
#[kernel(amp, unchecked, allow(write_conflict, flow_dependence))]
fn reverse_halves<T: DeviceScalar>(idx: Index<1>, data: ArrayViewMut<T, 1>) {
    let n = data.extent()[0];
    let (i, j) = (idx[0], n - 1 - idx[0]);
    let (a, b) = (data[i], data[j]);
    data[i] = b;
    data[j] = a;
}

/// Sorts `data` descending: the reverse of [`sort`]'s order (for floats, `total_cmp`'s reversed:
/// positive NaNs first, then `+inf` .. `0.0`, `-0.0` .. `-inf`, negative NaNs last), every bit
/// kept; the same as `v.sort_by(|a, b| b.total_cmp(a))`.
///
/// ```no_run
/// # use amp::prelude::*;
/// # fn main() -> Result<(), amp::Error> {
/// let mut data = [3, 1, 2];
/// amp::algorithms::sort_descending(&mut ArrayViewMut::new([3], &mut data)?)?;
/// assert_eq!(data, [3, 2, 1]);
/// # Ok(()) }
/// ```
pub fn sort_descending<T: DeviceScalar>(data: &mut ArrayViewMut<'_, T, 1>) -> Result<(), Error> {
    let n = data.extent()[0];
    if n <= 1 {
        return Ok(());
    }
    let acc = accelerator_of(data.accelerator())?;
    if super::host::sort(data, true, &acc).is_some() {
        return Ok(());
    }
    sort(data)?;
    // SAFETY: thread `i < n / 2` swaps elements `i` and `n - 1 - i` of `data` (`n` long).
    parallel_for_each_on(&acc, Extent::new([n / 2]), unsafe { reverse_halves(data) })?;
    data.synchronize()
}

/// Sorts `keys` ascending as [`sort`] does and applies the same permutation to `values`:
/// stable, so equal keys keep their values' order.
///
/// Errors: [`Error::MismatchedLengths`] when the lengths differ, and the launch errors.
///
/// ```no_run
/// # use amp::prelude::*;
/// # fn main() -> Result<(), amp::Error> {
/// let mut keys = [2u32, 1, 2, 0];
/// let mut values = [10.0f32, 11.0, 12.0, 13.0];
/// amp::algorithms::sort_by_key(
///     &mut ArrayViewMut::new([4], &mut keys)?,
///     &mut ArrayViewMut::new([4], &mut values)?,
/// )?;
/// assert_eq!((keys, values), ([0, 1, 2, 2], [13.0, 11.0, 10.0, 12.0]));
/// # Ok(()) }
/// ```
pub fn sort_by_key<K: DeviceScalar, V: DeviceScalar>(
    keys: &mut ArrayViewMut<'_, K, 1>,
    values: &mut ArrayViewMut<'_, V, 1>,
) -> Result<(), Error> {
    sort_by_key_with(keys, values, SortMethod::Auto)
}

/// [`sort_by_key`] by a chosen method, for tests and the benchmark's variants.
#[doc(hidden)]
pub fn sort_by_key_with<K: DeviceScalar, V: DeviceScalar>(
    keys: &mut ArrayViewMut<'_, K, 1>,
    values: &mut ArrayViewMut<'_, V, 1>,
    method: SortMethod,
) -> Result<(), Error> {
    let n = keys.extent()[0];
    check_lengths("sort_by_key", ("keys", n), ("values", values.extent()[0]))?;
    if n <= 1 {
        return Ok(());
    }
    let acc = accelerator_of(keys.accelerator())?;
    if method == SortMethod::Auto && super::host::sort_by_key(keys, values, &acc).is_some() {
        return Ok(());
    }
    let order = sorted_order(&acc, &keys.view_as::<1>([n])?, method)?;
    permute(&acc, &order, keys)?;
    permute(&acc, &order, values)
}
