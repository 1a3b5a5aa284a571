//! lud: LU decomposition in place, without pivoting (the matrix is diagonally dominant), by
//! right-looking pivot steps: for each pivot `k`, one launch scales column `k` below the
//! diagonal by the pivot, and one updates the trailing submatrix by the outer product of
//! column `k` and row `k`. Afterwards `L` (unit diagonal) is below the diagonal and `U` on and
//! above it.

use amp::prelude::*;
use rayon::prelude::*;

use super::{device_and_native, record, time_cpu, Lcg, Outcome, Port};
use crate::context::Ctx;
use crate::report::Work;
use crate::BoxError;

/// Pivot step `k`, first half: thread `idx` scales element `(idx[0] + k + 1, k)`.
#[kernel(amp)]
fn lud_column(idx: Index<1>, a: &mut Array<f32, 2>, k: u32) {
    let k = k as usize;
    let i = idx[0] + k + 1;
    a[[i, k]] /= a[[k, k]];
}

/// Pivot step `k`, second half: thread `idx` updates element `(idx[0] + k + 1, idx[1] + k + 1)`
/// from column and row `k`, which no thread of the launch writes.
#[kernel(amp)]
fn lud_update(idx: Index<2>, a: &mut Array<f32, 2>, k: u32) {
    let k = k as usize;
    let (i, j) = (idx[0] + k + 1, idx[1] + k + 1);
    a[[i, j]] -= a[[i, k]] * a[[k, j]];
}

fn serial(input: &Input) -> Vec<f32> {
    let n = input.n;
    let mut a = input.a.clone();
    for k in 0..n {
        let pivot = a[k * n + k];
        for i in k + 1..n {
            a[i * n + k] /= pivot;
        }
        for i in k + 1..n {
            for j in k + 1..n {
                a[i * n + j] -= a[i * n + k] * a[k * n + j];
            }
        }
    }
    a
}

fn rayon(input: &Input) -> Vec<f32> {
    let n = input.n;
    let mut a = input.a.clone();
    for k in 0..n {
        let (top, below) = a.split_at_mut((k + 1) * n);
        let pivot_row = &top[k * n..];
        let pivot = pivot_row[k];
        below.par_chunks_mut(n).with_min_len(8).for_each(|row| {
            row[k] /= pivot;
            let l = row[k];
            for j in k + 1..n {
                row[j] -= l * pivot_row[j];
            }
        });
    }
    a
}

struct Input {
    n: usize,
    a: Vec<f32>,
}

impl Input {
    /// A diagonally dominant matrix: entries in `[-0.5, 0.5)`, `n` added on the diagonal.
    fn new(n: usize) -> Input {
        let mut rng = Lcg(0x1d5);
        let mut a: Vec<f32> = (0..n * n).map(|_| rng.unit() - 0.5).collect();
        for i in 0..n {
            a[i * n + i] += n as f32;
        }
        Input { n, a }
    }
}

struct State<'a> {
    input: &'a Input,
    acc: Accelerator,
    a: Array<f32, 2>,
}

impl Port for State<'_> {
    type Out = u32;

    fn run(&mut self) -> Result<(), BoxError> {
        let n = self.input.n;
        self.a.copy_from_slice(&self.input.a)?;
        for k in 0..n - 1 {
            let rest = n - k - 1;
            let step = k as u32;
            parallel_for_each_on(
                &self.acc,
                Extent::new([rest]),
                lud_column(&mut self.a, step),
            )?;
            let e = Extent::new([rest, rest]);
            parallel_for_each_on(&self.acc, e, lud_update(&mut self.a, step))?;
        }
        Ok(())
    }

    fn result(&self) -> Result<Vec<u32>, BoxError> {
        Ok(bits(self.a.to_vec()?))
    }
}

fn bits(v: Vec<f32>) -> Vec<u32> {
    v.into_iter().map(f32::to_bits).collect()
}

pub(super) fn row(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = if ctx.cfg.tiny {
        64
    } else if ctx.cfg.gpu {
        ctx.cfg.fit_side(2048)
    } else {
        512
    };
    let input = Input::new(n);
    let (amp, native) = device_and_native(ctx, |acc| {
        Ok(State {
            input: &input,
            acc: acc.clone(),
            a: Array::from_slice_on(acc, [n, n], &input.a)?,
        })
    })?;
    let serial = time_cpu(ctx, || bits(serial(&input)))?;
    let rayon = time_cpu(ctx, || bits(rayon(&input)))?;
    // A division per element of each pivot column, a multiply-subtract per trailing element.
    let flops: usize = (0..n).map(|k| n - k - 1).map(|r| r + 2 * r * r).sum();
    let work = Work::Flops(flops as f64);
    record(
        ctx,
        Outcome {
            name: "lud",
            what: format!(
                "LU decomposition, {} pivot steps of 2 launches (simple, checked; CPU: serial)",
                n - 1
            ),
            size: format!("{n} x {n} f32"),
            work,
            amp,
            native,
            serial,
            rayon,
        },
    );
    Ok(())
}
