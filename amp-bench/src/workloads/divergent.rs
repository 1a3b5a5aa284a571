//! A loop under a condition that differs between threads: covariance's product of the data's
//! columns over the upper triangle only (`if j >= i`, as PolyBench's covariance writes it), a
//! simple kernel whose loop runs to a view's extent inside the `if`; beside it the same
//! computation in serial plain Rust and with rayon (over rows of the result), in the kernel's
//! order of additions, compared bit for bit. Natively, a batch of threads runs the loop
//! together with a per-thread mask (docs/native.md) instead of one thread at a time.

use amp::prelude::*;
use rayon::prelude::*;

use super::{Ctx, Workload};
use crate::report::{check, check_native, native_cell, timed, Cell, Diagnostic, Row, Work};
use crate::BoxError;

/// The divergent-loop row.
pub struct Divergent;

impl Workload for Divergent {
    fn section(&self) -> &'static str {
        "divergent"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        covariance_row(ctx)
    }
}

#[kernel(amp)]
fn upper_products(idx: Index<2>, data: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    let (i, j) = (idx[0], idx[1]);
    if j >= i {
        let mut s = 0.0;
        for r in 0..data.extent()[0] {
            s += data[[r, i]] * data[[r, j]];
        }
        out[idx] = s;
    }
}

/// Row `i` of the upper triangle, in the kernel's order of additions.
fn upper_row(data: &[f32], rows: usize, m: usize, i: usize, out: &mut [f32]) {
    for j in i..m {
        let mut s = 0.0f32;
        for r in 0..rows {
            s += data[r * m + i] * data[r * m + j];
        }
        out[j] = s;
    }
}

fn covariance_row(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let (rows, m) = if ctx.cfg.tiny {
        (32, 48)
    } else if ctx.cfg.gpu {
        (2048, 2048)
    } else {
        (512, 512)
    };
    let data: Vec<f32> = (0..rows * m)
        .map(|x| ((x * 37) % 101) as f32 / 64.0 - 0.75)
        .collect();
    let e = Extent::new([m, m]);
    let dv = ArrayView::new([rows, m], &data)?;
    let mut amp_out = vec![0f32; m * m];
    let t_amp = {
        let mut ov = ArrayViewMut::new([m, m], &mut amp_out)?;
        let t = ctx.time_amp(|| {
            parallel_for_each(e, upper_products(&dv, &mut ov))?;
            ov.synchronize()?;
            Ok(())
        })?;
        drop(ov);
        t
    };
    let mut serial = vec![0f32; m * m];
    let t_serial = ctx.time(|| {
        for (i, row) in serial.chunks_mut(m).enumerate() {
            upper_row(&data, rows, m, i, row);
        }
        Ok(())
    })?;
    let mut parallel = vec![0f32; m * m];
    let t_rayon = ctx.time(|| {
        parallel
            .par_chunks_mut(m)
            .enumerate()
            .for_each(|(i, row)| upper_row(&data, rows, m, i, row));
        Ok(())
    })?;
    let native = ctx.native.clone();
    let nd = Array::from_slice_on(&native, [rows, m], &data)?;
    let mut no = Array::<f32, 2>::new_on(&native, [m, m])?;
    let t_native = ctx.time_native(|| {
        parallel_for_each_on(&native, e, upper_products(&nd.view(), &mut no.view_mut()))?;
        Ok(())
    })?;
    let native_out = no.to_vec()?;
    // A multiply and an add per term, over the upper triangle.
    let work = Work::Flops(2.0 * (rows * m * (m + 1) / 2) as f64);
    let name = "covariance product, upper triangle under `if j >= i` (simple, checked; CPU: rayon)";
    let size = format!("{rows} x {m} f32");
    ctx.diagnostics.push(Diagnostic {
        workload: name.into(),
        size: size.clone(),
        variant: "serial plain Rust, the kernel's order of additions".into(),
        secs: t_serial,
    });
    ctx.push_row(Row {
        name: name.into(),
        size,
        amp: timed(t_amp, work),
        glsl: Cell::None,
        cpu: timed(t_rayon, work),
        native: native_cell(&t_native, Some(work)),
    });
    let upper = |v: &[f32]| -> Vec<u32> {
        (0..m)
            .flat_map(|i| (i..m).map(move |j| (i, j)))
            .map(|(i, j)| v[i * m + j].to_bits())
            .collect()
    };
    let host = upper(&serial);
    let device = upper(&amp_out);
    ctx.checks.push(check(
        "covariance upper triangle (bit for bit)",
        &device,
        &device,
        &host,
    ));
    ctx.checks.push(check(
        "covariance upper triangle, rayon (bit for bit)",
        &upper(&parallel),
        &upper(&parallel),
        &host,
    ));
    if t_native.is_ok() {
        ctx.checks.push(check_native(
            "covariance upper triangle (bit for bit)",
            &upper(&native_out),
            &host,
        ));
    }
    Ok(())
}
