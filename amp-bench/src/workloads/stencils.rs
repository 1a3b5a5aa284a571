//! Stencils and offset indices as users write them: a 5-point Jacobi step over a grid's
//! interior (every access offset from the thread's index by a literal) and an LU-style update
//! (`a[[i, j]] -= a[[i, k]] * a[[k, j]]` with `i = idx[0] + k + 1`, the pivot `k` a scalar
//! parameter), one simple kernel each with no loop, checked (the default); beside them the same
//! computations in serial plain Rust, in the kernels' order of operations (results are
//! compared bit for bit). The bounds table gets both kernels checked and `unchecked`.

use amp::prelude::*;

use super::{Ctx, Workload};
use crate::report::{check, check_native, count, native_cell, timed, BoundsCost, Cell, Row, Work};
use crate::BoxError;

/// The stencil rows.
pub struct Stencils;

impl Workload for Stencils {
    fn section(&self) -> &'static str {
        "stencils"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        let (n, lu) = sizes(ctx);
        jacobi_row(ctx, n)?;
        lu_row(ctx, lu)
    }
}

/// The grid's side, and the LU matrix's side with its number of pivot steps.
fn sizes(ctx: &Ctx<'_>) -> (usize, (usize, usize)) {
    if ctx.cfg.tiny {
        (64, (64, 4))
    } else if ctx.cfg.gpu {
        (ctx.cfg.fit_side(8192), (ctx.cfg.fit_side(4096), 16))
    } else {
        (1024, (512, 16))
    }
}

#[kernel(amp)]
fn jacobi5(idx: Index<2>, a: &Array<f32, 2>, out: &mut Array<f32, 2>) {
    let (i, j) = (idx[0] + 1, idx[1] + 1);
    out[[i, j]] = 0.2 * (a[[i, j]] + a[[i - 1, j]] + a[[i + 1, j]] + a[[i, j - 1]] + a[[i, j + 1]]);
}

#[kernel(amp, unchecked)]
fn jacobi5_unchecked(idx: Index<2>, a: &Array<f32, 2>, out: &mut Array<f32, 2>) {
    let (i, j) = (idx[0] + 1, idx[1] + 1);
    out[[i, j]] = 0.2 * (a[[i, j]] + a[[i - 1, j]] + a[[i + 1, j]] + a[[i, j - 1]] + a[[i, j + 1]]);
}

/// One pivot step's update of the trailing submatrix: thread `idx` updates element
/// `(idx[0] + k + 1, idx[1] + k + 1)` from pivot row and column `k`, which no thread of the
/// step writes.
#[kernel(amp, allow(flow_dependence))]
fn lu_update(idx: Index<2>, a: &mut Array<f32, 2>, k: u32) {
    let k = k as usize;
    let (i, j) = (idx[0] + k + 1, idx[1] + k + 1);
    a[[i, j]] -= a[[i, k]] * a[[k, j]];
}

#[kernel(amp, unchecked, allow(flow_dependence))]
fn lu_update_unchecked(idx: Index<2>, a: &mut Array<f32, 2>, k: u32) {
    let k = k as usize;
    let (i, j) = (idx[0] + k + 1, idx[1] + k + 1);
    a[[i, j]] -= a[[i, k]] * a[[k, j]];
}

fn serial_jacobi(a: &[f32], n: usize, out: &mut [f32]) {
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            let at = |y: usize, x: usize| a[y * n + x];
            out[i * n + j] =
                0.2 * (at(i, j) + at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1));
        }
    }
}

fn serial_lu(a: &mut [f32], n: usize, steps: usize) {
    for k in 0..steps {
        for i in k + 1..n {
            for j in k + 1..n {
                a[i * n + j] -= a[i * n + k] * a[k * n + j];
            }
        }
    }
}

fn grid(n: usize) -> Vec<f32> {
    (0..n * n).map(|i| ((i * 37) % 101) as f32 / 64.0).collect()
}

/// A matrix whose entries stay small through the update steps.
fn matrix(n: usize) -> Vec<f32> {
    (0..n * n)
        .map(|i| ((i * 29) % 23) as f32 / 256.0 - 0.04)
        .collect()
}

fn jacobi_row(ctx: &mut Ctx<'_>, n: usize) -> Result<(), BoxError> {
    let a = grid(n);
    let e = Extent::new([n - 2, n - 2]);
    let (av, mut ov) = (
        Array::from_slice([n, n], &a)?,
        Array::<f32, 2>::new([n, n])?,
    );
    let t_amp = ctx.time_amp(|| {
        parallel_for_each(e, jacobi5(&av, &mut ov))?;
        Ok(())
    })?;
    let amp_out = ov.to_vec()?;
    let mut cpu = vec![0f32; n * n];
    let t_cpu = ctx.time(|| {
        serial_jacobi(&a, n, &mut cpu);
        Ok(())
    })?;
    let native = ctx.native.clone();
    let nav = Array::from_slice_on(&native, [n, n], &a)?;
    let mut nov = Array::<f32, 2>::new_on(&native, [n, n])?;
    let t_native = ctx.time_native(|| {
        parallel_for_each_on(&native, e, jacobi5(&nav, &mut nov))?;
        Ok(())
    })?;
    let native_out = nov.to_vec()?;
    // 4 additions and a multiplication per interior point.
    let work = Work::Flops(5.0 * ((n - 2) * (n - 2)) as f64);
    ctx.push_row(Row {
        name: "jacobi 5-point, offset indices (simple, checked; CPU: serial)".into(),
        size: format!("{n} x {n} f32 ({} px)", count(n * n)),
        amp: timed(t_amp, work),
        glsl: Cell::None,
        cpu: timed(t_cpu, work),
        native: native_cell(&t_native, Some(work)),
    });
    ctx.checks.push(check(
        "jacobi 5-point (bit for bit)",
        &amp_out,
        &amp_out,
        &cpu,
    ));
    if t_native.is_ok() {
        ctx.checks.push(check_native(
            "jacobi 5-point (bit for bit)",
            &native_out,
            &cpu,
        ));
    }
    Ok(())
}

/// `steps` pivot steps of the LU update of `a` (an `n` x `n` array on `acc`'s views), one
/// launch each.
fn lu_steps(
    acc: Option<&Accelerator>,
    a: &mut Array<f32, 2>,
    n: usize,
    steps: usize,
    checked: bool,
) -> Result<(), amp::Error> {
    for k in 0..steps {
        let e = Extent::new([n - k - 1, n - k - 1]);
        let k = k as u32;
        match (acc, checked) {
            (None, true) => parallel_for_each(e, lu_update(a, k))?,
            // SAFETY: every index of the launch is inside the matrix.
            (None, false) => parallel_for_each(e, unsafe { lu_update_unchecked(a, k) })?,
            (Some(acc), true) => parallel_for_each_on(acc, e, lu_update(a, k))?,
            // SAFETY: as above.
            (Some(acc), false) => {
                parallel_for_each_on(acc, e, unsafe { lu_update_unchecked(a, k) })?
            }
        }
    }
    Ok(())
}

fn lu_row(ctx: &mut Ctx<'_>, (n, steps): (usize, usize)) -> Result<(), BoxError> {
    let start = matrix(n);
    let mut a = Array::from_slice([n, n], &start)?;
    let t_amp = ctx.time_amp(|| {
        a.copy_from_slice(&start)?;
        lu_steps(None, &mut a, n, steps, true)?;
        Ok(())
    })?;
    let amp_out = a.to_vec()?;
    let mut cpu = start.clone();
    let t_cpu = ctx.time(|| {
        cpu.copy_from_slice(&start);
        serial_lu(&mut cpu, n, steps);
        Ok(())
    })?;
    let native = ctx.native.clone();
    let mut na = Array::from_slice_on(&native, [n, n], &start)?;
    let t_native = ctx.time_native(|| {
        na.copy_from_slice(&start)?;
        lu_steps(Some(&native), &mut na, n, steps, true)?;
        Ok(())
    })?;
    let native_out = na.to_vec()?;
    let updates: usize = (0..steps).map(|k| (n - k - 1) * (n - k - 1)).sum();
    let work = Work::Flops(2.0 * updates as f64);
    ctx.push_row(Row {
        name: format!("LU update, offset indices, {steps} pivots (simple, checked; CPU: serial)"),
        size: format!("{n} x {n} f32"),
        amp: timed(t_amp, work),
        glsl: Cell::None,
        cpu: timed(t_cpu, work),
        native: native_cell(&t_native, Some(work)),
    });
    ctx.checks
        .push(check("LU update (bit for bit)", &amp_out, &amp_out, &cpu));
    if t_native.is_ok() {
        ctx.checks
            .push(check_native("LU update (bit for bit)", &native_out, &cpu));
    }
    Ok(())
}

/// The stencil kernels checked and `unchecked`, on the Vulkan device and natively, for the
/// bounds table; the results of each pair must agree.
pub(super) fn stencil_bounds_rows(
    ctx: &mut Ctx<'_>,
    out: &mut Vec<BoundsCost>,
) -> Result<(), BoxError> {
    let (n, (lu_n, steps)) = sizes(ctx);
    let native = ctx.native.clone();
    let a = grid(n);
    let e = Extent::new([n - 2, n - 2]);
    let mut rows = Vec::new();
    for acc in [None, Some(&native)] {
        let av = match acc {
            None => Array::from_slice([n, n], &a)?,
            Some(acc) => Array::from_slice_on(acc, [n, n], &a)?,
        };
        let fresh = || match acc {
            None => Array::<f32, 2>::new([n, n]),
            Some(acc) => Array::<f32, 2>::new_on(acc, [n, n]),
        };
        let (mut oc, mut ou) = (fresh()?, fresh()?);
        let times = ctx.checked_pair(
            acc.is_some(),
            || {
                match acc {
                    None => parallel_for_each(e, jacobi5(&av, &mut oc))?,
                    Some(acc) => parallel_for_each_on(acc, e, jacobi5(&av, &mut oc))?,
                }
                Ok(())
            },
            || {
                // SAFETY: every index of the launch is inside the grid.
                let call = unsafe { jacobi5_unchecked(&av, &mut ou) };
                match acc {
                    None => parallel_for_each(e, call)?,
                    Some(acc) => parallel_for_each_on(acc, e, call)?,
                }
                Ok(())
            },
        )?;
        if times.is_some() {
            let (c, u) = (oc.to_vec()?, ou.to_vec()?);
            ctx.checks
                .push(check("jacobi 5-point checked/unchecked", &c, &u, &u));
        }
        rows.push(times);
    }
    out.push(bounds_row(
        "jacobi 5-point, offset indices",
        format!("{n} x {n} f32"),
        &rows,
    ));

    let start = matrix(lu_n);
    let mut rows = Vec::new();
    for acc in [None, Some(&native)] {
        let fresh = || match acc {
            None => Array::from_slice([lu_n, lu_n], &start),
            Some(acc) => Array::from_slice_on(acc, [lu_n, lu_n], &start),
        };
        let (mut ac, mut au) = (fresh()?, fresh()?);
        let times = ctx.checked_pair(
            acc.is_some(),
            || {
                ac.copy_from_slice(&start)?;
                Ok(lu_steps(acc, &mut ac, lu_n, steps, true)?)
            },
            || {
                au.copy_from_slice(&start)?;
                Ok(lu_steps(acc, &mut au, lu_n, steps, false)?)
            },
        )?;
        if times.is_some() {
            let (c, u) = (ac.to_vec()?, au.to_vec()?);
            ctx.checks
                .push(check("LU update checked/unchecked", &c, &u, &u));
        }
        rows.push(times);
    }
    out.push(bounds_row(
        &format!("LU update, offset indices, {steps} pivots"),
        format!("{lu_n} x {lu_n} f32"),
        &rows,
    ));
    Ok(())
}

/// A bounds-table row from the Vulkan pair and the native pair.
fn bounds_row(workload: &str, size: String, rows: &[Option<(f64, f64)>]) -> BoundsCost {
    let vulkan = rows.first().copied().flatten();
    BoundsCost {
        workload: workload.into(),
        size,
        checked: vulkan.map_or(f64::NAN, |p| p.0),
        unchecked: vulkan.map_or(f64::NAN, |p| p.1),
        native: rows.get(1).copied().flatten(),
    }
}
