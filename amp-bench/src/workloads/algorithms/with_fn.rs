//! The rows of the `amp::algorithms` macros that take a user's `#[amp::device]` function:
//! `reduce!` with a non-commutative operator, `copy_if!`, `partition!` and `reduce_by_key!`, beside the same
//! jobs in rayon (`par_iter` with the same closures; a chunked parallel `reduce_by_key`).

use amp::algorithms;
use amp::prelude::*;
use rayon::prelude::*;

use super::algorithm_row;
use crate::context::Ctx;
use crate::report::{count, Work};
use crate::BoxError;

/// The larger magnitude, the first of equal ones: associative, not commutative.
#[amp::device]
fn max_abs(a: f32, b: f32) -> f32 {
    if a.abs() >= b.abs() {
        a
    } else {
        b
    }
}

/// Whether `x` ends in the decimal digit 7 (about one key in ten).
#[amp::device]
fn ends_in_seven(x: u32) -> bool {
    x % 10 == 7
}

/// Wrapping `u32` sum.
#[amp::device]
fn add(a: u32, b: u32) -> u32 {
    a + b
}

/// The rows, over `keys` (random `u32`s).
pub(super) fn user_fn_rows(ctx: &mut Ctx<'_>, keys: &[u32]) -> Result<(), BoxError> {
    let n = keys.len();
    let floats: Vec<f32> = keys.iter().map(|&k| (k % 2001) as f32 - 1000.0).collect();
    // Runs of equal keys, 32 long on average: a new key where a random key is 0 mod 32.
    let run_keys: Vec<u32> = keys
        .iter()
        .scan(0u32, |key, &k| {
            *key += u32::from(k % 32 == 0);
            Some(*key)
        })
        .collect();
    let small: Vec<u32> = keys.iter().map(|k| k % 1000).collect();
    type Arrays = (Array<f32, 1>, Array<u32, 1>, Array<u32, 1>, Array<u32, 1>);
    let arrays = |acc: &Accelerator| -> Result<Arrays, BoxError> {
        Ok((
            Array::from_slice_on(acc, [n], &floats)?,
            Array::from_slice_on(acc, [n], keys)?,
            Array::from_slice_on(acc, [n], &run_keys)?,
            Array::from_slice_on(acc, [n], &small)?,
        ))
    };
    let (default, native) = (
        arrays(&Accelerator::default()?)?,
        arrays(&ctx.native.clone())?,
    );
    let pick = |acc: &Accelerator| if acc.is_native() { &native } else { &default };

    algorithm_row(
        ctx,
        "amp::algorithms::reduce! (max_abs)",
        format!("{} f32", count(n)),
        Work::Bytes(4.0 * n as f64),
        |acc| {
            let r = algorithms::reduce!(f32, &pick(acc).0.view(), 0.0, max_abs)?;
            Ok(vec![u64::from(r.to_bits())])
        },
        || {
            let r = floats
                .par_iter()
                .copied()
                .reduce(|| 0.0, |a, b| if a.abs() >= b.abs() { a } else { b });
            vec![u64::from(r.to_bits())]
        },
    )?;
    algorithm_row(
        ctx,
        "amp::algorithms::copy_if! (x % 10 == 7)",
        format!("{} u32", count(n)),
        Work::Bytes(4.0 * n as f64),
        |acc| {
            let mut out = Array::<u32, 1>::new_on(acc, [n])?;
            let kept =
                algorithms::copy_if!(u32, &pick(acc).1.view(), &mut out.view_mut(), ends_in_seven)?;
            let kept = out.view().section([0], [kept])?.to_vec()?;
            Ok(kept)
        },
        || keys.par_iter().filter(|&&x| x % 10 == 7).copied().collect(),
    )?;
    algorithm_row(
        ctx,
        "amp::algorithms::partition! (x % 10 == 7 first)",
        format!("{} u32", count(n)),
        Work::Bytes(8.0 * n as f64),
        |acc| {
            let mut out = Array::<u32, 1>::new_on(acc, [n])?;
            let first = algorithms::partition!(
                u32,
                &pick(acc).1.view(),
                &mut out.view_mut(),
                ends_in_seven
            )?;
            Ok(vec![first as u64, order_digest(&out.to_vec()?)])
        },
        || {
            let (mut first, rest): (Vec<u32>, Vec<u32>) =
                keys.par_iter().partition(|&&x| x % 10 == 7);
            let selected = first.len() as u64;
            first.extend(rest);
            vec![selected, order_digest(&first)]
        },
    )?;
    algorithm_row(
        ctx,
        "amp::algorithms::reduce_by_key! (runs of 32 on average)",
        format!("{} u32 + u32", count(n)),
        Work::Bytes(8.0 * n as f64),
        |acc| {
            let (_, _, k, v) = pick(acc);
            let mut ko = Array::<u32, 1>::new_on(acc, [n])?;
            let mut vo = Array::<u32, 1>::new_on(acc, [n])?;
            let runs = algorithms::reduce_by_key!(
                u32,
                u32,
                &k.view(),
                &v.view(),
                &mut ko.view_mut(),
                &mut vo.view_mut(),
                add
            )?;
            let ko = ko.view().section([0], [runs])?.to_vec()?;
            let vo = vo.view().section([0], [runs])?.to_vec()?;
            Ok(ko.into_iter().chain(vo).map(u64::from).collect())
        },
        || cpu_reduce_by_key(&run_keys, &small),
    )?;
    Ok(())
}

/// A digest of `data` that changes when an element changes or two elements swap places
/// (`sum of data[i] * (i + 1)`, wrapping): compares a partition's 16M elements without
/// widening each into the check's `u64`s inside the timing.
fn order_digest(data: &[u32]) -> u64 {
    data.iter().enumerate().fold(0u64, |d, (i, &x)| {
        d.wrapping_add(u64::from(x).wrapping_mul(i as u64 + 1))
    })
}

/// `reduce_by_key` with a wrapping sum in rayon: the runs of each chunk in parallel, then the
/// runs that cross chunk ends joined in order. The keys, then the sums, as `u64`s.
fn cpu_reduce_by_key(keys: &[u32], values: &[u32]) -> Vec<u64> {
    let chunk = keys
        .len()
        .div_ceil(4 * rayon::current_num_threads())
        .max(1 << 14);
    let parts: Vec<Vec<(u32, u32)>> = keys
        .par_chunks(chunk)
        .zip(values.par_chunks(chunk))
        .map(|(k, v)| {
            let mut runs: Vec<(u32, u32)> = Vec::new();
            for (&key, &value) in k.iter().zip(v) {
                match runs.last_mut() {
                    Some((last, sum)) if *last == key => *sum = sum.wrapping_add(value),
                    _ => runs.push((key, value)),
                }
            }
            runs
        })
        .collect();
    let mut runs: Vec<(u32, u32)> = Vec::with_capacity(keys.len() / 16);
    for part in parts {
        let mut part = part.into_iter();
        if let (Some((last, sum)), Some((key, value))) = (runs.last_mut(), part.as_slice().first())
        {
            if *last == *key {
                *sum = sum.wrapping_add(*value);
                part.next();
            }
        }
        runs.extend(part);
    }
    let (k, v): (Vec<u64>, Vec<u64>) = runs
        .into_iter()
        .map(|(k, v)| (u64::from(k), u64::from(v)))
        .unzip();
    k.into_iter().chain(v).collect()
}
