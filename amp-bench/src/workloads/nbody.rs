//! Few, heavy threads: one n-body step's accelerations (2,048 bodies, each thread summing the
//! pull of every other body, as rayon-demo's n-body does), a simple kernel whose loop runs to
//! a view's extent; beside it the same computation with rayon (`par_iter` over the bodies, the
//! same order of additions inside each), compared bit for bit. The native accelerator must
//! spread these 2,048 threads over its pool although they are far fewer than a launch of
//! light threads needs to be split.

use amp::prelude::*;
use rayon::prelude::*;

use super::{Ctx, Workload};
use crate::report::{check, check_native, native_cell, timed, Cell, Row, Work};
use crate::BoxError;

/// The n-body row.
pub struct Nbody;

impl Workload for Nbody {
    fn section(&self) -> &'static str {
        "nbody"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        nbody_row(ctx)
    }
}

/// Softening: keeps the pull of a body on itself zero and close pairs finite.
const EPS: f32 = 0.01;

#[kernel(amp)]
fn accelerations(idx: Index<1>, pos: ArrayView<Float4, 1>, acc: ArrayViewMut<Float4, 1>) {
    let p = pos[idx];
    let mut a = Float4::new(0.0, 0.0, 0.0, 0.0);
    for j in 0..pos.extent()[0] {
        let q = pos[[j]];
        let (dx, dy, dz) = (q.x - p.x, q.y - p.y, q.z - p.z);
        let d2 = dx * dx + dy * dy + dz * dz + EPS;
        let s = q.w / (d2 * d2.sqrt());
        a.x += dx * s;
        a.y += dy * s;
        a.z += dz * s;
    }
    acc[idx] = a;
}

/// One body's acceleration in the kernel's order of operations.
fn pull(pos: &[[f32; 4]], p: [f32; 4]) -> [f32; 4] {
    let mut a = [0.0f32; 4];
    for q in pos {
        let (dx, dy, dz) = (q[0] - p[0], q[1] - p[1], q[2] - p[2]);
        let d2 = dx * dx + dy * dy + dz * dz + EPS;
        let s = q[3] / (d2 * d2.sqrt());
        a[0] += dx * s;
        a[1] += dy * s;
        a[2] += dz * s;
    }
    a
}

fn nbody_row(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = if ctx.cfg.tiny { 256 } else { 2048 };
    let bodies: Vec<[f32; 4]> = (0..n)
        .map(|i| {
            let t = i as f32;
            [
                (t * 0.37).sin(),
                (t * 0.91).cos(),
                (t * 0.13).sin() * 0.5,
                1.0 + (i % 7) as f32 * 0.125,
            ]
        })
        .collect();
    let pos: Vec<Float4> = bodies
        .iter()
        .map(|b| Float4::new(b[0], b[1], b[2], b[3]))
        .collect();
    let e = Extent::new([n]);
    let mut amp_out = vec![Float4::new(0.0, 0.0, 0.0, 0.0); n];
    let t_amp = {
        let pv = ArrayView::new([n], &pos)?;
        let mut av = ArrayViewMut::new([n], &mut amp_out)?;
        let t = ctx.time_amp(|| {
            parallel_for_each(e, accelerations(&pv, &mut av))?;
            av.synchronize()?;
            Ok(())
        })?;
        drop(av);
        t
    };
    let mut cpu = vec![[0.0f32; 4]; n];
    let t_cpu = ctx.time(|| {
        cpu.par_iter_mut()
            .zip(&bodies)
            .for_each(|(a, &p)| *a = pull(&bodies, p));
        Ok(())
    })?;
    let native = ctx.native.clone();
    let mut native_out = vec![Float4::new(0.0, 0.0, 0.0, 0.0); n];
    let t_native = {
        let pv = ArrayView::new([n], &pos)?;
        let mut av = ArrayViewMut::new([n], &mut native_out)?;
        ctx.time_native(|| {
            parallel_for_each_on(&native, e, accelerations(&pv, &mut av))?;
            Ok(())
        })?
    };
    // About 20 floating-point operations per interaction.
    let work = Work::Flops(20.0 * (n * n) as f64);
    ctx.push_row(Row {
        name: "n-body accelerations, one thread per body (simple, checked; CPU: rayon)".into(),
        size: format!("{n} bodies"),
        amp: timed(t_amp, work),
        glsl: Cell::None,
        cpu: timed(t_cpu, work),
        native: native_cell(&t_native, Some(work)),
    });
    let flat = |v: &[Float4]| -> Vec<[u32; 3]> {
        v.iter()
            .map(|a| [a.x.to_bits(), a.y.to_bits(), a.z.to_bits()])
            .collect()
    };
    let host: Vec<[u32; 3]> = cpu
        .iter()
        .map(|a| [a[0].to_bits(), a[1].to_bits(), a[2].to_bits()])
        .collect();
    let device = flat(&amp_out);
    ctx.checks
        .push(check("n-body (bit for bit)", &device, &device, &host));
    if t_native.is_ok() {
        ctx.checks.push(check_native(
            "n-body (bit for bit)",
            &flat(&native_out),
            &host,
        ));
    }
    Ok(())
}
