//! The `amp::algorithms` rows: sum, scan and sort of 16M elements through the library, with
//! rayon's equivalents in the CPU column (`par_iter().sum()`, a two-pass chunked scan,
//! `par_sort_unstable`). The library's kernels have no hand-written GLSL twin here; the
//! bandwidth of sum and scan is compared with the vector-add row's in docs/performance.md.
//! The native column runs the same calls over arrays on the native CPU accelerator.

use amp::algorithms;
use amp::prelude::*;
use rayon::prelude::*;

mod with_fn;

use super::scan::cpu_exclusive_scan;
use super::{Ctx, Workload};
use crate::report::{check, check_native, count, native_cell, timed, Cell, Native, Row, Work};
use crate::BoxError;

/// The `amp::algorithms` rows.
pub struct Algorithms;

impl Workload for Algorithms {
    fn section(&self) -> &'static str {
        "algorithms"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        algorithms_rows(ctx)
    }
}

fn row(name: &str, size: String, work: Work, amp: f64, cpu: f64, native: &Native) -> Row {
    Row {
        name: name.into(),
        size,
        amp: timed(amp, work),
        glsl: Cell::None,
        cpu: timed(cpu, work),
        native: native_cell(native, Some(work)),
    }
}

pub fn algorithms_rows(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = ctx.cfg.n();
    let size = |ty: &str| format!("{} {ty}", count(n));

    let ints: Vec<i32> = (0..n).map(|i| (i * 7 % 1000) as i32 - 500).collect();
    let (got, want, native) = sum_row(ctx, &ints, "i32", |v| {
        v.par_iter().copied().reduce(|| 0, i32::wrapping_add)
    })?;
    ctx.checks
        .push(check("algorithms::sum i32", &[got], &[got], &[want]));
    if let Some(native) = native {
        ctx.checks
            .push(check_native("algorithms::sum i32", &[native], &[want]));
    }

    let floats: Vec<f32> = (0..n).map(|i| (i % 8) as f32).collect();
    let (got, want, native) = sum_row(ctx, &floats, "f32", |v| v.par_iter().sum::<f32>())?;
    // The total (about 3.5 n) is past f32's exact integers, and the two sums add in different
    // orders: they agree within rounding.
    let close = ((got - want) / want).abs() < 1e-6;
    ctx.checks.push(check(
        "algorithms::sum f32 (relative 1e-6)",
        &[close],
        &[close],
        &[true],
    ));
    if let Some(native) = native {
        let close = ((native - want) / want).abs() < 1e-6;
        ctx.checks.push(check_native(
            "algorithms::sum f32 (relative 1e-6)",
            &[close],
            &[true],
        ));
    }

    let xs: Vec<u32> = (0..n).map(|i| (i * 7 % 5) as u32).collect();
    let mut cpu = vec![0u32; n];
    let t_cpu = ctx.time(|| {
        cpu_exclusive_scan(&xs, &mut cpu);
        Ok(())
    })?;
    let (input, mut out) = scan_row(
        ctx,
        "amp::algorithms::exclusive_scan",
        "algorithms::exclusive_scan",
        size("u32"),
        &xs,
        &cpu,
        t_cpu,
    )?;

    // The single pass in both layouts, whichever the device's default: blocks copied through
    // `tile_static` memory (coalesced, a GPU's choice) or each thread's run read in place (a
    // CPU device's). One GPU run of these rows settles the choice.
    for (staged, layout) in [
        (true, "staged through tile_static"),
        (false, "runs read in place"),
    ] {
        let scan = |input: &Array<u32, 1>, out: &mut Array<u32, 1>| {
            algorithms::__single_pass_scan(
                &input.view(),
                &mut out.view_mut(),
                true,
                64,
                Some(staged),
            )
        };
        let t_amp = ctx.time_amp(|| Ok(scan(&input, &mut out)?))?;
        // Natively the library scans integers on the host: these kernels are a device's.
        let t_native: Native = Err("the native accelerator scans integers as plain Rust".into());
        let name = format!("exclusive_scan u32, single pass, blocks {layout}");
        ctx.push_row(row(
            &name,
            size("u32"),
            Work::Bytes(8.0 * n as f64),
            t_amp,
            t_cpu,
            &t_native,
        ));
        let got = out.to_vec()?;
        ctx.checks.push(check(&name, &got, &got, &cpu));
    }

    // The same scan of f32 values: floats take reduce-then-scan (a fixed grouping of the
    // additions), so beside the u32 row (the single pass) this is the two designs' A/B on
    // 4-byte elements. One element in 32 is 1, the rest 0: every prefix (at most n / 32,
    // 8M at 256M elements) is an integer below 2^24, exact in f32 in any order.
    let fs: Vec<f32> = (0..n).map(|i| (i % 32 == 0) as u32 as f32).collect();
    let cpu_f: Vec<f32> = (0..n).map(|i| i.div_ceil(32) as f32).collect();
    scan_row(
        ctx,
        "amp::algorithms::exclusive_scan (f32: reduce-then-scan)",
        "algorithms::exclusive_scan f32",
        size("f32"),
        &fs,
        &cpu_f,
        t_cpu,
    )?;

    // Sorts: each run sorts a fresh copy (a device-to-device copy, timed with it).
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let keys: Vec<u32> = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 16) as u32
        })
        .collect();
    let t_cpu = sort_row(ctx, &keys, "u32", |v| v.par_sort_unstable(), |x| *x)?;
    // On CPU devices the full run leaves the designs to `algorithms_probe sort` (Onesweep
    // takes over 20 s a sort on lavapipe); the smoke run and the GPU profile time both.
    if ctx.cfg.tiny || ctx.cfg.gpu || !ctx.acc.is_emulated() {
        sort_method_rows(ctx, &keys, t_cpu)?;
    }
    let fkeys: Vec<f32> = keys.iter().map(|&k| (k as f32 - 2e9) * 1e-3).collect();
    sort_row(
        ctx,
        &fkeys,
        "f32",
        |v| v.par_sort_unstable_by(f32::total_cmp),
        |x| x.to_bits(),
    )?;
    search_and_count_rows(ctx, &keys)?;
    with_fn::user_fn_rows(ctx, &keys)?;
    Ok(())
}

/// The `exclusive_scan` row of `xs` on the default and the native accelerator, beside the CPU
/// column's `t_cpu`, with its checks against `want`; returns the default accelerator's input
/// and output arrays for the variants timed after it.
fn scan_row<T: DeviceScalar + std::fmt::Debug>(
    ctx: &mut Ctx<'_>,
    name: &str,
    check_name: &str,
    size: String,
    xs: &[T],
    want: &[T],
    t_cpu: f64,
) -> Result<(Array<T, 1>, Array<T, 1>), BoxError> {
    let n = xs.len();
    let input = Array::from_slice([n], xs)?;
    let mut out = Array::<T, 1>::new([n])?;
    let t_amp = ctx.time_amp(|| {
        algorithms::exclusive_scan(&input.view(), &mut out.view_mut())?;
        Ok(())
    })?;
    let native = ctx.native.clone();
    let n_input = Array::from_slice_on(&native, [n], xs)?;
    let mut n_out = Array::<T, 1>::new_on(&native, [n])?;
    let t_native = ctx.time_native(|| {
        algorithms::exclusive_scan(&n_input.view(), &mut n_out.view_mut())?;
        Ok(())
    })?;
    ctx.push_row(row(
        name,
        size,
        Work::Bytes(8.0 * n as f64),
        t_amp,
        t_cpu,
        &t_native,
    ));
    let got = out.to_vec()?;
    ctx.checks.push(check(check_name, &got, &got, want));
    ctx.check_native(check_name, &t_native, || Ok(n_out.to_vec()?), want)?;
    Ok((input, out))
}

/// A row of one algorithm run by `amp_run` on `acc` (the default accelerator, then the native
/// one), beside `cpu_run` (rayon or a plain loop), each returning what the check compares.
fn algorithm_row<T: PartialEq + std::fmt::Debug>(
    ctx: &mut Ctx<'_>,
    name: &str,
    size: String,
    work: Work,
    amp_run: impl Fn(&Accelerator) -> Result<Vec<T>, BoxError>,
    cpu_run: impl Fn() -> Vec<T>,
) -> Result<(), BoxError> {
    let acc = Accelerator::default()?;
    let mut got = Vec::new();
    let t_amp = ctx.time_amp(|| {
        got = amp_run(&acc)?;
        Ok(())
    })?;
    let mut want = Vec::new();
    let t_cpu = ctx.time(|| {
        want = cpu_run();
        Ok(())
    })?;
    let native = ctx.native.clone();
    let mut n_got = Vec::new();
    let t_native = ctx.time_native(|| {
        n_got = amp_run(&native)?;
        Ok(())
    })?;
    ctx.push_row(row(name, size, work, t_amp, t_cpu, &t_native));
    ctx.checks.push(check(name, &got, &got, &want));
    ctx.check_native(name, &t_native, || Ok(n_got), &want)?;
    Ok(())
}

/// `count`, `histogram`, `lower_bound`, `unique` and `merge` over arrays of `keys` (on each
/// accelerator, uploaded once, outside the timing), beside rayon's or a plain loop's answer.
fn search_and_count_rows(ctx: &mut Ctx<'_>, keys: &[u32]) -> Result<(), BoxError> {
    let n = keys.len();
    let small: Vec<u32> = keys.iter().map(|k| k % 1000).collect();
    let mut sorted = small.clone();
    sorted.par_sort_unstable();
    let queries: Vec<u32> = keys.iter().take(n / 16).map(|k| k % 1100).collect();
    let on = |acc: &Accelerator, data: &[u32]| Array::from_slice_on(acc, [data.len()], data);
    let arrays = |acc: &Accelerator| -> Result<[Array<u32, 1>; 3], BoxError> {
        Ok([on(acc, &small)?, on(acc, &sorted)?, on(acc, &queries)?])
    };
    let (default, native) = (
        arrays(&Accelerator::default()?)?,
        arrays(&ctx.native.clone())?,
    );
    let pick = |acc: &Accelerator| if acc.is_native() { &native } else { &default };

    algorithm_row(
        ctx,
        "amp::algorithms::count",
        format!("{} u32", count(n)),
        Work::Bytes(4.0 * n as f64),
        |acc| Ok(vec![algorithms::count(&pick(acc)[0].view(), 7)? as u64]),
        || vec![small.par_iter().filter(|&&x| x == 7).count() as u64],
    )?;
    algorithm_row(
        ctx,
        "amp::algorithms::histogram (256 bins)",
        format!("{} u32", count(n)),
        Work::Bytes(4.0 * n as f64),
        |acc| {
            let h = algorithms::histogram(&pick(acc)[0].view(), 256, 0, 1000)?;
            Ok(h.into_iter().map(u64::from).collect())
        },
        || {
            small
                .par_iter()
                .fold(
                    || vec![0u64; 256],
                    |mut h, &x| {
                        h[(x as usize * 256) / 1000] += 1;
                        h
                    },
                )
                .reduce(
                    || vec![0u64; 256],
                    |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect(),
                )
        },
    )?;
    let m = queries.len();
    algorithm_row(
        ctx,
        "amp::algorithms::lower_bound",
        format!("{} queries into {} u32", count(m), count(n)),
        Work::Bytes(8.0 * m as f64),
        |acc| {
            let [_, s, q] = pick(acc);
            let mut out = Array::<u32, 1>::new_on(acc, [m])?;
            algorithms::lower_bound(&s.view(), &q.view(), &mut out.view_mut())?;
            Ok(out.to_vec()?.into_iter().map(u64::from).collect())
        },
        || {
            queries
                .par_iter()
                .map(|&q| sorted.partition_point(|&x| x < q) as u64)
                .collect()
        },
    )?;
    algorithm_row(
        ctx,
        "amp::algorithms::unique (sorted input)",
        format!("{} u32", count(n)),
        Work::Bytes(8.0 * n as f64),
        |acc| {
            let mut out = Array::<u32, 1>::new_on(acc, [n])?;
            let kept = algorithms::unique(&pick(acc)[1].view(), &mut out.view_mut())?;
            // Only the kept elements come back, as `dedup` keeps only them.
            let kept = out.view().section([0], [kept])?.to_vec()?;
            Ok(kept.into_iter().map(u64::from).collect())
        },
        || {
            let mut v = sorted.clone();
            v.dedup();
            v.into_iter().map(u64::from).collect()
        },
    )?;
    merge_row(ctx, &sorted, [&default[1], &native[1]])
}

/// `merge` of the two sorted halves of `sorted` (uploaded as `arrays`, on the default and
/// the native accelerator) into an output made before the timing, beside a sequential merge
/// into a `Vec` made before it too (rayon has no merge): what both columns time is the merge,
/// not an allocation of the output or a read of it, which the checks do afterwards.
fn merge_row(
    ctx: &mut Ctx<'_>,
    sorted: &[u32],
    arrays: [&Array<u32, 1>; 2],
) -> Result<(), BoxError> {
    let name = "amp::algorithms::merge (two sorted halves, into an existing output)";
    let half = sorted.len() / 2;
    let merge_on = |s: &Array<u32, 1>, out: &mut Array<u32, 1>| -> Result<(), BoxError> {
        let a = s.view().section([0], [half])?;
        let b = s.view().section([half], [half])?;
        algorithms::merge(&a, &b, &mut out.view_mut())?;
        Ok(())
    };
    let mut out = Array::<u32, 1>::new([2 * half])?;
    let t_amp = ctx.time_amp(|| merge_on(arrays[0], &mut out))?;
    let (a, b) = (&sorted[..half], &sorted[half..2 * half]);
    let mut want = vec![0u32; 2 * half];
    let t_cpu = ctx.time(|| {
        let (mut i, mut j) = (0, 0);
        for slot in want.iter_mut() {
            if j < half && (i == half || b[j] < a[i]) {
                *slot = b[j];
                j += 1;
            } else {
                *slot = a[i];
                i += 1;
            }
        }
        Ok(())
    })?;
    let mut n_out = Array::<u32, 1>::new_on(&ctx.native.clone(), [2 * half])?;
    let t_native = ctx.time_native(|| merge_on(arrays[1], &mut n_out))?;
    let work = Work::Bytes(8.0 * 2.0 * half as f64);
    ctx.push_row(row(
        name,
        format!("2 x {} u32", count(half)),
        work,
        t_amp,
        t_cpu,
        &t_native,
    ));
    let got = out.to_vec()?;
    ctx.checks.push(check(name, &got, &got, &want));
    ctx.check_native(name, &t_native, || Ok(n_out.to_vec()?), &want)?;
    Ok(())
}

/// The sort's two designs on the device, whichever its default: Onesweep (4 passes of 8-bit
/// digits, each one read and one write of the keys) and the 4-bit passes (8 passes of a
/// count, a scan and a scatter). One GPU run of these rows settles the choice.
fn sort_method_rows(ctx: &mut Ctx<'_>, keys: &[u32], t_cpu: f64) -> Result<(), BoxError> {
    let n = keys.len();
    let source = Array::from_slice([n], keys)?;
    let mut work = Array::<u32, 1>::new([n])?;
    let mut want = keys.to_vec();
    want.par_sort_unstable();
    for (method, design) in [
        (
            algorithms::__SortMethod::Onesweep { polls: 64 },
            "Onesweep, 4 passes of 8-bit digits",
        ),
        (
            algorithms::__SortMethod::FourBit,
            "8 passes of 4-bit digits",
        ),
    ] {
        let t_amp = ctx.time_amp(|| {
            amp::copy(&source, &mut work)?;
            algorithms::__sort_with(&mut work.view_mut(), method)?;
            Ok(())
        })?;
        // Natively the library sorts 32-bit keys on the host: these kernels are a device's.
        let t_native: Native = Err("the native accelerator sorts 32-bit keys as plain Rust".into());
        let name = format!("amp::algorithms::sort (radix), {design}");
        ctx.push_row(row(
            &name,
            format!("{} u32", count(n)),
            Work::Bytes(4.0 * n as f64),
            t_amp,
            t_cpu,
            &t_native,
        ));
        let got = work.to_vec()?;
        ctx.checks.push(check(&name, &got, &got, &want));
    }
    Ok(())
}

/// The row of `amp::algorithms::sort` on `keys` beside `cpu_sort`, compared by `bits`; returns
/// the CPU column's time.
fn sort_row<T: DeviceScalar>(
    ctx: &mut Ctx<'_>,
    keys: &[T],
    ty: &str,
    cpu_sort: impl Fn(&mut [T]),
    bits: impl Fn(&T) -> u32,
) -> Result<f64, BoxError> {
    let n = keys.len();
    let source = Array::from_slice([n], keys)?;
    let mut work = Array::<T, 1>::new([n])?;
    let t_amp = ctx.time_amp(|| {
        amp::copy(&source, &mut work)?;
        algorithms::sort(&mut work.view_mut())?;
        Ok(())
    })?;
    let mut cpu = keys.to_vec();
    let t_cpu = ctx.time(|| {
        cpu.copy_from_slice(keys);
        cpu_sort(&mut cpu);
        Ok(())
    })?;
    let native = ctx.native.clone();
    let n_source = Array::from_slice_on(&native, [n], keys)?;
    let mut n_work = Array::<T, 1>::new_on(&native, [n])?;
    let t_native = ctx.time_native(|| {
        amp::copy(&n_source, &mut n_work)?;
        algorithms::sort(&mut n_work.view_mut())?;
        Ok(())
    })?;
    ctx.push_row(row(
        "amp::algorithms::sort (radix)",
        format!("{} {ty}", count(n)),
        Work::Bytes(4.0 * n as f64),
        t_amp,
        t_cpu,
        &t_native,
    ));
    let got: Vec<u32> = work.to_vec()?.iter().map(&bits).collect();
    let cpu: Vec<u32> = cpu.iter().map(&bits).collect();
    ctx.checks
        .push(check(&format!("algorithms::sort {ty}"), &got, &got, &cpu));
    ctx.check_native(
        &format!("algorithms::sort {ty}"),
        &t_native,
        || Ok(n_work.to_vec()?.iter().map(&bits).collect()),
        &cpu,
    )?;
    Ok(t_cpu)
}

/// The row of `amp::algorithms::sum` over `data` beside `cpu_sum`; the amp result, the CPU's
/// and the native one (when the native accelerator ran it).
fn sum_row<T: DeviceScalar>(
    ctx: &mut Ctx<'_>,
    data: &[T],
    ty: &str,
    cpu_sum: impl Fn(&[T]) -> T,
) -> Result<(T, T, Option<T>), BoxError> {
    let n = data.len();
    let array = Array::from_slice([n], data)?;
    let mut got = T::ZERO;
    let t_amp = ctx.time_amp(|| {
        got = algorithms::sum(&array.view())?;
        Ok(())
    })?;
    let mut want = T::ZERO;
    let t_cpu = ctx.time(|| {
        want = cpu_sum(data);
        Ok(())
    })?;
    let n_array = Array::from_slice_on(&ctx.native, [n], data)?;
    let mut n_got = T::ZERO;
    let t_native = ctx.time_native(|| {
        n_got = algorithms::sum(&n_array.view())?;
        Ok(())
    })?;
    ctx.push_row(row(
        "amp::algorithms::sum",
        format!("{} {ty}", count(n)),
        Work::Bytes(4.0 * n as f64),
        t_amp,
        t_cpu,
        &t_native,
    ));
    Ok((got, want, t_native.is_ok().then_some(n_got)))
}
