//! The histogram: `tile_static` atomics merged into the bins.

use amp::prelude::*;
use amp::KernelArg;
use rayon::prelude::*;

use super::{Ctx, Workload};
use crate::glsl::{fold, push, raw, GLSL_T256, G_HISTOGRAM};
use crate::kernels::{histogram, RT};
use crate::report::{check, count, workload_row, Diagnostic, Work};
use crate::BoxError;

/// The histogram.
pub struct Histogram;

impl Workload for Histogram {
    fn section(&self) -> &'static str {
        "histogram"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        histogram_workload(ctx)
    }
}

fn histogram_workload(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = ctx.cfg.n();
    let acc = ctx.acc.clone();
    let tiles = n / RT;
    let xs: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 9)
        .collect();
    let data = Array::from_slice([n], &xs)?;
    let mut b_amp = Array::<u32, 1>::new([256])?;
    let mut b_glsl = Array::<u32, 1>::new([256])?;
    let zeros = [0u32; 256];
    let k = raw(
        &acc,
        "histogram",
        &format!("{GLSL_T256}{G_HISTOGRAM}"),
        2,
        4,
    )?;
    let pc = push(&[tiles as u32]);
    let (t_amp, t_glsl) = ctx.time_pair(
        || {
            b_amp.copy_from_slice(&zeros)?;
            Ok(parallel_for_each(
                Extent::new([n]).tile::<RT>(),
                // SAFETY: the kernel indexes only inside its views over this extent.
                unsafe { histogram(&data, &mut b_amp) },
            )?)
        },
        || {
            b_glsl.copy_from_slice(&zeros)?;
            Ok(k.dispatch(
                fold(&acc, tiles),
                vec![KernelArg::read(&data), KernelArg::write(&mut b_glsl)],
                &pc,
            )?)
        },
    )?;
    let mut cpu = vec![0u32; 256];
    let t_cpu = ctx.time(|| {
        cpu = xs
            .par_chunks(1 << 16)
            .fold(
                || vec![0u32; 256],
                |mut h, c| {
                    for x in c {
                        h[(x % 256) as usize] += 1;
                    }
                    h
                },
            )
            .reduce(
                || vec![0u32; 256],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        Ok(())
    })?;
    let native = ctx.native.clone();
    let n_data = Array::from_slice_on(&native, [n], &xs)?;
    let mut n_bins = Array::<u32, 1>::new_on(&native, [256])?;
    let t_native = ctx.time_native(|| {
        n_bins.copy_from_slice(&zeros)?;
        Ok(parallel_for_each_on(
            &native,
            Extent::new([n]).tile::<RT>(),
            // SAFETY: the kernel indexes only inside its views over this extent.
            unsafe { histogram(&n_data, &mut n_bins) },
        )?)
    })?;
    ctx.check_native("histogram", &t_native, || Ok(n_bins.to_vec()?), &cpu)?;
    ctx.push_row(workload_row(
        "histogram, 256 bins (tile_static atomics + merge)",
        format!("{} u32", count(n)),
        Work::Bytes(4.0 * n as f64),
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    if let (Ok(t_native), None) = (&t_native, &ctx.cfg.count) {
        // The kernel's algorithm in plain Rust: per 256-element tile, local bins then one
        // atomic add per bin into the shared bins; once with atomic local bins (what the
        // kernel's `atomic_fetch_add` on `tile_static` memory asks for), once with plain ones
        // (enough when a tile's threads run on one OS thread, as natively).
        use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
        let emulate = |atomic_local: bool| {
            let bins: Vec<AtomicU32> = (0..256).map(|_| AtomicU32::new(0)).collect();
            xs.par_chunks(RT).for_each(|tile| {
                let mut local = [0u32; RT];
                if atomic_local {
                    let local: [AtomicU32; RT] = std::array::from_fn(|_| AtomicU32::new(0));
                    for &x in tile {
                        local[(x % 256) as usize].fetch_add(1, Relaxed);
                    }
                    for (b, l) in bins.iter().zip(&local) {
                        let l = l.load(Relaxed);
                        if l > 0 {
                            b.fetch_add(l, Relaxed);
                        }
                    }
                } else {
                    for &x in tile {
                        local[(x % 256) as usize] += 1;
                    }
                    for (b, &l) in bins.iter().zip(&local) {
                        if l > 0 {
                            b.fetch_add(l, Relaxed);
                        }
                    }
                }
            });
            bins.iter().map(|b| b.load(Relaxed)).collect::<Vec<u32>>()
        };
        let mut got = (Vec::new(), Vec::new());
        let t_atomic = ctx.time(|| {
            got.0 = emulate(true);
            Ok(())
        })?;
        let t_plain = ctx.time(|| {
            got.1 = emulate(false);
            Ok(())
        })?;
        ctx.checks.push(check(
            "histogram, the kernel's algorithm in plain Rust (atomic / plain local bins)",
            &got.0,
            &got.1,
            &cpu,
        ));
        let name = "histogram, 256 bins (tile_static atomics + merge)";
        let size = format!("{} u32", count(n));
        let d = |variant: &str, secs| Diagnostic {
            workload: name.into(),
            size: size.clone(),
            variant: variant.into(),
            secs,
        };
        ctx.diagnostics
            .push(d("the kernel natively (`unchecked`)", *t_native));
        ctx.diagnostics.push(d(
            "the kernel's algorithm in plain Rust, atomic local bins (rayon over tiles)",
            t_atomic,
        ));
        ctx.diagnostics.push(d(
            "the kernel's algorithm in plain Rust, plain local bins (rayon over tiles)",
            t_plain,
        ));
        ctx.diagnostics.push(d(
            "the CPU column: rayon fold of per-chunk bins over 64K-element chunks",
            t_cpu,
        ));
    }
    ctx.checks.push(check(
        "histogram",
        &b_amp.to_vec()?,
        &b_glsl.to_vec()?,
        &cpu,
    ));
    Ok(())
}
