//! The matrix products: simple, tiled, and the register-tiled kernel of `examples/matmul.rs`.

use amp::prelude::*;
use amp::KernelArg;
use rayon::prelude::*;

use super::{Ctx, Workload};
use crate::glsl::{fold, push, raw, GLSL_1D, G_MM_SIMPLE, G_MM_TILED};
use crate::kernels::{mm_simple, mm_tiled, TS};
use crate::report::{check, native_cell, timed, workload_row, Cell, Check, Diagnostic, Row, Work};
use crate::BoxError;

/// `examples/matmul.rs`, for its register-tiled kernel as users meet it there.
#[path = "../../../examples/matmul.rs"]
#[allow(dead_code)]
mod example;

/// The matrix products, at each size of the profile.
pub struct Matmul;

impl Workload for Matmul {
    fn section(&self) -> &'static str {
        "matmul"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        for n in ctx.cfg.matmul_sizes() {
            matmul(ctx, n)?;
        }
        Ok(())
    }
}

fn matmul(ctx: &mut Ctx<'_>, n: usize) -> Result<(), BoxError> {
    let acc = ctx.acc.clone();
    // Small integers: every partial sum is exact, so all three must agree bit for bit.
    let av: Vec<f32> = (0..n * n)
        .map(|i| ((i * 7 + 3) % 17) as f32 - 8.0)
        .collect();
    let bv: Vec<f32> = (0..n * n)
        .map(|i| ((i * 5 + 1) % 13) as f32 - 6.0)
        .collect();
    let a = Array::from_slice([n, n], &av)?;
    let b = Array::from_slice([n, n], &bv)?;
    let mut c_amp = Array::<f32, 2>::new([n, n])?;
    let mut c_glsl = Array::<f32, 2>::new([n, n])?;
    let size = format!("{n} x {n}");
    let flops = Work::Flops(2.0 * (n * n * n) as f64);
    let cpu_acc = ctx.native.clone();
    let na = Array::from_slice_on(&cpu_acc, [n, n], &av)?;
    let nb = Array::from_slice_on(&cpu_acc, [n, n], &bv)?;
    let mut nc = Array::<f32, 2>::new_on(&cpu_acc, [n, n])?;

    let mut cpu = vec![0.0f32; n * n];
    let t_cpu = ctx.time(|| {
        cpu.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
            row.fill(0.0);
            for k in 0..n {
                let aik = av[i * n + k];
                for (c, bkj) in row.iter_mut().zip(&bv[k * n..(k + 1) * n]) {
                    *c += aik * bkj;
                }
            }
        });
        Ok(())
    })?;

    let k = raw(&acc, "mm_simple", &format!("{GLSL_1D}{G_MM_SIMPLE}"), 3, 12)?;
    let pc = push(&[n as u32, n as u32, n as u32]);
    let (t_amp, t_glsl) = ctx.time_pair(
        || {
            Ok(parallel_for_each(
                Extent::new([n, n]),
                // SAFETY: the kernel indexes only inside its views over this extent.
                unsafe { mm_simple(&a, &b, &mut c_amp) },
            )?)
        },
        || {
            Ok(k.dispatch(
                fold(&acc, (n * n).div_ceil(64)),
                vec![
                    KernelArg::read(&a),
                    KernelArg::read(&b),
                    KernelArg::write(&mut c_glsl),
                ],
                &pc,
            )?)
        },
    )?;
    let t_native = ctx.time_native(|| {
        Ok(parallel_for_each_on(
            &cpu_acc,
            Extent::new([n, n]),
            // SAFETY: the kernel indexes only inside its views over this extent.
            unsafe { mm_simple(&na, &nb, &mut nc) },
        )?)
    })?;
    ctx.check_native(
        &format!("matmul simple {n}"),
        &t_native,
        || Ok(nc.to_vec()?),
        &cpu,
    )?;
    ctx.push_row(workload_row(
        "matmul, simple",
        size.clone(),
        flops,
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    if let Ok(t_native) = t_native {
        // Why the native kernel trails the CPU column: the kernel's own algorithm (one dot
        // product per element, B read down a column) in plain Rust, rayon over rows.
        let mut naive = vec![0.0f32; n * n];
        let t_naive = ctx.time(|| {
            naive.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
                for (j, c) in row.iter_mut().enumerate() {
                    let mut sum = 0.0;
                    for k in 0..n {
                        sum += av[i * n + k] * bv[k * n + j];
                    }
                    *c = sum;
                }
            });
            Ok(())
        })?;
        let ok = naive == cpu;
        ctx.checks.push(Check {
            workload: format!("matmul simple {n}, the kernel's algorithm in plain Rust"),
            agree: ok,
            detail: "agrees with the CPU column".into(),
        });
        let d = |variant: &str, secs| Diagnostic {
            workload: "matmul, simple".into(),
            size: size.clone(),
            variant: variant.into(),
            secs,
        };
        ctx.diagnostics
            .push(d("the kernel natively (`unchecked`)", t_native));
        ctx.diagnostics.push(d(
            "the kernel's algorithm in plain Rust (rayon over rows; a dot product per \
             element, B read down a column, a sequential f32 sum)",
            t_naive,
        ));
        ctx.diagnostics.push(d(
            "the CPU column: plain Rust i-k-j (rayon over rows; B read along its rows, \
             vectorised across the row)",
            t_cpu,
        ));
    }
    ctx.checks.push(check(
        &format!("matmul simple {n}"),
        &c_amp.to_vec()?,
        &c_glsl.to_vec()?,
        &cpu,
    ));

    // A tiled launch that wrote nothing must not pass on the simple product's results.
    nc.copy_from_slice(&vec![0.0; n * n])?;
    let k = raw(&acc, "mm_tiled", G_MM_TILED, 3, 8)?;
    let pc = push(&[n as u32, n as u32]);
    let (t_amp, t_glsl) = ctx.time_pair(
        || {
            Ok(parallel_for_each(
                Extent::new([n, n]).tile::<TS, TS>(),
                // SAFETY: the kernel indexes only inside its views over this extent.
                unsafe { mm_tiled(&a, &b, &mut c_amp) },
            )?)
        },
        || {
            Ok(k.dispatch(
                [(n / TS) as u32, (n / TS) as u32, 1],
                vec![
                    KernelArg::read(&a),
                    KernelArg::read(&b),
                    KernelArg::write(&mut c_glsl),
                ],
                &pc,
            )?)
        },
    )?;
    let t_native = ctx.time_native(|| {
        Ok(parallel_for_each_on(
            &cpu_acc,
            Extent::new([n, n]).tile::<TS, TS>(),
            // SAFETY: the kernel indexes only inside its views over this extent.
            unsafe { mm_tiled(&na, &nb, &mut nc) },
        )?)
    })?;
    ctx.check_native(
        &format!("matmul tiled {n}"),
        &t_native,
        || Ok(nc.to_vec()?),
        &cpu,
    )?;
    ctx.push_row(workload_row(
        "matmul, tiled 16 x 16 tile_static",
        size.clone(),
        flops,
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    ctx.checks.push(check(
        &format!("matmul tiled {n}"),
        &c_amp.to_vec()?,
        &c_glsl.to_vec()?,
        &cpu,
    ));

    // The register-tiled kernels (bounds-checked, as the example writes them): a 64 x 64 block
    // of C per 16 x 16 tile (4 x 4 per thread), and a 128 x 128 one (8 x 8 per thread). A
    // launch that wrote nothing must not pass on the results above.
    for per_thread in [4, 8] {
        c_amp.copy_from_slice(&vec![0.0; n * n])?;
        nc.copy_from_slice(&vec![0.0; n * n])?;
        let launch =
            |on: &Accelerator, a: &Array<f32, 2>, b: &Array<f32, 2>, c: &mut Array<f32, 2>| {
                let (av, bv, mut cv) = (a.view(), b.view(), c.view_mut());
                match per_thread {
                    4 => parallel_for_each_on(
                        on,
                        example::register_tiled_grid::<4, 16, 64>(n, n),
                        example::matmul_register_tiled::<4, 16, 64>(&av, &bv, &mut cv),
                    ),
                    _ => parallel_for_each_on(
                        on,
                        example::register_tiled_grid::<8, 8, 128>(n, n),
                        example::matmul_register_tiled::<8, 8, 128>(&av, &bv, &mut cv),
                    ),
                }
            };
        let t_amp = ctx.time_amp(|| Ok(launch(&acc, &a, &b, &mut c_amp)?))?;
        let t_native = ctx.time_native(|| Ok(launch(&cpu_acc, &na, &nb, &mut nc)?))?;
        let name = format!("matmul register-tiled {per_thread} x {per_thread} {n}");
        ctx.check_native(&name, &t_native, || Ok(nc.to_vec()?), &cpu)?;
        ctx.push_row(Row {
            name: format!(
                "matmul, register-tiled {per_thread} x {per_thread} per thread (examples/matmul.rs)"
            ),
            size: size.clone(),
            amp: timed(t_amp, flops),
            glsl: Cell::None,
            cpu: timed(t_cpu, flops),
            native: native_cell(&t_native, Some(flops)),
        });
        let c = c_amp.to_vec()?;
        ctx.checks.push(check(&name, &c, &c, &cpu));
    }
    Ok(())
}
