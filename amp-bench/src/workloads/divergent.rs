//! A loop under a condition that differs between threads: covariance's product of the data's
//! columns over the upper triangle only (`if j >= i`, as PolyBench's covariance writes it), a
//! simple kernel whose loop runs to a view's extent inside the `if`; beside it the same
//! computation in serial plain Rust and with rayon (over rows of the result), in the kernel's
//! order of additions, compared bit for bit. Natively, a batch of threads runs the loop
//! together with a per-thread mask (docs/native.md) instead of one thread at a time. A
//! second row has a loop in both branches of an `if` / `else`: the upper triangle's products,
//! and below the diagonal the negated products of the other pairing.

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
        covariance_row(ctx, Branches::If)?;
        covariance_row(ctx, Branches::IfElse)
    }
}

/// Which kernel a row runs: the loop under an `if`, or loops in both branches of an `else`.
#[derive(Clone, Copy, PartialEq)]
enum Branches {
    If,
    IfElse,
}

/// Products above the diagonal, and below it the negated products of `j`'s column with
/// itself and `i`'s (a loop in each branch).
#[kernel(amp)]
fn both_triangles(idx: Index<2>, data: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    let (i, j) = (idx[0], idx[1]);
    let mut s = 0.0;
    if j >= i {
        for r in 0..data.extent()[0] {
            s += data[[r, i]] * data[[r, j]];
        }
    } else {
        for r in 0..data.extent()[0] {
            s -= data[[r, j]] * (data[[r, i]] + data[[r, j]]);
        }
    }
    out[idx] = s;
}

/// Row `i` of [`both_triangles`], in the kernel's order of additions.
fn both_row(data: &[f32], rows: usize, m: usize, i: usize, out: &mut [f32]) {
    for (j, o) in out.iter_mut().enumerate() {
        let mut s = 0.0f32;
        for r in 0..rows {
            if j >= i {
                s += data[r * m + i] * data[r * m + j];
            } else {
                s -= data[r * m + j] * (data[r * m + i] + data[r * m + j]);
            }
        }
        *o = s;
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

fn covariance_row(ctx: &mut Ctx<'_>, branches: Branches) -> Result<(), BoxError> {
    let host_row = match branches {
        Branches::If => upper_row,
        Branches::IfElse => both_row,
    };
    let (rows, m) = if ctx.cfg.tiny {
        (32, 48)
    } else {
        // Also in the GPU profile: the serial column reads the data a column at a time, and
        // at 2048 x 2048 it alone took minutes on a 16-core GPU machine (37 s at 1024).
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
            match branches {
                Branches::If => parallel_for_each(e, upper_products(&dv, &mut ov))?,
                Branches::IfElse => parallel_for_each(e, both_triangles(&dv, &mut ov))?,
            }
            ov.synchronize()?;
            Ok(())
        })?;
        drop(ov);
        t
    };
    let mut serial = vec![0f32; m * m];
    let t_serial = ctx.time(|| {
        for (i, row) in serial.chunks_mut(m).enumerate() {
            host_row(&data, rows, m, i, row);
        }
        Ok(())
    })?;
    let mut parallel = vec![0f32; m * m];
    let t_rayon = ctx.time(|| {
        parallel
            .par_chunks_mut(m)
            .enumerate()
            .for_each(|(i, row)| host_row(&data, rows, m, i, row));
        Ok(())
    })?;
    let native = ctx.native.clone();
    let nd = Array::from_slice_on(&native, [rows, m], &data)?;
    let mut no = Array::<f32, 2>::new_on(&native, [m, m])?;
    let t_native = ctx.time_native(|| {
        let (d, mut o) = (nd.view(), no.view_mut());
        match branches {
            Branches::If => parallel_for_each_on(&native, e, upper_products(&d, &mut o))?,
            Branches::IfElse => parallel_for_each_on(&native, e, both_triangles(&d, &mut o))?,
        }
        Ok(())
    })?;
    let native_out = no.to_vec()?;
    // A multiply and an add per term (over the upper triangle, or everywhere).
    let (work, name, what) = match branches {
        Branches::If => (
            Work::Flops(2.0 * (rows * m * (m + 1) / 2) as f64),
            "covariance product, upper triangle under `if j >= i` (simple, checked; CPU: rayon)",
            "covariance upper triangle",
        ),
        Branches::IfElse => (
            Work::Flops(2.0 * (rows * m * m) as f64),
            "products under `if j >= i`, others under its `else` (simple, checked; CPU: rayon)",
            "both triangles",
        ),
    };
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
    // The elements the kernel writes: the upper triangle, or all.
    let upper = |v: &[f32]| -> Vec<u32> {
        (0..m)
            .flat_map(|i| {
                let from = if branches == Branches::If { i } else { 0 };
                (from..m).map(move |j| (i, j))
            })
            .map(|(i, j)| v[i * m + j].to_bits())
            .collect()
    };
    let host = upper(&serial);
    let device = upper(&amp_out);
    let (exact, rayon_exact) = (
        format!("{what} (bit for bit)"),
        format!("{what}, rayon (bit for bit)"),
    );
    ctx.checks.push(check(&exact, &device, &device, &host));
    ctx.checks.push(check(
        &rayon_exact,
        &upper(&parallel),
        &upper(&parallel),
        &host,
    ));
    if t_native.is_ok() {
        ctx.checks
            .push(check_native(&exact, &upper(&native_out), &host));
    }
    Ok(())
}
