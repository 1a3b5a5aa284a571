//! What bounds checking costs: the same kernels checked (the default) and `unchecked`.

use amp::prelude::*;

use super::{Ctx, Workload};
use crate::kernels::{
    histogram, histogram_checked, mm_simple, mm_simple_checked, mm_tiled, mm_tiled_checked,
    reduce_tree_i32, reduce_tree_i32_checked, scan_tiles, scan_tiles_checked, vadd, vadd_checked,
    RT, TS,
};
use crate::measure::median;
use crate::report::{check, count, BoundsCost};
use crate::BoxError;

/// The bounds-checking cost table; runs last.
pub struct Bounds;

impl Workload for Bounds {
    fn section(&self) -> &'static str {
        "bounds"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        ctx.bounds = bounds_cost(ctx)?;
        Ok(())
    }
}

/// The matrix products with and without bounds checks, timed in alternation (checked,
/// unchecked, checked, ...) so drift in the machine's load hits both alike; the results must be
/// identical and the checked launches must report nothing.
fn bounds_cost(ctx: &mut Ctx<'_>) -> Result<Vec<BoundsCost>, BoxError> {
    let n = if ctx.cfg.tiny {
        64
    } else if ctx.cfg.gpu {
        ctx.cfg.fit_side(2048)
    } else {
        512
    };
    let av: Vec<f32> = (0..n * n)
        .map(|i| ((i * 7 + 3) % 17) as f32 - 8.0)
        .collect();
    let bv: Vec<f32> = (0..n * n)
        .map(|i| ((i * 5 + 1) % 13) as f32 - 6.0)
        .collect();
    let a = Array::from_slice([n, n], &av)?;
    let b = Array::from_slice([n, n], &bv)?;
    let mut c_checked = Array::<f32, 2>::new([n, n])?;
    let mut c_unchecked = Array::<f32, 2>::new([n, n])?;
    let native = ctx.native.clone();
    let na = Array::from_slice_on(&native, [n, n], &av)?;
    let nb = Array::from_slice_on(&native, [n, n], &bv)?;
    let mut nc_checked = Array::<f32, 2>::new_on(&native, [n, n])?;
    let mut nc_unchecked = Array::<f32, 2>::new_on(&native, [n, n])?;
    let rounds = if ctx.cfg.tiny { 1 } else { 3 };
    let size = format!("{n} x {n}");
    let mut out = Vec::new();

    let (mut checked, mut unchecked) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        checked.push(ctx.time(|| {
            Ok(parallel_for_each(
                Extent::new([n, n]),
                mm_simple_checked(&a, &b, &mut c_checked),
            )?)
        })?);
        unchecked.push(ctx.time(|| {
            Ok(parallel_for_each(
                Extent::new([n, n]),
                // SAFETY: the kernel indexes only inside its views over this extent.
                unsafe { mm_simple(&a, &b, &mut c_unchecked) },
            )?)
        })?);
    }
    let (c1, c2) = (c_checked.to_vec()?, c_unchecked.to_vec()?);
    ctx.checks
        .push(check("matmul simple checked/unchecked", &c1, &c2, &c2));
    let e = Extent::new([n, n]);
    let nat = ctx.checked_pair(
        true,
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                mm_simple_checked(&na, &nb, &mut nc_checked),
            )?)
        },
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                // SAFETY: the kernel indexes only inside its views over this extent.
                unsafe { mm_simple(&na, &nb, &mut nc_unchecked) },
            )?)
        },
    )?;
    if nat.is_some() {
        let (n1, n2) = (nc_checked.to_vec()?, nc_unchecked.to_vec()?);
        ctx.checks.push(check(
            "matmul simple checked/unchecked (native)",
            &n1,
            &n2,
            &c2,
        ));
    }
    out.push(BoundsCost {
        workload: "matmul, simple".into(),
        size: size.clone(),
        checked: median(&mut checked),
        unchecked: median(&mut unchecked),
        native: nat,
    });

    let (mut checked, mut unchecked) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        checked.push(ctx.time(|| {
            Ok(parallel_for_each(
                Extent::new([n, n]).tile::<TS, TS>(),
                mm_tiled_checked(&a, &b, &mut c_checked),
            )?)
        })?);
        unchecked.push(ctx.time(|| {
            Ok(parallel_for_each(
                Extent::new([n, n]).tile::<TS, TS>(),
                // SAFETY: the kernel indexes only inside its views over this extent.
                unsafe { mm_tiled(&a, &b, &mut c_unchecked) },
            )?)
        })?);
    }
    let (c1, c2) = (c_checked.to_vec()?, c_unchecked.to_vec()?);
    ctx.checks
        .push(check("matmul tiled checked/unchecked", &c1, &c2, &c2));
    nc_checked.copy_from_slice(&vec![0.0; n * n])?;
    nc_unchecked.copy_from_slice(&vec![0.0; n * n])?;
    let e = Extent::new([n, n]).tile::<TS, TS>();
    let nat = ctx.checked_pair(
        true,
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                mm_tiled_checked(&na, &nb, &mut nc_checked),
            )?)
        },
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                // SAFETY: the kernel indexes only inside its views over this extent.
                unsafe { mm_tiled(&na, &nb, &mut nc_unchecked) },
            )?)
        },
    )?;
    if nat.is_some() {
        let (n1, n2) = (nc_checked.to_vec()?, nc_unchecked.to_vec()?);
        ctx.checks.push(check(
            "matmul tiled checked/unchecked (native)",
            &n1,
            &n2,
            &c2,
        ));
    }
    out.push(BoundsCost {
        workload: "matmul, tiled 16 x 16 tile_static".into(),
        size,
        checked: median(&mut checked),
        unchecked: median(&mut unchecked),
        native: nat,
    });

    // A memory-bound kernel with one thread per element: the checks' worst case.
    let n = ctx.cfg.n();
    let x = Array::from_slice([n], &vec![1.5f32; n])?;
    let y = Array::from_slice([n], &vec![2.25f32; n])?;
    let mut z_checked = Array::<f32, 1>::new([n])?;
    let mut z_unchecked = Array::<f32, 1>::new([n])?;
    let (mut checked, mut unchecked) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        checked.push(ctx.time(|| {
            Ok(parallel_for_each(
                Extent::new([n]),
                vadd_checked(&x, &y, &mut z_checked),
            )?)
        })?);
        unchecked.push(ctx.time(|| {
            Ok(parallel_for_each(
                Extent::new([n]),
                // SAFETY: the kernel indexes only inside its views over this extent.
                unsafe { vadd(&x, &y, &mut z_unchecked) },
            )?)
        })?);
    }
    let (z1, z2) = (z_checked.to_vec()?, z_unchecked.to_vec()?);
    ctx.checks
        .push(check("vector add checked/unchecked", &z1, &z2, &z2));
    let nx = Array::from_slice_on(&native, [n], &vec![1.5f32; n])?;
    let ny = Array::from_slice_on(&native, [n], &vec![2.25f32; n])?;
    let mut nz_checked = Array::<f32, 1>::new_on(&native, [n])?;
    let mut nz_unchecked = Array::<f32, 1>::new_on(&native, [n])?;
    let e = Extent::new([n]);
    let nat = ctx.checked_pair(
        true,
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                vadd_checked(&nx, &ny, &mut nz_checked),
            )?)
        },
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                // SAFETY: the kernel indexes only inside its views over this extent.
                unsafe { vadd(&nx, &ny, &mut nz_unchecked) },
            )?)
        },
    )?;
    if nat.is_some() {
        let (n1, n2) = (nz_checked.to_vec()?, nz_unchecked.to_vec()?);
        ctx.checks.push(check(
            "vector add checked/unchecked (native)",
            &n1,
            &n2,
            &z2,
        ));
    }
    out.push(BoundsCost {
        workload: "vector add".into(),
        size: format!("{} f32", count(n)),
        checked: median(&mut checked),
        unchecked: median(&mut unchecked),
        native: nat,
    });
    tiled_bounds_rows(ctx, &mut out)?;
    super::stencils::stencil_bounds_rows(ctx, &mut out)?;
    Ok(out)
}

/// The tiled kernels of the reduction, histogram and scan rows, checked and unchecked: on the
/// Vulkan device, and natively (where the checks a tile can decide at its start are one
/// comparison per tile: docs/native.md).
fn tiled_bounds_rows(ctx: &mut Ctx<'_>, out: &mut Vec<BoundsCost>) -> Result<(), BoxError> {
    let n = ctx.cfg.n() / RT * RT;
    let tiles = n / RT;
    let native = ctx.native.clone();
    let e = Extent::new([n]).tile::<RT>();
    let xs: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let ints: Vec<i32> = xs.iter().map(|&x| x as i32).collect();
    let size = format!("{} u32", count(n));
    let mut push = |ctx: &mut Ctx<'_>, workload: &str, times: BoundsTimes, r: [Vec<u32>; 4]| {
        let [vc, vu, nc, nu] = r;
        ctx.checks.push(check(
            &format!("{workload} checked/unchecked"),
            &vc,
            &vu,
            &vu,
        ));
        if times.2.is_some() {
            ctx.checks.push(check(
                &format!("{workload} checked/unchecked (native)"),
                &nc,
                &nu,
                &vu,
            ));
        }
        out.push(BoundsCost {
            workload: workload.into(),
            size: size.clone(),
            checked: times.0,
            unchecked: times.1,
            native: times.2,
        });
    };

    // The tree reduction's tile sums (i32, compared as their bits).
    let a = Array::from_slice([n], &ints)?;
    let na = Array::from_slice_on(&native, [n], &ints)?;
    let (mut s0, mut s1) = (
        Array::<i32, 1>::new([tiles])?,
        Array::<i32, 1>::new([tiles])?,
    );
    let (mut n0, mut n1) = (
        Array::<i32, 1>::new_on(&native, [tiles])?,
        Array::<i32, 1>::new_on(&native, [tiles])?,
    );
    let times = bounds_times(
        ctx,
        || Ok(parallel_for_each(e, reduce_tree_i32_checked(&a, &mut s0))?),
        // SAFETY: the kernel indexes only inside its views over this extent.
        || {
            Ok(parallel_for_each(e, unsafe {
                reduce_tree_i32(&a, &mut s1)
            })?)
        },
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                reduce_tree_i32_checked(&na, &mut n0),
            )?)
        },
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                // SAFETY: the kernel indexes only inside its views over this extent.
                unsafe { reduce_tree_i32(&na, &mut n1) },
            )?)
        },
    )?;
    let bits = |a: &Array<i32, 1>| -> Result<Vec<u32>, BoxError> {
        Ok(a.to_vec()?.into_iter().map(|x| x as u32).collect())
    };
    let r = [bits(&s0)?, bits(&s1)?, bits(&n0)?, bits(&n1)?];
    push(ctx, "reduce i32, tree (tiles of 256)", times, r);

    // The histogram.
    let d = Array::from_slice([n], &xs)?;
    let nd = Array::from_slice_on(&native, [n], &xs)?;
    let (mut h0, mut h1) = (Array::<u32, 1>::new([256])?, Array::<u32, 1>::new([256])?);
    let (mut m0, mut m1) = (
        Array::<u32, 1>::new_on(&native, [256])?,
        Array::<u32, 1>::new_on(&native, [256])?,
    );
    // Each timed launch adds to the bins: the results are compared per launch count below.
    let times = bounds_times(
        ctx,
        || Ok(parallel_for_each(e, histogram_checked(&d, &mut h0))?),
        // SAFETY: the kernel indexes only inside its views over this extent.
        || Ok(parallel_for_each(e, unsafe { histogram(&d, &mut h1) })?),
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                histogram_checked(&nd, &mut m0),
            )?)
        },
        // SAFETY: the kernel indexes only inside its views over this extent.
        || {
            Ok(parallel_for_each_on(&native, e, unsafe {
                histogram(&nd, &mut m1)
            })?)
        },
    )?;
    // Bins after one launch of each (the timed runs added up different counts).
    let once = |k: &dyn Fn(&mut Array<u32, 1>) -> Result<(), amp::Error>,
                acc: &Accelerator|
     -> Result<Vec<u32>, BoxError> {
        let mut bins = Array::<u32, 1>::new_on(acc, [256])?;
        k(&mut bins)?;
        Ok(bins.to_vec()?)
    };
    let acc = ctx.acc.clone();
    let r = [
        once(&|b| parallel_for_each(e, histogram_checked(&d, b)), &acc)?,
        // SAFETY: the kernel indexes only inside its views over this extent.
        once(&|b| parallel_for_each(e, unsafe { histogram(&d, b) }), &acc)?,
        once(
            &|b| parallel_for_each_on(&native, e, histogram_checked(&nd, b)),
            &native,
        )?,
        once(
            // SAFETY: the kernel indexes only inside its views over this extent.
            &|b| parallel_for_each_on(&native, e, unsafe { histogram(&nd, b) }),
            &native,
        )?,
    ];
    push(ctx, "histogram, 256 bins (tiles of 256)", times, r);

    // The tile scan.
    let (mut o0, mut o1) = (Array::<u32, 1>::new([n])?, Array::<u32, 1>::new([n])?);
    let (mut t0, mut t1) = (
        Array::<u32, 1>::new([tiles])?,
        Array::<u32, 1>::new([tiles])?,
    );
    let (mut p0, mut p1) = (
        Array::<u32, 1>::new_on(&native, [n])?,
        Array::<u32, 1>::new_on(&native, [n])?,
    );
    let (mut q0, mut q1) = (
        Array::<u32, 1>::new_on(&native, [tiles])?,
        Array::<u32, 1>::new_on(&native, [tiles])?,
    );
    let times = bounds_times(
        ctx,
        || {
            Ok(parallel_for_each(
                e,
                scan_tiles_checked(&d, &mut o0, &mut t0),
            )?)
        },
        // SAFETY: the kernel indexes only inside its views over this extent.
        || {
            Ok(parallel_for_each(e, unsafe {
                scan_tiles(&d, &mut o1, &mut t1)
            })?)
        },
        || {
            let call = scan_tiles_checked(&nd, &mut p0, &mut q0);
            Ok(parallel_for_each_on(&native, e, call)?)
        },
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                // SAFETY: the kernel indexes only inside its views over this extent.
                unsafe { scan_tiles(&nd, &mut p1, &mut q1) },
            )?)
        },
    )?;
    let r = [o0.to_vec()?, o1.to_vec()?, p0.to_vec()?, p1.to_vec()?];
    push(ctx, "scan of each tile (tiles of 256)", times, r);
    Ok(())
}

/// Medians of a checked and an unchecked Vulkan launch (timed in alternation) and the same
/// pair natively (`Ctx::checked_pair`).
type BoundsTimes = (f64, f64, Option<(f64, f64)>);

fn bounds_times(
    ctx: &Ctx<'_>,
    mut checked: impl FnMut() -> Result<(), BoxError>,
    mut unchecked: impl FnMut() -> Result<(), BoxError>,
    native_checked: impl FnMut() -> Result<(), BoxError>,
    native_unchecked: impl FnMut() -> Result<(), BoxError>,
) -> Result<BoundsTimes, BoxError> {
    let rounds = if ctx.cfg.tiny { 1 } else { 3 };
    let (mut c, mut u) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        c.push(ctx.time(&mut checked)?);
        u.push(ctx.time(&mut unchecked)?);
    }
    let nat = ctx.checked_pair(true, native_checked, native_unchecked)?;
    Ok((median(&mut c), median(&mut u), nat))
}
