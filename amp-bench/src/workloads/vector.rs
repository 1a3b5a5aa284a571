//! The vector rows: vector add, saxpy, the copy kernel, the vector add on device-local arrays and
//! over 2-D arrays, and a threshold over bytes.

use amp::prelude::*;
use amp::{KernelArg, RawKernel};
use rayon::prelude::*;

use super::{Ctx, Workload};
use crate::glsl::{fold, push, raw, GLSL_1D, G_COPY, G_SAXPY, G_VADD};
use crate::kernels::{saxpy, vadd, vcopy};
use crate::report::{check, count, timed, workload_row, Cell, Row, Work, COPY_ROW, PLACED_ROW};
use crate::BoxError;

/// The 1-D vector rows.
pub struct Vector;

impl Workload for Vector {
    fn section(&self) -> &'static str {
        "vector"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        vector(ctx)
    }
}

fn vector(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = ctx.cfg.n();
    let acc = ctx.acc.clone();
    let xs: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let ys: Vec<f32> = (0..n).map(|i| (i % 777) as f32 * 0.5).collect();
    let a = Array::from_slice([n], &xs)?;
    let b = Array::from_slice([n], &ys)?;
    let mut c_amp = Array::<f32, 1>::new([n])?;
    let mut c_glsl = Array::<f32, 1>::new([n])?;
    let groups = fold(&acc, n.div_ceil(64));
    let size = format!("{} f32", count(n));
    let bytes = Work::Bytes(12.0 * n as f64);
    let cpu_acc = ctx.native.clone();
    let na = Array::from_slice_on(&cpu_acc, [n], &xs)?;
    let nb = Array::from_slice_on(&cpu_acc, [n], &ys)?;
    let mut nc = Array::<f32, 1>::new_on(&cpu_acc, [n])?;

    // c = a + b
    let k_vadd = raw(&acc, "vadd", &format!("{GLSL_1D}{G_VADD}"), 3, 4)?;
    let (t_amp, t_glsl) = vadd_pair(ctx, &k_vadd, [&a, &b], [&mut c_amp, &mut c_glsl])?;
    let mut cpu = vec![0.0f32; n];
    let t_cpu = ctx.time(|| {
        cpu.par_iter_mut()
            .zip(xs.par_iter().zip(&ys))
            .for_each(|(c, (x, y))| *c = x + y);
        Ok(())
    })?;
    let t_native = ctx.time_native(|| {
        Ok(parallel_for_each_on(
            &cpu_acc,
            Extent::new([n]),
            // SAFETY: the kernel indexes only inside its views over this extent.
            unsafe { vadd(&na, &nb, &mut nc) },
        )?)
    })?;
    ctx.check_native("vector add", &t_native, || Ok(nc.to_vec()?), &cpu)?;
    ctx.push_row(workload_row(
        "vector add",
        size.clone(),
        bytes,
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    ctx.checks.push(check(
        "vector add",
        &c_amp.to_vec()?,
        &c_glsl.to_vec()?,
        &cpu,
    ));

    // z = alpha * x + y
    let alpha = 2.0f32;
    let k = raw(&acc, "saxpy", &format!("{GLSL_1D}{G_SAXPY}"), 3, 8)?;
    let pc = push(&[n as u32, alpha.to_bits()]);
    let (t_amp, t_glsl) = ctx.time_pair(
        || {
            Ok(parallel_for_each(
                Extent::new([n]),
                // SAFETY: the kernel indexes only inside its views over this extent.
                unsafe { saxpy(alpha, &a, &b, &mut c_amp) },
            )?)
        },
        || {
            Ok(k.dispatch(
                groups,
                vec![
                    KernelArg::read(&a),
                    KernelArg::read(&b),
                    KernelArg::write(&mut c_glsl),
                ],
                &pc,
            )?)
        },
    )?;
    let t_cpu = ctx.time(|| {
        cpu.par_iter_mut()
            .zip(xs.par_iter().zip(&ys))
            .for_each(|(z, (x, y))| *z = alpha * x + y);
        Ok(())
    })?;
    let t_native = ctx.time_native(|| {
        Ok(parallel_for_each_on(
            &cpu_acc,
            Extent::new([n]),
            // SAFETY: the kernel indexes only inside its views over this extent.
            unsafe { saxpy(alpha, &na, &nb, &mut nc) },
        )?)
    })?;
    ctx.check_native("saxpy", &t_native, || Ok(nc.to_vec()?), &cpu)?;
    ctx.push_row(workload_row(
        "saxpy (z = a*x + y)",
        size.clone(),
        bytes,
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    ctx.checks
        .push(check("saxpy", &c_amp.to_vec()?, &c_glsl.to_vec()?, &cpu));

    // out = a: the device's copy-kernel bandwidth, the yardstick of the memory-bound rows.
    let k = raw(&acc, "copy", &format!("{GLSL_1D}{G_COPY}"), 2, 4)?;
    let pc = push(&[n as u32]);
    let (t_amp, t_glsl) = ctx.time_pair(
        // SAFETY: the kernel indexes only inside its views over this extent.
        || {
            Ok(parallel_for_each(Extent::new([n]), unsafe {
                vcopy(&a, &mut c_amp)
            })?)
        },
        || {
            Ok(k.dispatch(
                groups,
                vec![KernelArg::read(&a), KernelArg::write(&mut c_glsl)],
                &pc,
            )?)
        },
    )?;
    let t_cpu = ctx.time(|| {
        cpu.par_iter_mut()
            .zip(xs.par_iter())
            .for_each(|(c, x)| *c = *x);
        Ok(())
    })?;
    let t_native = ctx.time_native(|| {
        Ok(parallel_for_each_on(
            &cpu_acc,
            Extent::new([n]),
            // SAFETY: the kernel indexes only inside its views over this extent.
            unsafe { vcopy(&na, &mut nc) },
        )?)
    })?;
    ctx.check_native(COPY_ROW, &t_native, || Ok(nc.to_vec()?), &cpu)?;
    ctx.push_row(workload_row(
        COPY_ROW,
        size.clone(),
        Work::Bytes(8.0 * n as f64),
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    ctx.checks
        .push(check(COPY_ROW, &c_amp.to_vec()?, &c_glsl.to_vec()?, &cpu));

    // The vector add again on arrays in device-local memory (`AccessType::None`): where the
    // default placement differs (a discrete GPU), the gap is what placement costs.
    let local = || Array::<f32, 1>::new_with_access(&acc, [n], AccessType::None);
    let (mut a, mut b, mut c_amp, mut c_glsl) = (local()?, local()?, local()?, local()?);
    a.copy_from_slice(&xs)?;
    b.copy_from_slice(&ys)?;
    let (t_amp, t_glsl) = vadd_pair(ctx, &k_vadd, [&a, &b], [&mut c_amp, &mut c_glsl])?;
    let want: Vec<f32> = xs.par_iter().zip(&ys).map(|(x, y)| x + y).collect();
    ctx.push_row(Row {
        name: PLACED_ROW.into(),
        size,
        amp: timed(t_amp, bytes),
        glsl: timed(t_glsl, bytes),
        cpu: Cell::None,
        native: Cell::None,
    });
    ctx.checks.push(check(
        PLACED_ROW,
        &c_amp.to_vec()?,
        &c_glsl.to_vec()?,
        &want,
    ));
    vadd_2d_row(ctx, &k_vadd, &xs, &ys)?;
    super::bytes::bytes_row(ctx)
}

/// `c = a + b` over 2-D arrays whose rows are 4,093 elements long (a prime: most of the
/// kernel's quads of four neighbouring indices run on across a row's end), a checked kernel,
/// against the 1-D GLSL vector add over the same elements (what a hand-tuning user flattens
/// it to) and rayon over the elements.
#[kernel(amp)]
fn vadd_2d(idx: Index<2>, a: ArrayView<f32, 2>, b: ArrayView<f32, 2>, c: ArrayViewMut<f32, 2>) {
    c[idx] = a[idx] + b[idx];
}

fn vadd_2d_row(ctx: &mut Ctx<'_>, k: &RawKernel, xs: &[f32], ys: &[f32]) -> Result<(), BoxError> {
    let w = xs.len().min(4_093);
    let h = xs.len() / w;
    let n = h * w;
    let (xs, ys) = (&xs[..n], &ys[..n]);
    let a = Array::from_slice([h, w], xs)?;
    let b = Array::from_slice([h, w], ys)?;
    let (a1, b1) = (Array::from_slice([n], xs)?, Array::from_slice([n], ys)?);
    let mut c_amp = Array::<f32, 2>::new([h, w])?;
    let mut c_glsl = Array::<f32, 1>::new([n])?;
    let groups = fold(&ctx.acc, n.div_ceil(64));
    let pc = push(&[n as u32]);
    let (t_amp, t_glsl) = ctx.time_pair(
        || {
            Ok(parallel_for_each(
                Extent::new([h, w]),
                vadd_2d(&a.view(), &b.view(), &mut c_amp.view_mut()),
            )?)
        },
        || {
            Ok(k.dispatch(
                groups,
                vec![
                    KernelArg::read(&a1),
                    KernelArg::read(&b1),
                    KernelArg::write(&mut c_glsl),
                ],
                &pc,
            )?)
        },
    )?;
    let mut cpu = vec![0.0f32; n];
    let t_cpu = ctx.time(|| {
        cpu.par_iter_mut()
            .zip(xs.par_iter().zip(ys))
            .for_each(|(c, (x, y))| *c = x + y);
        Ok(())
    })?;
    let cpu_acc = ctx.native.clone();
    let na = Array::from_slice_on(&cpu_acc, [h, w], xs)?;
    let nb = Array::from_slice_on(&cpu_acc, [h, w], ys)?;
    let mut nc = Array::<f32, 2>::new_on(&cpu_acc, [h, w])?;
    let t_native = ctx.time_native(|| {
        Ok(parallel_for_each_on(
            &cpu_acc,
            Extent::new([h, w]),
            vadd_2d(&na.view(), &nb.view(), &mut nc.view_mut()),
        )?)
    })?;
    ctx.check_native(VADD_2D_ROW, &t_native, || Ok(nc.to_vec()?), &cpu)?;
    ctx.push_row(workload_row(
        VADD_2D_ROW,
        format!("{h} x {w} f32"),
        Work::Bytes(12.0 * n as f64),
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    ctx.checks.push(check(
        VADD_2D_ROW,
        &c_amp.to_vec()?,
        &c_glsl.to_vec()?,
        &cpu,
    ));
    Ok(())
}

/// The 2-D vector add's row.
const VADD_2D_ROW: &str = "vector add, 2-D (rows of 4,093; GLSL: the same elements in 1-D)";

/// The vector add `out = a + b` as the amp kernel (into `out[0]`) and as the GLSL kernel `k`
/// (into `out[1]`), timed as a pair.
fn vadd_pair(
    ctx: &Ctx<'_>,
    k: &RawKernel,
    [a, b]: [&Array<f32, 1>; 2],
    [c_amp, c_glsl]: [&mut Array<f32, 1>; 2],
) -> Result<(f64, f64), BoxError> {
    let n = a.len();
    let groups = fold(&ctx.acc, n.div_ceil(64));
    let pc = push(&[n as u32]);
    ctx.time_pair(
        // SAFETY: the kernel indexes only inside its views over this extent.
        || {
            Ok(parallel_for_each(Extent::new([n]), unsafe {
                vadd(a, b, c_amp)
            })?)
        },
        || {
            Ok(k.dispatch(
                groups,
                vec![
                    KernelArg::read(a),
                    KernelArg::read(b),
                    KernelArg::write(c_glsl),
                ],
                &pc,
            )?)
        },
    )
}
