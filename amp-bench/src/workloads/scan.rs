//! The exclusive scan: a scan of each tile, a scan of the tile sums and an add.

use amp::prelude::*;
use amp::KernelArg;
use rayon::prelude::*;

use super::{Ctx, Workload};
use crate::glsl::{fold, push, raw, GLSL_1D, GLSL_T256, G_SCAN_ADD, G_SCAN_SUMS, G_SCAN_TILES};
use crate::kernels::{scan_add, scan_sums, scan_tiles, RT};
use crate::report::{check, count, workload_row, Diagnostic, Work};
use crate::BoxError;

/// The exclusive scan.
pub struct Scan;

impl Workload for Scan {
    fn section(&self) -> &'static str {
        "scan"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        scan(ctx)
    }
}

fn scan(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = ctx.cfg.n();
    let acc = ctx.acc.clone();
    let tiles = n / RT;
    let xs: Vec<u32> = (0..n).map(|i| (i * 7 % 5) as u32).collect();
    let input = Array::from_slice([n], &xs)?;
    let mut o_amp = Array::<u32, 1>::new([n])?;
    let mut o_glsl = Array::<u32, 1>::new([n])?;
    let mut s_amp = Array::<u32, 1>::new([tiles])?;
    let mut s_glsl = Array::<u32, 1>::new([tiles])?;
    let k_tiles = raw(
        &acc,
        "scan_tiles",
        &format!("{GLSL_T256}{G_SCAN_TILES}"),
        3,
        4,
    )?;
    let k_sums = raw(&acc, "scan_sums", G_SCAN_SUMS, 1, 4)?;
    let k_add = raw(&acc, "scan_add", &format!("{GLSL_1D}{G_SCAN_ADD}"), 2, 4)?;
    let (t_amp, t_glsl) = ctx.time_pair(
        || {
            parallel_for_each(
                Extent::new([n]).tile::<RT>(),
                // SAFETY: the kernel indexes only inside its views over this extent.
                unsafe { scan_tiles(&input, &mut o_amp, &mut s_amp) },
            )?;
            // SAFETY: the kernel indexes only inside its views over this extent.
            parallel_for_each(Extent::new([1024]).tile::<1024>(), unsafe {
                scan_sums(&mut s_amp)
            })?;
            // SAFETY: the kernel indexes only inside its views over this extent.
            parallel_for_each(Extent::new([n]), unsafe { scan_add(&mut o_amp, &s_amp) })?;
            Ok(())
        },
        || {
            k_tiles.dispatch(
                fold(&acc, tiles),
                vec![
                    KernelArg::read(&input),
                    KernelArg::write(&mut o_glsl),
                    KernelArg::write(&mut s_glsl),
                ],
                &push(&[tiles as u32]),
            )?;
            k_sums.dispatch(
                [1, 1, 1],
                vec![KernelArg::write(&mut s_glsl)],
                &push(&[tiles as u32]),
            )?;
            k_add.dispatch(
                fold(&acc, n.div_ceil(64)),
                vec![KernelArg::write(&mut o_glsl), KernelArg::read(&s_glsl)],
                &push(&[n as u32]),
            )?;
            Ok(())
        },
    )?;
    let mut cpu = vec![0u32; n];
    let t_cpu = ctx.time(|| {
        cpu_exclusive_scan(&xs, &mut cpu);
        Ok(())
    })?;
    let native = ctx.native.clone();
    let n_in = Array::from_slice_on(&native, [n], &xs)?;
    let mut n_out = Array::<u32, 1>::new_on(&native, [n])?;
    let mut n_sums = Array::<u32, 1>::new_on(&native, [tiles])?;
    let t_native = ctx.time_native(|| {
        parallel_for_each_on(
            &native,
            Extent::new([n]).tile::<RT>(),
            // SAFETY: the kernel indexes only inside its views over this extent.
            unsafe { scan_tiles(&n_in, &mut n_out, &mut n_sums) },
        )?;
        parallel_for_each_on(
            &native,
            Extent::new([1024]).tile::<1024>(),
            // SAFETY: the kernel indexes only inside its views over this extent.
            unsafe { scan_sums(&mut n_sums) },
        )?;
        // SAFETY: the kernel indexes only inside its views over this extent.
        parallel_for_each_on(&native, Extent::new([n]), unsafe {
            scan_add(&mut n_out, &n_sums)
        })?;
        Ok(())
    })?;
    ctx.check_native("exclusive scan", &t_native, || Ok(n_out.to_vec()?), &cpu)?;
    ctx.push_row(workload_row(
        "exclusive scan (tile scan + scan of tile sums + add)",
        format!("{} u32", count(n)),
        Work::Bytes(8.0 * n as f64),
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    if let Ok(t_all) = t_native {
        // Where the native scan's time goes: each of its three launches alone (after the
        // check above: they leave the output scrambled).
        let t_tiles = ctx.time_native(|| {
            Ok(parallel_for_each_on(
                &native,
                Extent::new([n]).tile::<RT>(),
                // SAFETY: the kernel indexes only inside its views over this extent.
                unsafe { scan_tiles(&n_in, &mut n_out, &mut n_sums) },
            )?)
        })?;
        let t_sums = ctx.time_native(|| {
            Ok(parallel_for_each_on(
                &native,
                Extent::new([1024]).tile::<1024>(),
                // SAFETY: the kernel indexes only inside its views over this extent.
                unsafe { scan_sums(&mut n_sums) },
            )?)
        })?;
        let t_add = ctx.time_native(|| {
            Ok(parallel_for_each_on(
                &native,
                Extent::new([n]),
                // SAFETY: the kernel indexes only inside its views over this extent.
                unsafe { scan_add(&mut n_out, &n_sums) },
            )?)
        })?;
        let name = "exclusive scan (tile scan + scan of tile sums + add)";
        let size = format!("{} u32", count(n));
        let t_algorithm = tile_scan_in_plain_rust(ctx, &xs)?;
        for (variant, t) in [
            ("the three launches natively", Ok(t_all)),
            (
                "`scan_tiles` natively (Hillis-Steele over each 256-element tile: 8 steps, 16 barriers)",
                t_tiles,
            ),
            (
                "`scan_sums` natively (one tile of 1024 threads: one worker thread)",
                t_sums,
            ),
            (
                "`scan_tiles`' algorithm in plain Rust (rayon over tiles; Hillis-Steele in a \
                 local [u32; 256]: 8 steps, each reading every lane before adding)",
                Ok(t_algorithm),
            ),
            ("`scan_add` natively (one add per element)", t_add),
            ("the CPU column: two-pass chunked scan over 64K-element chunks", Ok(t_cpu)),
        ] {
            if let Ok(secs) = t {
                ctx.diagnostics.push(Diagnostic {
                    workload: name.into(),
                    size: size.clone(),
                    variant: variant.into(),
                    secs,
                });
            }
        }
    }
    ctx.checks.push(check(
        "exclusive scan",
        &o_amp.to_vec()?,
        &o_glsl.to_vec()?,
        &cpu,
    ));
    Ok(())
}

/// `scan_tiles`' own algorithm in plain Rust, to tell the native back end's cost from the
/// algorithm's: each 256-element tile scanned Hillis-Steele in a local array (8 steps, each
/// reading every lane before adding, as the kernel's two barriers per step order it), rayon
/// over tiles. Checked against a sequential scan of each tile; returns its time.
fn tile_scan_in_plain_rust(ctx: &mut Ctx<'_>, xs: &[u32]) -> Result<f64, BoxError> {
    let mut out = vec![0u32; xs.len()];
    let mut sums = vec![0u32; xs.len() / RT];
    let secs = ctx.time(|| {
        out.par_chunks_mut(RT)
            .zip(xs.par_chunks(RT))
            .zip(sums.par_iter_mut())
            .for_each(|((out, tile), sum)| {
                let mut sh = [0u32; RT];
                sh.copy_from_slice(tile);
                let mut v = [0u32; RT];
                let mut off = 1;
                while off < RT {
                    for l in 0..RT {
                        v[l] = if l >= off { sh[l - off] } else { 0 };
                    }
                    for l in 0..RT {
                        sh[l] = sh[l].wrapping_add(v[l]);
                    }
                    off *= 2;
                }
                for l in 0..RT {
                    out[l] = sh[l].wrapping_sub(tile[l]);
                }
                *sum = sh[RT - 1];
            });
        Ok(())
    })?;
    let mut want = vec![0u32; xs.len()];
    for (w, tile) in want.chunks_mut(RT).zip(xs.chunks(RT)) {
        let mut s = 0u32;
        for (w, &x) in w.iter_mut().zip(tile) {
            *w = s;
            s = s.wrapping_add(x);
        }
    }
    ctx.checks.push(check(
        "scan_tiles' algorithm in plain Rust",
        &out,
        &want,
        &want,
    ));
    Ok(secs)
}

/// The CPU column's exclusive scan: chunk totals in parallel, a scan of the totals, then each
/// chunk's exclusive scan from its offset in parallel.
pub(crate) fn cpu_exclusive_scan(xs: &[u32], out: &mut [u32]) {
    const CHUNK: usize = 1 << 16;
    let totals: Vec<u32> = xs
        .par_chunks(CHUNK)
        .map(|c| c.iter().fold(0u32, |s, &x| s.wrapping_add(x)))
        .collect();
    let mut offsets = Vec::with_capacity(totals.len());
    let mut acc = 0u32;
    for t in totals {
        offsets.push(acc);
        acc = acc.wrapping_add(t);
    }
    out.par_chunks_mut(CHUNK)
        .zip(xs.par_chunks(CHUNK))
        .zip(offsets)
        .for_each(|((out, inp), mut s)| {
            for (o, &x) in out.iter_mut().zip(inp) {
                *o = s;
                s = s.wrapping_add(x);
            }
        });
}
