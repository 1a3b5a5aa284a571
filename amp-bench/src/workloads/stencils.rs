//! Stencils and offset indices as users write them, as PolyBench and the heat-equation codes
//! do: a 5-point Jacobi step and a 9-point convolution over a 2-D grid's interior, a 7-point
//! heat step over a 3-D grid's interior (every access offset from the thread's index by a
//! literal), and an LU-style update (`a[[i, j]] -= a[[i, k]] * a[[k, j]]` with
//! `i = idx[0] + k + 1`, the pivot `k` a scalar parameter): one simple kernel each with no
//! loop, checked (the default). Beside them the same computations in plain Rust, serial (the
//! CPU column) and with rayon (a diagnostic), in the kernels' order of operations; every result
//! is compared with the serial one bit for bit. The bounds table gets every kernel checked and
//! `unchecked`.

use amp::prelude::*;
use amp::ComputeDomain;
use rayon::prelude::*;

use super::{Ctx, Workload};
use crate::report::{check, check_native, count, native_cell, timed, BoundsCost, Cell, Check};
use crate::report::{Diagnostic, Row, Work};
use crate::BoxError;

/// The stencil rows.
pub struct Stencils;

impl Workload for Stencils {
    fn section(&self) -> &'static str {
        "stencils"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        let sizes = Sizes::of(ctx);
        grid_row(ctx, &JACOBI5, [sizes.plane; 2])?;
        grid_row(ctx, &CONV9, [sizes.plane; 2])?;
        grid_row(ctx, &HEAT7, [sizes.cube; 3])?;
        lu_row(ctx, sizes.lu)
    }
}

/// The grids' sides, and the LU matrix's side with its number of pivot steps.
struct Sizes {
    plane: usize,
    cube: usize,
    lu: (usize, usize),
}

impl Sizes {
    fn of(ctx: &Ctx<'_>) -> Self {
        if ctx.cfg.tiny {
            Sizes {
                plane: 64,
                cube: 16,
                lu: (64, 4),
            }
        } else if ctx.cfg.gpu {
            Sizes {
                plane: ctx.cfg.fit_side(8192),
                cube: ctx.cfg.fit_cube(512),
                lu: (ctx.cfg.fit_side(4096), 16),
            }
        } else {
            Sizes {
                plane: 1024,
                cube: 128,
                lu: (512, 16),
            }
        }
    }
}

/// Runs `call` on `acc`, or on the default accelerator.
fn on<D: ComputeDomain>(
    acc: Option<&Accelerator>,
    domain: D,
    call: D::Call<'_>,
) -> Result<(), amp::Error> {
    match acc {
        None => parallel_for_each(domain, call),
        Some(acc) => parallel_for_each_on(acc, domain, call),
    }
}

/// One launch of a grid stencil over the interior `Extent`, reading the first array and
/// writing the second.
type Launch<const N: usize> = fn(
    Option<&Accelerator>,
    Extent<N>,
    &Array<f32, N>,
    &mut Array<f32, N>,
) -> Result<(), amp::Error>;

/// A grid stencil in plain Rust: the input, the grid's sides, the output.
type Host<const N: usize> = fn(&[f32], [usize; N], &mut [f32]);

/// A stencil over the interior of an `N`-dimensional grid: its kernel checked and
/// `unchecked`, and its plain-Rust versions.
struct GridStencil<const N: usize> {
    name: &'static str,
    /// Floating-point operations per interior point.
    flops: f64,
    checked: Launch<N>,
    unchecked: Launch<N>,
    serial: Host<N>,
    rayon: Host<N>,
}

const JACOBI5: GridStencil<2> = GridStencil {
    name: "jacobi 5-point",
    flops: 5.0,
    checked: |acc, e, a, out| on(acc, e, jacobi5(a, out)),
    // SAFETY: the launch's domain is the grid's interior, so every offset index is inside.
    unchecked: |acc, e, a, out| on(acc, e, unsafe { jacobi5_unchecked(a, out) }),
    serial: |a, d, out| serial_2d(a, d, out, jacobi5_at),
    rayon: |a, d, out| rayon_2d(a, d, out, jacobi5_at),
};

const CONV9: GridStencil<2> = GridStencil {
    name: "convolution 9-point",
    flops: 17.0,
    checked: |acc, e, a, out| on(acc, e, conv9(a, out)),
    // SAFETY: as for `JACOBI5`.
    unchecked: |acc, e, a, out| on(acc, e, unsafe { conv9_unchecked(a, out) }),
    serial: |a, d, out| serial_2d(a, d, out, conv9_at),
    rayon: |a, d, out| rayon_2d(a, d, out, conv9_at),
};

const HEAT7: GridStencil<3> = GridStencil {
    name: "heat 7-point (3-D)",
    flops: 8.0,
    checked: |acc, e, a, out| on(acc, e, heat7(a, out)),
    // SAFETY: as for `JACOBI5`.
    unchecked: |acc, e, a, out| on(acc, e, unsafe { heat7_unchecked(a, out) }),
    serial: serial_3d,
    rayon: rayon_3d,
};

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

/// PolyBench's convolution-2d: nine weighted neighbours.
#[kernel(amp)]
fn conv9(idx: Index<2>, a: &Array<f32, 2>, out: &mut Array<f32, 2>) {
    let (i, j) = (idx[0] + 1, idx[1] + 1);
    out[[i, j]] = 0.2 * a[[i - 1, j - 1]] + 0.5 * a[[i, j - 1]]
        - 0.8 * a[[i + 1, j - 1]]
        - 0.3 * a[[i - 1, j]]
        + 0.6 * a[[i, j]]
        - 0.9 * a[[i + 1, j]]
        + 0.4 * a[[i - 1, j + 1]]
        + 0.7 * a[[i, j + 1]]
        + 0.1 * a[[i + 1, j + 1]];
}

#[kernel(amp, unchecked)]
fn conv9_unchecked(idx: Index<2>, a: &Array<f32, 2>, out: &mut Array<f32, 2>) {
    let (i, j) = (idx[0] + 1, idx[1] + 1);
    out[[i, j]] = 0.2 * a[[i - 1, j - 1]] + 0.5 * a[[i, j - 1]]
        - 0.8 * a[[i + 1, j - 1]]
        - 0.3 * a[[i - 1, j]]
        + 0.6 * a[[i, j]]
        - 0.9 * a[[i + 1, j]]
        + 0.4 * a[[i - 1, j + 1]]
        + 0.7 * a[[i, j + 1]]
        + 0.1 * a[[i + 1, j + 1]];
}

/// One explicit step of the 3-D heat equation: the point and its six face neighbours.
#[kernel(amp)]
fn heat7(idx: Index<3>, a: &Array<f32, 3>, out: &mut Array<f32, 3>) {
    let (i, j, k) = (idx[0] + 1, idx[1] + 1, idx[2] + 1);
    out[[i, j, k]] = 0.4 * a[[i, j, k]]
        + 0.1
            * (a[[i - 1, j, k]]
                + a[[i + 1, j, k]]
                + a[[i, j - 1, k]]
                + a[[i, j + 1, k]]
                + a[[i, j, k - 1]]
                + a[[i, j, k + 1]]);
}

#[kernel(amp, unchecked)]
fn heat7_unchecked(idx: Index<3>, a: &Array<f32, 3>, out: &mut Array<f32, 3>) {
    let (i, j, k) = (idx[0] + 1, idx[1] + 1, idx[2] + 1);
    out[[i, j, k]] = 0.4 * a[[i, j, k]]
        + 0.1
            * (a[[i - 1, j, k]]
                + a[[i + 1, j, k]]
                + a[[i, j - 1, k]]
                + a[[i, j + 1, k]]
                + a[[i, j, k - 1]]
                + a[[i, j, k + 1]]);
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

/// The 5-point step at `(i, j)` of a grid `n` wide, as a user writes it.
fn jacobi5_at(a: &[f32], n: usize, i: usize, j: usize) -> f32 {
    let at = |y: usize, x: usize| a[y * n + x];
    0.2 * (at(i, j) + at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1))
}

/// The 9-point convolution at `(i, j)` of a grid `n` wide.
fn conv9_at(a: &[f32], n: usize, i: usize, j: usize) -> f32 {
    let at = |y: usize, x: usize| a[y * n + x];
    0.2 * at(i - 1, j - 1) + 0.5 * at(i, j - 1) - 0.8 * at(i + 1, j - 1) - 0.3 * at(i - 1, j)
        + 0.6 * at(i, j)
        - 0.9 * at(i + 1, j)
        + 0.4 * at(i - 1, j + 1)
        + 0.7 * at(i, j + 1)
        + 0.1 * at(i + 1, j + 1)
}

/// The 7-point heat step at `(i, j, k)` of a grid whose planes are `d[1]` x `d[2]`.
fn heat7_at(a: &[f32], d: [usize; 3], i: usize, j: usize, k: usize) -> f32 {
    let at = |z: usize, y: usize, x: usize| a[(z * d[1] + y) * d[2] + x];
    0.4 * at(i, j, k)
        + 0.1
            * (at(i - 1, j, k)
                + at(i + 1, j, k)
                + at(i, j - 1, k)
                + at(i, j + 1, k)
                + at(i, j, k - 1)
                + at(i, j, k + 1))
}

/// The stencil's value at `(i, j)` of a grid `n` wide (generic, so each stencil's loops are
/// compiled with its point inlined, as a user's loop is).
trait Point2: Fn(&[f32], usize, usize, usize) -> f32 + Sync {}
impl<F: Fn(&[f32], usize, usize, usize) -> f32 + Sync> Point2 for F {}

fn serial_2d(a: &[f32], [rows, n]: [usize; 2], out: &mut [f32], point: impl Point2) {
    for i in 1..rows - 1 {
        for j in 1..n - 1 {
            out[i * n + j] = point(a, n, i, j);
        }
    }
}

fn rayon_2d(a: &[f32], [rows, n]: [usize; 2], out: &mut [f32], point: impl Point2) {
    out.par_chunks_mut(n)
        .enumerate()
        .take(rows - 1)
        .skip(1)
        .for_each(|(i, row)| {
            for (j, out) in row.iter_mut().enumerate().take(n - 1).skip(1) {
                *out = point(a, n, i, j);
            }
        });
}

fn serial_3d(a: &[f32], d: [usize; 3], out: &mut [f32]) {
    for i in 1..d[0] - 1 {
        for j in 1..d[1] - 1 {
            for k in 1..d[2] - 1 {
                out[(i * d[1] + j) * d[2] + k] = heat7_at(a, d, i, j, k);
            }
        }
    }
}

fn rayon_3d(a: &[f32], d: [usize; 3], out: &mut [f32]) {
    out.par_chunks_mut(d[1] * d[2])
        .enumerate()
        .take(d[0] - 1)
        .skip(1)
        .for_each(|(i, plane)| {
            for j in 1..d[1] - 1 {
                for k in 1..d[2] - 1 {
                    plane[j * d[2] + k] = heat7_at(a, d, i, j, k);
                }
            }
        });
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

/// `serial_lu` with each step's rows spread over the cores.
fn rayon_lu(a: &mut [f32], n: usize, steps: usize) {
    for k in 0..steps {
        let (above, below) = a.split_at_mut((k + 1) * n);
        let pivot = &above[k * n..];
        below.par_chunks_mut(n).for_each(|row| {
            let l = row[k];
            for j in k + 1..n {
                row[j] -= l * pivot[j];
            }
        });
    }
}

fn grid(len: usize) -> Vec<f32> {
    (0..len).map(|i| ((i * 37) % 101) as f32 / 64.0).collect()
}

/// A matrix whose entries stay small through the update steps.
fn matrix(n: usize) -> Vec<f32> {
    (0..n * n)
        .map(|i| ((i * 29) % 23) as f32 / 256.0 - 0.04)
        .collect()
}

/// The interior of a grid: the launch domain of its stencil.
fn interior<const N: usize>(dims: [usize; N]) -> Extent<N> {
    Extent::new(dims.map(|d| d - 2))
}

fn size_label<const N: usize>(dims: [usize; N]) -> String {
    let sides: Vec<String> = dims.iter().map(usize::to_string).collect();
    let len: usize = dims.iter().product();
    format!("{} f32 ({} points)", sides.join(" x "), count(len))
}

/// Adds a check that the rayon result equals the serial one.
fn check_rayon(ctx: &mut Ctx<'_>, name: &str, rayon: &[f32], serial: &[f32]) {
    let at = rayon
        .iter()
        .zip(serial)
        .position(|(a, b)| a.to_bits() != b.to_bits());
    ctx.checks.push(Check {
        workload: format!("{name} (rayon, bit for bit)"),
        agree: at.is_none(),
        detail: at.map_or_else(
            || "rayon agrees with serial".into(),
            |i| format!("element {i}: {} vs {}", rayon[i], serial[i]),
        ),
    });
}

/// The rayon diagnostic of a row.
fn rayon_diagnostic(ctx: &mut Ctx<'_>, name: &str, size: String, secs: f64) {
    ctx.diagnostics.push(Diagnostic {
        workload: name.into(),
        size,
        variant: "rayon: the serial CPU column's loops with the outermost spread over the \
                  cores, the same results bit for bit"
            .into(),
        secs,
    });
}

fn grid_row<const N: usize>(
    ctx: &mut Ctx<'_>,
    s: &GridStencil<N>,
    dims: [usize; N],
) -> Result<(), BoxError> {
    let len: usize = dims.iter().product();
    let a = grid(len);
    let e = interior(dims);
    let (av, mut ov) = (Array::from_slice(dims, &a)?, Array::<f32, N>::new(dims)?);
    let t_amp = ctx.time_amp(|| Ok((s.checked)(None, e, &av, &mut ov)?))?;
    let amp_out = ov.to_vec()?;
    let mut serial = vec![0f32; len];
    let t_serial = ctx.time(|| {
        (s.serial)(&a, dims, &mut serial);
        Ok(())
    })?;
    let mut par = vec![0f32; len];
    let t_rayon = ctx.time(|| {
        (s.rayon)(&a, dims, &mut par);
        Ok(())
    })?;
    let native = ctx.native.clone();
    let nav = Array::from_slice_on(&native, dims, &a)?;
    let mut nov = Array::<f32, N>::new_on(&native, dims)?;
    let t_native = ctx.time_native(|| Ok((s.checked)(Some(&native), e, &nav, &mut nov)?))?;
    let native_out = nov.to_vec()?;
    let work = Work::Flops(s.flops * e.size() as f64);
    let size = size_label(dims);
    ctx.push_row(Row {
        name: format!("{}, offset indices (simple, checked; CPU: serial)", s.name),
        size: size.clone(),
        amp: timed(t_amp, work),
        glsl: Cell::None,
        cpu: timed(t_serial, work),
        native: native_cell(&t_native, Some(work)),
    });
    rayon_diagnostic(ctx, s.name, size, t_rayon);
    let label = format!("{} (bit for bit)", s.name);
    ctx.checks.push(check(&label, &amp_out, &amp_out, &serial));
    if t_native.is_ok() {
        ctx.checks.push(check_native(&label, &native_out, &serial));
    }
    check_rayon(ctx, s.name, &par, &serial);
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
        if checked {
            on(acc, e, lu_update(a, k))?;
        } else {
            // SAFETY: every index of the launch is inside the matrix.
            on(acc, e, unsafe { lu_update_unchecked(a, k) })?;
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
    let mut par = start.clone();
    let t_rayon = ctx.time(|| {
        par.copy_from_slice(&start);
        rayon_lu(&mut par, n, steps);
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
    let size = format!("{n} x {n} f32");
    ctx.push_row(Row {
        name: format!("LU update, offset indices, {steps} pivots (simple, checked; CPU: serial)"),
        size: size.clone(),
        amp: timed(t_amp, work),
        glsl: Cell::None,
        cpu: timed(t_cpu, work),
        native: native_cell(&t_native, Some(work)),
    });
    rayon_diagnostic(ctx, "LU update", size, t_rayon);
    ctx.checks
        .push(check("LU update (bit for bit)", &amp_out, &amp_out, &cpu));
    if t_native.is_ok() {
        ctx.checks
            .push(check_native("LU update (bit for bit)", &native_out, &cpu));
    }
    check_rayon(ctx, "LU update", &par, &cpu);
    Ok(())
}

/// The stencil kernels checked and `unchecked`, on the Vulkan device and natively, for the
/// bounds table; the results of each pair must agree.
pub(super) fn stencil_bounds_rows(
    ctx: &mut Ctx<'_>,
    out: &mut Vec<BoundsCost>,
) -> Result<(), BoxError> {
    let sizes = Sizes::of(ctx);
    out.push(grid_bounds_row(ctx, &JACOBI5, [sizes.plane; 2])?);
    out.push(grid_bounds_row(ctx, &CONV9, [sizes.plane; 2])?);
    out.push(grid_bounds_row(ctx, &HEAT7, [sizes.cube; 3])?);

    let (lu_n, steps) = sizes.lu;
    let start = matrix(lu_n);
    let native = ctx.native.clone();
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

/// A grid stencil's bounds-table row: checked against `unchecked` on the Vulkan device and
/// natively.
fn grid_bounds_row<const N: usize>(
    ctx: &mut Ctx<'_>,
    s: &GridStencil<N>,
    dims: [usize; N],
) -> Result<BoundsCost, BoxError> {
    let a = grid(dims.iter().product());
    let e = interior(dims);
    let native = ctx.native.clone();
    let mut rows = Vec::new();
    for acc in [None, Some(&native)] {
        let av = match acc {
            None => Array::from_slice(dims, &a)?,
            Some(acc) => Array::from_slice_on(acc, dims, &a)?,
        };
        let fresh = || match acc {
            None => Array::<f32, N>::new(dims),
            Some(acc) => Array::<f32, N>::new_on(acc, dims),
        };
        let (mut oc, mut ou) = (fresh()?, fresh()?);
        let times = ctx.checked_pair(
            acc.is_some(),
            || Ok((s.checked)(acc, e, &av, &mut oc)?),
            || Ok((s.unchecked)(acc, e, &av, &mut ou)?),
        )?;
        if times.is_some() {
            let (c, u) = (oc.to_vec()?, ou.to_vec()?);
            ctx.checks
                .push(check(&format!("{} checked/unchecked", s.name), &c, &u, &u));
        }
        rows.push(times);
    }
    let sides: Vec<String> = dims.iter().map(usize::to_string).collect();
    Ok(bounds_row(
        &format!("{}, offset indices", s.name),
        format!("{} f32", sides.join(" x ")),
        &rows,
    ))
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
