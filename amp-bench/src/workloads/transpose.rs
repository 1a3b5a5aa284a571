//! The transposes through `tile_static` tiles, padded and square.

use amp::prelude::*;
use amp::KernelArg;
use rayon::prelude::*;

use super::{Ctx, Workload};
use crate::glsl::{push, raw, G_TRANSPOSE};
use crate::kernels::{transpose_padded, transpose_square};
use crate::report::{check, workload_row, Work};
use crate::BoxError;

/// The transposes.
pub struct Transpose;

impl Workload for Transpose {
    fn section(&self) -> &'static str {
        "transpose"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        transpose(ctx)
    }
}

fn transpose(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = ctx.cfg.transpose_side();
    let acc = ctx.acc.clone();
    let xs: Vec<f32> = (0..n * n).map(|i| i as f32).collect();
    let a = Array::from_slice([n, n], &xs)?;
    let mut o_amp = Array::<f32, 2>::new([n, n])?;
    let mut o_glsl = Array::<f32, 2>::new([n, n])?;
    let bytes = Work::Bytes(8.0 * (n * n) as f64);
    let mut cpu = vec![0.0f32; n * n];
    let t_cpu = ctx.time(|| {
        cpu.par_chunks_mut(n).enumerate().for_each(|(j, row)| {
            for (i, o) in row.iter_mut().enumerate() {
                *o = xs[i * n + j];
            }
        });
        Ok(())
    })?;
    let pc = push(&[n as u32, n as u32]);
    let native = ctx.native.clone();
    let na = Array::from_slice_on(&native, [n, n], &xs)?;
    let mut no = Array::<f32, 2>::new_on(&native, [n, n])?;
    for (label, width, padded) in [
        ("padded [[f32; 33]; 32]", 33, true),
        ("square [[f32; 32]; 32]", 32, false),
    ] {
        let src = G_TRANSPOSE.replace("[W]", &format!("[{width}]"));
        let k = raw(&acc, &format!("transpose_{width}"), &src, 2, 8)?;
        let (t_amp, t_glsl) = ctx.time_pair(
            || {
                let e = Extent::new([n, n]).tile::<32, 32>();
                if padded {
                    // SAFETY: the kernel indexes only inside its views over this extent.
                    parallel_for_each(e, unsafe { transpose_padded(&a, &mut o_amp) })?;
                } else {
                    // SAFETY: the kernel indexes only inside its views over this extent.
                    parallel_for_each(e, unsafe { transpose_square(&a, &mut o_amp) })?;
                }
                Ok(())
            },
            || {
                Ok(k.dispatch(
                    [(n / 32) as u32, (n / 32) as u32, 1],
                    vec![KernelArg::read(&a), KernelArg::write(&mut o_glsl)],
                    &pc,
                )?)
            },
        )?;
        no.copy_from_slice(&vec![0.0; n * n])?;
        let t_native = ctx.time_native(|| {
            let e = Extent::new([n, n]).tile::<32, 32>();
            if padded {
                // SAFETY: the kernel indexes only inside its views over this extent.
                parallel_for_each_on(&native, e, unsafe { transpose_padded(&na, &mut no) })?;
            } else {
                // SAFETY: the kernel indexes only inside its views over this extent.
                parallel_for_each_on(&native, e, unsafe { transpose_square(&na, &mut no) })?;
            }
            Ok(())
        })?;
        let name = format!("transpose, tile {label}");
        ctx.check_native(&name, &t_native, || Ok(no.to_vec()?), &cpu)?;
        ctx.push_row(workload_row(
            &name,
            format!("{n} x {n} f32"),
            bytes,
            [t_amp, t_glsl, t_cpu],
            &t_native,
        ));
        ctx.checks
            .push(check(&name, &o_amp.to_vec()?, &o_glsl.to_vec()?, &cpu));
    }
    Ok(())
}
