//! pathfinder: the cheapest path from the top row of a grid of weights to each cell of the
//! bottom row, moving down one row at a time to the cell below or one of its two diagonal
//! neighbours. Dynamic programming, row by row: one simple launch per row between two
//! arrays that swap roles.

use amp::prelude::*;
use rayon::prelude::*;

use super::{device_and_native, record, time_cpu, Lcg, Outcome, Port};
use crate::context::Ctx;
use crate::report::Work;
use crate::BoxError;

#[kernel(amp)]
fn pathfinder_row(
    idx: Index<1>,
    wall: &Array<i32, 2>,
    prev: &Array<i32, 1>,
    next: &mut Array<i32, 1>,
    row: u32,
) {
    let c = idx[0];
    let cols = prev.extent()[0];
    let mut m = prev[c];
    if c > 0 {
        m = m.min(prev[c - 1]);
    }
    if c + 1 < cols {
        m = m.min(prev[c + 1]);
    }
    next[c] = wall[[row as usize, c]] + m;
}

/// One cell of row `row`, from the previous row's costs.
#[inline(always)]
fn cell(wall: &[i32], prev: &[i32], cols: usize, row: usize, c: usize) -> i32 {
    let mut m = prev[c];
    if c > 0 {
        m = m.min(prev[c - 1]);
    }
    if c + 1 < cols {
        m = m.min(prev[c + 1]);
    }
    wall[row * cols + c] + m
}

fn serial(input: &Input) -> Vec<i32> {
    let cols = input.cols;
    let mut prev = input.wall[..cols].to_vec();
    let mut next = vec![0; cols];
    for row in 1..input.rows {
        for (c, v) in next.iter_mut().enumerate() {
            *v = cell(&input.wall, &prev, cols, row, c);
        }
        std::mem::swap(&mut prev, &mut next);
    }
    prev
}

fn rayon(input: &Input) -> Vec<i32> {
    let cols = input.cols;
    let mut prev = input.wall[..cols].to_vec();
    let mut next = vec![0; cols];
    for row in 1..input.rows {
        next.par_chunks_mut(4096)
            .enumerate()
            .for_each(|(chunk, out)| {
                for (k, v) in out.iter_mut().enumerate() {
                    *v = cell(&input.wall, &prev, cols, row, chunk * 4096 + k);
                }
            });
        std::mem::swap(&mut prev, &mut next);
    }
    prev
}

struct Input {
    rows: usize,
    cols: usize,
    /// Weights from 0 to 9, row-major.
    wall: Vec<i32>,
}

/// The grid on one accelerator: the weights and the two rows of costs (the current first).
struct State<'a> {
    input: &'a Input,
    acc: Accelerator,
    wall: Array<i32, 2>,
    costs: [Array<i32, 1>; 2],
}

impl Port for State<'_> {
    type Out = i32;

    fn run(&mut self) -> Result<(), BoxError> {
        let cols = self.input.cols;
        self.costs[0].copy_from_slice(&self.input.wall[..cols])?;
        for row in 1..self.input.rows {
            let [prev, next] = &mut self.costs;
            let call = pathfinder_row(&self.wall, prev, next, row as u32);
            parallel_for_each_on(&self.acc, Extent::new([cols]), call)?;
            self.costs.swap(0, 1);
        }
        Ok(())
    }

    fn result(&self) -> Result<Vec<i32>, BoxError> {
        Ok(self.costs[0].to_vec()?)
    }
}

pub(super) fn row(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let (rows, cols) = if ctx.cfg.tiny {
        (20, 1000)
    } else if ctx.cfg.gpu {
        // 400 MB of weights.
        (100, 1 << 20)
    } else {
        (100, 100_000)
    };
    let mut rng = Lcg(0x9a7);
    let input = Input {
        rows,
        cols,
        wall: (0..rows * cols)
            .map(|_| (rng.next_u32() % 10) as i32)
            .collect(),
    };
    let (amp, native) = device_and_native(ctx, |acc| {
        Ok(State {
            input: &input,
            acc: acc.clone(),
            wall: Array::from_slice_on(acc, [rows, cols], &input.wall)?,
            costs: [Array::new_on(acc, [cols])?, Array::new_on(acc, [cols])?],
        })
    })?;
    let serial = time_cpu(ctx, || serial(&input))?;
    let rayon = time_cpu(ctx, || rayon(&input))?;
    // Bytes: each cell's weight read and its cost written once (the previous row is cached).
    let work = Work::Bytes(8.0 * ((rows - 1) * cols) as f64);
    record(
        ctx,
        Outcome {
            name: "pathfinder",
            what: format!(
                "dynamic programming, {} rows (simple, checked; CPU: serial)",
                rows - 1
            ),
            size: format!("{rows} x {cols} i32"),
            work,
            amp,
            native,
            serial,
            rayon,
        },
    );
    Ok(())
}
