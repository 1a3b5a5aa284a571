//! The reductions: tree and sequential addressing in `tile_static` memory, and subgroup sums;
//! i32 and f32.

use amp::prelude::*;
use amp::KernelArg;
use rayon::prelude::*;

use super::{Ctx, Workload};
use crate::glsl::{fold, push, raw, GLSL_T256, G_REDUCE, G_REDUCE_SUBGROUP, SUBGROUP_EXTENSIONS};
use crate::kernels::{
    reduce_seq_f32, reduce_seq_i32, reduce_subgroup, reduce_tree_f32, reduce_tree_i32, RT,
};
use crate::report::{check, count, workload_row, Check, Diagnostic, Work};
use crate::BoxError;

/// The reductions and their native diagnostics.
pub struct Reductions;

impl Workload for Reductions {
    fn section(&self) -> &'static str {
        "reductions"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        reductions(ctx)
    }
}

fn reductions(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = ctx.cfg.n();
    // i32: wrapping sums of scrambled values.
    let xs: Vec<i32> = (0..n as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 4) as i32)
        .collect();
    reduction_rows(
        ctx,
        ("i32", "int"),
        &xs,
        |v| v.par_iter().copied().reduce(|| 0, i32::wrapping_add),
        |v| v.iter().fold(0, |x, &y| x.wrapping_add(y)),
        |on, shape, a, sums| {
            let e = Extent::new([n]).tile::<RT>();
            match shape {
                // SAFETY: the kernel indexes only inside its views over this extent.
                Shape::Tree => parallel_for_each_on(on, e, unsafe { reduce_tree_i32(a, sums) }),
                // SAFETY: the kernel indexes only inside its views over this extent.
                Shape::Sequential => {
                    parallel_for_each_on(on, e, unsafe { reduce_seq_i32(a, sums) })
                }
                // SAFETY: the kernel indexes only inside its views over this extent.
                Shape::Subgroup => parallel_for_each_on(on, e, unsafe { reduce_subgroup(a, sums) }),
            }
        },
    )?;
    reduction_diagnostics(ctx, &xs)?;
    // f32: values -1, 0, 1 repeating, so every partial sum is a small integer (exact).
    let xs: Vec<f32> = (0..n).map(|i| (i % 3) as f32 - 1.0).collect();
    reduction_rows(
        ctx,
        ("f32", "float"),
        &xs,
        |v| v.par_iter().sum(),
        |v| v.iter().sum(),
        |on, shape, a, sums| {
            let e = Extent::new([n]).tile::<RT>();
            match shape {
                // SAFETY: the kernel indexes only inside its views over this extent.
                Shape::Tree => parallel_for_each_on(on, e, unsafe { reduce_tree_f32(a, sums) }),
                // SAFETY: the kernel indexes only inside its views over this extent.
                Shape::Sequential => {
                    parallel_for_each_on(on, e, unsafe { reduce_seq_f32(a, sums) })
                }
                // SAFETY: the kernel indexes only inside its views over this extent.
                Shape::Subgroup => parallel_for_each_on(on, e, unsafe { reduce_subgroup(a, sums) }),
            }
        },
    )
}

/// How a tile combines its 256 values.
#[derive(Clone, Copy)]
enum Shape {
    /// Interleaved addressing in `tile_static` memory (`l % 2s == 0`).
    Tree,
    /// Sequential addressing in `tile_static` memory (`l < s`).
    Sequential,
    /// Subgroup sums, then one value per subgroup.
    Subgroup,
}

/// Native time of the row named `name` (the last one), for the diagnostics.
fn native_secs(ctx: &Ctx<'_>, name: &str) -> Option<f64> {
    ctx.rows
        .iter()
        .rev()
        .find(|r| r.name == name)?
        .native
        .secs()
}

/// Why the native reductions trail the CPU column: the kernels' own algorithm (each tile
/// copied into a local array, then 8 passes over all 256 lanes with a barrier between them)
/// written in plain Rust, rayon over tiles, beside the native kernel and the CPU column.
fn reduction_diagnostics(ctx: &mut Ctx<'_>, xs: &[i32]) -> Result<(), BoxError> {
    if ctx.cfg.count.is_some() {
        return Ok(());
    }
    let want = xs.iter().fold(0i32, |s, &x| s.wrapping_add(x));
    for tree in [true, false] {
        let label = if tree { "tree" } else { "sequential" };
        let name = format!("reduce i32, {label} (+ CPU pass over tile sums)");
        let Some(t_native) = native_secs(ctx, &name) else {
            continue;
        };
        let mut sums = vec![0i32; xs.len() / RT];
        let mut total = 0;
        let t_emulated = ctx.time(|| {
            sums.par_iter_mut()
                .zip(xs.par_chunks(RT))
                .for_each(|(out, tile)| {
                    let mut sh = [0i32; RT];
                    sh.copy_from_slice(tile);
                    if tree {
                        let mut s = 1;
                        while s < RT {
                            for l in 0..RT {
                                if l % (2 * s) == 0 {
                                    sh[l] = sh[l].wrapping_add(sh[l + s]);
                                }
                            }
                            s *= 2;
                        }
                    } else {
                        let mut s = RT / 2;
                        while s > 0 {
                            for l in 0..RT {
                                if l < s {
                                    sh[l] = sh[l].wrapping_add(sh[l + s]);
                                }
                            }
                            s /= 2;
                        }
                    }
                    *out = sh[0];
                });
            total = sums.iter().fold(0i32, |s, &x| s.wrapping_add(x));
            Ok(())
        })?;
        ctx.checks.push(Check {
            workload: format!("{name}, the kernel's algorithm in plain Rust"),
            agree: total == want,
            detail: format!("{total} vs CPU {want}"),
        });
        let t_cpu = ctx
            .rows
            .iter()
            .rev()
            .find(|r| r.name == name)
            .and_then(|r| r.cpu.secs())
            .unwrap_or(f64::NAN);
        let size = format!("{} i32", count(xs.len()));
        let d = |variant: &str, secs| Diagnostic {
            workload: name.clone(),
            size: size.clone(),
            variant: variant.into(),
            secs,
        };
        ctx.diagnostics
            .push(d("the kernel natively (`unchecked`)", t_native));
        ctx.diagnostics.push(d(
            "the kernel's algorithm in plain Rust (rayon over tiles; each tile copied into a \
             local [i32; 256], then 8 passes over all 256 lanes, as the barriers order them)",
            t_emulated,
        ));
        ctx.diagnostics.push(d(
            "the CPU column: rayon `reduce` (one pass, vectorised)",
            t_cpu,
        ));
    }
    Ok(())
}

/// The tree, sequential and subgroup reduction rows of one element type (`ty`: its Rust and GLSL
/// names): `launch(on, shape, a, sums)` runs the amp kernel on `on`, `finish` adds up the tile
/// sums on the CPU (the amp, glslang and native columns pay it), `cpu_total` is the CPU column.
fn reduction_rows<T>(
    ctx: &mut Ctx<'_>,
    (ty, glsl_ty): (&str, &str),
    xs: &[T],
    cpu_total: impl Fn(&[T]) -> T,
    finish: impl Fn(&[T]) -> T,
    launch: impl Fn(&Accelerator, Shape, &Array<T, 1>, &mut Array<T, 1>) -> Result<(), amp::Error>,
) -> Result<(), BoxError>
where
    T: amp::DeviceElement + Default + PartialEq + std::fmt::Debug,
{
    let n = xs.len();
    let acc = ctx.acc.clone();
    let tiles = n / RT;
    let groups = fold(&acc, tiles);
    let pc = push(&[tiles as u32]);
    let size = format!("{} {ty}", count(n));
    let bytes = Work::Bytes(4.0 * n as f64);
    let a = Array::from_slice([n], xs)?;
    let mut s_amp = Array::<T, 1>::new([tiles])?;
    let mut s_glsl = Array::<T, 1>::new([tiles])?;
    let total = |s: &Array<T, 1>| -> Result<T, BoxError> { Ok(finish(&s.to_vec()?)) };
    let native = ctx.native.clone();
    let na = Array::from_slice_on(&native, [n], xs)?;
    let mut ns = Array::<T, 1>::new_on(&native, [tiles])?;
    let mut cpu = T::default();
    let t_cpu = ctx.time(|| {
        cpu = cpu_total(xs);
        Ok(())
    })?;
    let loops = [
        (
            Shape::Tree,
            "tree",
            "for (uint s = 1u; s < 256u; s *= 2u)",
            "l % (2u * s) == 0u",
        ),
        (
            Shape::Sequential,
            "sequential",
            "for (uint s = 128u; s > 0u; s >>= 1u)",
            "l < s",
        ),
        (Shape::Subgroup, "subgroups", "", ""),
    ];
    for (shape, label, lp, cond) in loops {
        let source = match shape {
            Shape::Subgroup => format!(
                "{}{}",
                GLSL_T256.replace("#version 450\n", SUBGROUP_EXTENSIONS),
                G_REDUCE_SUBGROUP.replace("T ", &format!("{glsl_ty} "))
            ),
            _ => format!(
                "{GLSL_T256}{}",
                G_REDUCE
                    .replace("T ", &format!("{glsl_ty} "))
                    .replace("LOOP", lp)
                    .replace("COND", cond)
            ),
        };
        let k = raw(&acc, &format!("reduce_{label}_{ty}"), &source, 2, 4)?;
        let (mut r_amp, mut r_glsl) = (T::default(), T::default());
        let (t_amp, t_glsl) = ctx.time_pair(
            || {
                launch(&acc, shape, &a, &mut s_amp)?;
                r_amp = total(&s_amp)?;
                Ok(())
            },
            || {
                k.dispatch(
                    groups,
                    vec![KernelArg::read(&a), KernelArg::write(&mut s_glsl)],
                    &pc,
                )?;
                r_glsl = total(&s_glsl)?;
                Ok(())
            },
        )?;
        // Natively the tile sums are host memory: the CPU pass reads them in place.
        let mut r_native = T::default();
        let t_native = ctx.time_native(|| {
            launch(&native, shape, &na, &mut ns)?;
            r_native = finish(ns.as_slice()?);
            Ok(())
        })?;
        let name = format!("reduce {ty}, {label} (+ CPU pass over tile sums)");
        ctx.check_native(&name, &t_native, || Ok(vec![r_native]), &[cpu])?;
        ctx.push_row(workload_row(
            &name,
            size.clone(),
            bytes,
            [t_amp, t_glsl, t_cpu],
            &t_native,
        ));
        ctx.checks.push(check(&name, &[r_amp], &[r_glsl], &[cpu]));
    }
    Ok(())
}
