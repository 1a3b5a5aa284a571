//! The algorithms as plain Rust on the native CPU accelerator (Thrust's CPU back ends): where
//! the data is a contiguous view of host data and the result does not depend on the order of
//! the work (integer sums, scans and histograms, counts, sorts), the native accelerator runs a rayon loop
//! over the slice on its own pool instead of the kernels, whose tile-by-tile form a CPU runs
//! several times slower (docs/performance.md). Float sums keep the kernels, and float scans
//! run a twin that repeats the kernels' additions in their order (float_scan.rs), so that a
//! float result rounds the same whichever path runs it. Each function returns `None` where it
//! does not apply, and the caller launches the kernels.

use crate::prelude::*;
use amp_runtime::ScalarType;
use rayon::prelude::*;
use std::cmp::Ordering::Less;

/// Elements below which a parallel loop is not worth its tasks.
const SEQUENTIAL: usize = 1 << 14;

/// Elements per piece of a loop over `len` elements in pieces each with its own state (bins,
/// a scan's offset, an output part): about four per pool thread, at least [`SEQUENTIAL`].
/// Called on the pool.
fn piece_len(len: usize) -> usize {
    SEQUENTIAL.max(len.div_ceil(4 * rayon::current_num_threads()))
}

/// The accelerator if it is the native CPU accelerator.
fn native(acc: &Accelerator) -> Option<&Accelerator> {
    acc.is_native().then_some(acc)
}

/// Whether `T` is `i32` or `u32`: its sums and other integer combinations are exact in any
/// grouping, so the order of the work does not show in the result.
pub(super) fn is_int<T: DeviceScalar>() -> bool {
    matches!(
        <T as amp_runtime::DeviceElement>::TYPE,
        ScalarType::I32 | ScalarType::U32
    )
}

/// `s` as `u32` words: `T` is `i32` or `u32` ([`is_int`]).
pub(super) fn words<T: DeviceScalar>(s: &[T]) -> &[u32] {
    debug_assert!(is_int::<T>());
    // SAFETY: `T` is `i32` or `u32`: the same size and alignment as `u32`, every bit pattern
    // a value of both.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u32>(), s.len()) }
}

/// `s` as `u32` words, for writing: `T` is `i32` or `u32` ([`is_int`]).
fn words_mut<T: DeviceScalar>(s: &mut [T]) -> &mut [u32] {
    debug_assert!(is_int::<T>());
    // SAFETY: as in `words`; the borrow of `s` moves into the result.
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<u32>(), s.len()) }
}

/// The `T` (`i32` or `u32`) whose bits are `w`.
fn from_word<T: DeviceScalar>(w: u32) -> T {
    debug_assert!(is_int::<T>());
    // SAFETY: `T` is `i32` or `u32`, four bytes, every bit pattern a value.
    unsafe { std::mem::transmute_copy(&w) }
}

/// The bits of `x` (`T` is `i32` or `u32`).
fn to_word<T: DeviceScalar>(x: T) -> u32 {
    debug_assert!(is_int::<T>());
    // SAFETY: `T` is `i32` or `u32`, four bytes.
    unsafe { std::mem::transmute_copy(&x) }
}

/// The counts of an integer view's elements in `bins` equal-width bins of `[lo, hi)` (`lo <
/// hi`), as the kernels count them: bin `(x - lo) * bins / (hi - lo)`, rounded down, exactly.
/// Each chunk counts into its own bins, then the chunks' bins are added. When the product fits
/// 32 bits (the usual case) the division by the width `d` is a multiplication by
/// `m = ceil(2^64 / d)` and a shift by 64: with `m * d = 2^64 + e`, `e < d`, the result is
/// `floor(a / d + a * e / (d * 2^64))`, and for `a < 2^32` the second term is below
/// `2^-32 < 1 / d`, which the fraction of `a / d` (at most `1 - 1 / d`) never reaches.
pub(super) fn histogram<T: DeviceScalar>(
    input: &ArrayView<'_, T, 1>,
    bins: u32,
    lo: T,
    hi: T,
    acc: &Accelerator,
) -> Option<Vec<u32>> {
    if !is_int::<T>() {
        return None;
    }
    let acc = native(acc)?.clone();
    let s = words(input.data().ok()?);
    // `i32`s compare as `u32`s with their sign bit flipped.
    let flip = match <T as amp_runtime::DeviceElement>::TYPE {
        ScalarType::I32 => 0x8000_0000u32,
        _ => 0,
    };
    let (lo, hi) = (to_word(lo) ^ flip, to_word(hi) ^ flip);
    let width = hi - lo;
    // `m` fits 64 bits from a width of 2 (a width of 1 has one bin in use: the division).
    let narrow = width >= 2 && width <= u32::MAX / bins;
    let reciprocal = (1u128 << 64).div_ceil(u128::from(width)) as u64;
    let bin = move |x: u32| -> Option<usize> {
        // Inside `[lo, hi)` exactly when the wrapping offset is below the width.
        let offset = (x ^ flip).wrapping_sub(lo);
        if offset >= width {
            return None;
        }
        Some(match narrow {
            true => ((u128::from(offset * bins) * u128::from(reciprocal)) >> 64) as usize,
            false => (u64::from(offset) * u64::from(bins) / u64::from(width)) as usize,
        })
    };
    let n = bins as usize;
    acc.on_native_pool(|| {
        let chunk = piece_len(s.len());
        s.par_chunks(chunk)
            .map(|c| {
                // A copy of its own: the counts' stores cannot alias it, so its fields stay in
                // registers (through the shared closure, each store reloaded all six: 3.4x
                // rayon's time).
                let own = bin;
                let mut counts = vec![0u32; n];
                for &x in c {
                    if let Some(b) = own(x) {
                        counts[b] = counts[b].wrapping_add(1);
                    }
                }
                counts
            })
            .reduce(
                || vec![0u32; n],
                |mut a, b| {
                    for (x, y) in a.iter_mut().zip(b) {
                        *x = x.wrapping_add(y);
                    }
                    a
                },
            )
    })
}

/// The wrapping sum of an integer view (two's complement: the bits of an `i32` sum are those of
/// the `u32` sum of its bits).
pub(super) fn sum<T: DeviceScalar>(input: &ArrayView<'_, T, 1>, acc: &Accelerator) -> Option<T> {
    if !is_int::<T>() {
        return None;
    }
    let s = words(input.data().ok()?);
    let total = native(acc)?.on_native_pool(|| {
        s.par_chunks(SEQUENTIAL)
            .map(|c| c.iter().fold(0u32, |a, &b| a.wrapping_add(b)))
            .reduce(|| 0, u32::wrapping_add)
    })?;
    Some(from_word(total))
}

/// How many elements equal `value` (`==`, as the kernels compare).
pub(super) fn count<T: DeviceScalar>(
    input: &ArrayView<'_, T, 1>,
    value: T,
    acc: &Accelerator,
) -> Option<usize> {
    let s = input.data().ok()?;
    native(acc)?.on_native_pool(|| {
        s.par_chunks(SEQUENTIAL)
            .map(|c| c.iter().filter(|&&x| x == value).count())
            .sum()
    })
}

/// The view sorted ascending, integers by value, floats as `total_cmp` orders them (what the
/// radix sort computes); `descending` reverses the order.
pub(super) fn sort<T: DeviceScalar>(
    data: &mut ArrayViewMut<'_, T, 1>,
    descending: bool,
    acc: &Accelerator,
) -> Option<()> {
    let acc = native(acc)?.clone();
    let s = data.data_mut().ok()?;
    acc.on_native_pool(|| {
        match <T as amp_runtime::DeviceElement>::TYPE {
            ScalarType::U32 => words_mut(s).par_sort_unstable(),
            ScalarType::I32 => {
                // `i32` order on the bits: flip the sign bit, sort as `u32`, flip back.
                let w = words_mut(s);
                w.par_iter_mut().for_each(|x| *x ^= 1 << 31);
                w.par_sort_unstable();
                w.par_iter_mut().for_each(|x| *x ^= 1 << 31);
            }
            ScalarType::F32 => {
                // SAFETY: `T` is `f32`.
                let f = unsafe {
                    std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<f32>(), s.len())
                };
                f.par_sort_unstable_by(f32::total_cmp);
            }
            ScalarType::F64 => {
                // SAFETY: `T` is `f64`.
                let f = unsafe {
                    std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<f64>(), s.len())
                };
                f.par_sort_unstable_by(f64::total_cmp);
            }
            // Not a scalar type of `DeviceScalar`: the kernels decide.
            _ => return None,
        }
        if descending {
            s.reverse();
        }
        Some(())
    })?
}

/// Each 32-bit key's place in [`sort`]'s order as a `u32` whose unsigned order is that order
/// (`total_cmp`'s for floats, every bit kept), or `None` for another type.
fn order_keys32<K: DeviceScalar>(s: &[K]) -> Option<Vec<u32>> {
    let flip = |x: u32| if x >> 31 == 1 { !x } else { x | (1 << 31) };
    Some(match <K as amp_runtime::DeviceElement>::TYPE {
        ScalarType::U32 => words(s).to_vec(),
        ScalarType::I32 => words(s).par_iter().map(|&x| x ^ (1 << 31)).collect(),
        ScalarType::F32 => {
            // SAFETY: `K` is `f32`: the size and alignment of `u32`, every bit pattern a `u32`.
            let w = unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u32>(), s.len()) };
            w.par_iter().map(|&x| flip(x)).collect()
        }
        _ => return None,
    })
}

/// The permutation that sorts `s` stably in [`sort`]'s order (`i32`, `u32`, `f32`, `f64`):
/// `order[i]` is the input position of the `i`-th key. Each key's place and its position are
/// sorted together (distinct positions make an unstable sort of the pairs stable): one `u64`
/// per 32-bit key, a pair per `f64`.
fn sorted_positions<K: DeviceScalar>(s: &[K]) -> Option<Vec<u32>> {
    if let Some(places) = order_keys32(s) {
        let mut packed: Vec<u64> = places
            .into_par_iter()
            .enumerate()
            .map(|(i, k)| (u64::from(k) << 32) | i as u64)
            .collect();
        packed.par_sort_unstable();
        return Some(packed.into_par_iter().map(|p| p as u32).collect());
    }
    if <K as amp_runtime::DeviceElement>::TYPE != ScalarType::F64 {
        return None;
    }
    // SAFETY: `K` is `f64`: the size and alignment of `u64`, every bit pattern a `u64`.
    let w = unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u64>(), s.len()) };
    let mut pairs: Vec<(u64, u32)> = w
        .par_iter()
        .enumerate()
        .map(|(i, &x)| (if x >> 63 == 1 { !x } else { x | (1 << 63) }, i as u32))
        .collect();
    pairs.par_sort_unstable();
    Some(pairs.into_par_iter().map(|(_, i)| i).collect())
}

/// `keys` sorted as [`sort`] orders them and `values` moved with them, stably (equal keys keep
/// their values' input order): the sorting permutation ([`sorted_positions`]), then both
/// views gathered through it.
pub(super) fn sort_by_key<K: DeviceScalar, V: DeviceScalar>(
    keys: &mut ArrayViewMut<'_, K, 1>,
    values: &mut ArrayViewMut<'_, V, 1>,
    acc: &Accelerator,
) -> Option<()> {
    let acc = native(acc)?.clone();
    let ks = keys.data_mut().ok()?;
    let vs = values.data_mut().ok()?;
    if ks.len() > u32::MAX as usize {
        return None;
    }
    acc.on_native_pool(|| {
        let order = sorted_positions(ks)?;
        let sorted_keys: Vec<K> = order.par_iter().map(|&i| ks[i as usize]).collect();
        let sorted_values: Vec<V> = order.par_iter().map(|&i| vs[i as usize]).collect();
        ks.copy_from_slice(&sorted_keys);
        vs.copy_from_slice(&sorted_values);
        Some(())
    })?
}

/// The inclusive or (`exclusive`) exclusive wrapping prefix sum of an integer view into
/// `output`: per chunk a total, the chunks' offsets from the totals, then each chunk's scan.
/// A float view's scan is the kernels' twin (float_scan.rs).
pub(super) fn scan<T: DeviceScalar>(
    input: &ArrayView<'_, T, 1>,
    output: &mut ArrayViewMut<'_, T, 1>,
    exclusive: bool,
    acc: &Accelerator,
) -> Option<()> {
    let acc = native(acc)?.clone();
    if !is_int::<T>() {
        let (a, out) = (input.data().ok()?, output.data_mut().ok()?);
        return acc.on_native_pool(|| super::float_scan::scan(a, out, exclusive));
    }
    let a = words(input.data().ok()?);
    let out = words_mut(output.data_mut().ok()?);
    acc.on_native_pool(|| {
        let chunk = piece_len(a.len());
        let totals: Vec<u32> = a
            .par_chunks(chunk)
            .map(|c| c.iter().fold(0u32, |x, &y| x.wrapping_add(y)))
            .collect();
        let mut offsets = Vec::with_capacity(totals.len());
        let mut running = 0u32;
        for t in &totals {
            offsets.push(running);
            running = running.wrapping_add(*t);
        }
        a.par_chunks(chunk)
            .zip(out.par_chunks_mut(chunk))
            .zip(offsets.par_iter())
            .for_each(|((src, dst), &start)| {
                let mut acc = start;
                for (x, y) in src.iter().zip(dst) {
                    if exclusive {
                        *y = acc;
                        acc = acc.wrapping_add(*x);
                    } else {
                        acc = acc.wrapping_add(*x);
                        *y = acc;
                    }
                }
            });
    })
}

/// The run starts of `input` (elements unequal, by `==`, to the one before) copied to the
/// front of `out`, and how many; `Err(kept)` when `out` is shorter than that (nothing is written
/// then). In chunks: each counts its run starts, the counts give each chunk's place, and each
/// copies its own.
pub(super) fn unique<T: DeviceScalar>(
    input: &ArrayView<'_, T, 1>,
    out: &mut ArrayViewMut<'_, T, 1>,
    acc: &Accelerator,
) -> Option<Result<usize, usize>> {
    let acc = native(acc)?.clone();
    let s = input.data().ok()?;
    let o = out.data_mut().ok()?;
    // Whether element `i` starts a run.
    let starts = |i: usize| i == 0 || s[i] != s[i - 1];
    acc.on_native_pool(|| {
        let chunk = piece_len(s.len());
        let bounds: Vec<(usize, usize)> = (0..s.len())
            .step_by(chunk)
            .map(|lo| (lo, (lo + chunk).min(s.len())))
            .collect();
        let counts: Vec<usize> = bounds
            .par_iter()
            .map(|&(lo, hi)| (lo..hi).filter(|&i| starts(i)).count())
            .collect();
        let kept: usize = counts.iter().sum();
        if kept > o.len() {
            return Err(kept);
        }
        // Each chunk's part of `out`, split off in order.
        let mut parts = Vec::with_capacity(counts.len());
        let mut rest = &mut o[..kept];
        for &c in &counts {
            let (part, tail) = rest.split_at_mut(c);
            parts.push(part);
            rest = tail;
        }
        bounds
            .par_iter()
            .zip(parts.into_par_iter())
            .for_each(|(&(lo, hi), part)| {
                let mut k = 0;
                for (i, &x) in s.iter().enumerate().take(hi).skip(lo) {
                    if starts(i) {
                        part[k] = x;
                        k += 1;
                    }
                }
            });
        Ok(kept)
    })
}

/// `a` and `b` (ascending by `<`) merged into `out`, stably: an element of `b` goes first only
/// when it is less than the element of `a` (as the kernels place them). The output is cut into
/// pieces; each finds where its inputs start by binary search (the merge path) and merges them.
pub(super) fn merge<T: DeviceScalar>(
    a: &ArrayView<'_, T, 1>,
    b: &ArrayView<'_, T, 1>,
    out: &mut ArrayViewMut<'_, T, 1>,
    acc: &Accelerator,
) -> Option<()> {
    let acc = native(acc)?.clone();
    let (a, b) = (a.data().ok()?, b.data().ok()?);
    let o = out.data_mut().ok()?;
    let (n, m) = (a.len(), b.len());
    // How many of the first `k` outputs come from `a`.
    let split = |k: usize| {
        let (mut lo, mut hi) = (k.saturating_sub(m), k.min(n));
        while lo < hi {
            let i = (lo + hi) / 2;
            let j = k - i;
            // `a[i]` goes before `b[j - 1]`: more of the first `k` come from `a`.
            let b_before = j > 0 && i < n && b[j - 1].partial_cmp(&a[i]) == Some(Less);
            if j > 0 && i < n && !b_before {
                lo = i + 1;
            } else {
                hi = i;
            }
        }
        lo
    };
    acc.on_native_pool(|| {
        let piece = piece_len(o.len());
        o.par_chunks_mut(piece).enumerate().for_each(|(p, dst)| {
            let k = p * piece;
            let (mut i, mut j) = (split(k), 0);
            j += k - i;
            for slot in dst.iter_mut() {
                let take_b = j < m && (i == n || b[j] < a[i]);
                if take_b {
                    *slot = b[j];
                    j += 1;
                } else {
                    *slot = a[i];
                    i += 1;
                }
            }
        });
    })
}
