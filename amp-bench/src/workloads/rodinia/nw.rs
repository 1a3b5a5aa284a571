//! nw: Needleman-Wunsch global alignment of two sequences. Each cell of the score matrix is
//! the best of a match (the cell up and left plus the substitution score) and a gap in either
//! sequence (the cell above or to the left minus the penalty), so the cells of one
//! anti-diagonal depend only on the two before it.
//!
//! The row runs the original's blocked wavefront: the matrix in 16 x 16 blocks, one tiled
//! launch per anti-diagonal of blocks, each tile of 16 threads one block: it loads the block's
//! substitution scores and the scores above and to the left of it into `tile_static` memory,
//! walks the block's 31 anti-diagonals with a barrier after each, and writes the block back.
//! The simple form, one launch per anti-diagonal of cells, each thread one cell, is timed too
//! (a diagnostic) and checked.

use amp::prelude::*;
use rayon::prelude::*;
use std::sync::atomic::{AtomicI32, Ordering::Relaxed};

use super::{device_and_native, record, time_cpu, Lcg, Outcome, Port};
use crate::context::Ctx;
use crate::report::{check, check_native, Diagnostic, Work};
use crate::BoxError;

/// The gap penalty (the original's default).
const PENALTY: i32 = 10;

/// The side of a block, and of its scores with the row above and the column to the left.
const BS: usize = 16;
const BS1: usize = 17;

/// Block `(diag - bx, bx)` of anti-diagonal `diag` of blocks, `bx = first + t.tile[0]`; thread
/// `tx` owns column `tx` of the block. The block's cells are rows and columns `1 + 16 b ..`
/// of the score matrix (row and column 0 hold the gap penalties). Each tile writes its own
/// block (the checker proves it: the column is a mixed-radix number of the tile and the lane)
/// and reads the row above it and the column to its left, which blocks of the diagonals before
/// wrote, not this launch's: the checker cannot see that, hence `allow(flow_dependence)`.
#[kernel(amp, allow(flow_dependence))]
fn nw_block(
    t: TiledIndex<BS>,
    score: &mut Array<i32, 2>,
    reference: &Array<i32, 2>,
    first: u32,
    diag: u32,
) {
    #[tile_static]
    let mut temp: [[i32; BS1]; BS1];
    #[tile_static]
    let mut refs: [[i32; BS]; BS];
    let tx = t.local[0];
    let bx = first as usize + t.tile[0];
    let by = diag as usize - bx;
    let (r0, c0) = (by * BS, bx * BS);
    if tx == 0 {
        temp[0][0] = score[[r0, c0]];
    }
    for ty in 0..BS {
        refs[ty][tx] = reference[[r0 + 1 + ty, c0 + 1 + tx]];
    }
    temp[tx + 1][0] = score[[r0 + 1 + tx, c0]];
    temp[0][tx + 1] = score[[r0, c0 + 1 + tx]];
    t.barrier.wait();
    // The block's anti-diagonals up to the longest, then the rest.
    for m in 0..BS {
        if tx <= m {
            let (x, y) = (tx + 1, m - tx + 1);
            let matched = temp[y - 1][x - 1] + refs[y - 1][x - 1];
            let deleted = temp[y - 1][x] - PENALTY;
            let inserted = temp[y][x - 1] - PENALTY;
            temp[y][x] = matched.max(deleted).max(inserted);
        }
        t.barrier.wait();
    }
    for k in 0..BS - 1 {
        let m = BS - 2 - k;
        if tx <= m {
            let (x, y) = (tx + BS - m, BS - tx);
            let matched = temp[y - 1][x - 1] + refs[y - 1][x - 1];
            let deleted = temp[y - 1][x] - PENALTY;
            let inserted = temp[y][x - 1] - PENALTY;
            temp[y][x] = matched.max(deleted).max(inserted);
        }
        t.barrier.wait();
    }
    for ty in 0..BS {
        score[[r0 + 1 + ty, c0 + 1 + tx]] = temp[ty + 1][tx + 1];
    }
}

/// Cell `(i, j)` of anti-diagonal `d = i + j`, thread `idx` taking `i = first + idx[0]`.
/// Each thread writes its own cell (`i` differs between threads, which the checker proves)
/// and reads cells of the two anti-diagonals before, not this launch's: the checker cannot see
/// that, hence `allow(flow_dependence)`.
#[kernel(amp, allow(flow_dependence))]
fn nw_diagonal(
    idx: Index<1>,
    score: &mut Array<i32, 2>,
    reference: &Array<i32, 2>,
    first: u32,
    d: u32,
) {
    let i = first as usize + idx[0];
    let j = d as usize - i;
    let matched = score[[i - 1, j - 1]] + reference[[i, j]];
    let deleted = score[[i - 1, j]] - PENALTY;
    let inserted = score[[i, j - 1]] - PENALTY;
    score[[i, j]] = matched.max(deleted).max(inserted);
}

/// The cells `(i, d - i)` of anti-diagonal `d` of an `n + 1` square matrix: `i` in the
/// returned range.
fn diagonal(n: usize, d: usize) -> std::ops::RangeInclusive<usize> {
    d.saturating_sub(n).max(1)..=(d - 1).min(n)
}

#[inline(always)]
fn cell(score: &[i32], reference: &[i32], w: usize, i: usize, j: usize) -> i32 {
    let matched = score[(i - 1) * w + j - 1] + reference[i * w + j];
    let deleted = score[(i - 1) * w + j] - PENALTY;
    let inserted = score[i * w + j - 1] - PENALTY;
    matched.max(deleted).max(inserted)
}

/// Row by row: every cell's inputs are computed before it.
fn serial(input: &Input) -> Vec<i32> {
    let w = input.n + 1;
    let mut score = input.start.clone();
    for i in 1..w {
        for j in 1..w {
            score[i * w + j] = cell(&score, &input.reference, w, i, j);
        }
    }
    score
}

/// The tiled kernel's algorithm in plain Rust, on one core: the blocks in the same wavefront
/// order, each copied into local arrays, walked row by row and written back. Its time beside
/// the serial row-major loop's is what the blocked order itself costs on a CPU: each block
/// reads 17 rows of both matrices, one cache line or two of each, rows 8 KiB apart.
fn blocked(input: &Input) -> Vec<i32> {
    let (n, w) = (input.n, input.n + 1);
    let mut score = input.start.clone();
    let blocks = n / BS;
    for diag in 0..2 * blocks - 1 {
        for bx in diag.saturating_sub(blocks - 1)..=diag.min(blocks - 1) {
            let (r0, c0) = ((diag - bx) * BS, bx * BS);
            let mut temp = [[0i32; BS1]; BS1];
            let mut refs = [[0i32; BS]; BS];
            for (ty, row) in refs.iter_mut().enumerate() {
                let at = (r0 + 1 + ty) * w + c0 + 1;
                row.copy_from_slice(&input.reference[at..at + BS]);
            }
            for (k, row) in temp.iter_mut().enumerate() {
                row[0] = score[(r0 + k) * w + c0];
            }
            temp[0].copy_from_slice(&score[r0 * w + c0..r0 * w + c0 + BS1]);
            for y in 1..BS1 {
                for x in 1..BS1 {
                    let matched = temp[y - 1][x - 1] + refs[y - 1][x - 1];
                    let deleted = temp[y - 1][x] - PENALTY;
                    let inserted = temp[y][x - 1] - PENALTY;
                    temp[y][x] = matched.max(deleted).max(inserted);
                }
            }
            for (ty, row) in temp[1..].iter().enumerate() {
                let at = (r0 + 1 + ty) * w + c0 + 1;
                score[at..at + BS].copy_from_slice(&row[1..]);
            }
        }
    }
    score
}

/// The blocked wavefront as the tiled kernel: the blocks of each anti-diagonal of blocks in
/// parallel, each block row by row (relaxed atomics: blocks of one diagonal read cells that
/// no block of it writes).
fn rayon(input: &Input) -> Vec<i32> {
    let (n, w) = (input.n, input.n + 1);
    let score: Vec<AtomicI32> = input.start.iter().map(|&v| AtomicI32::new(v)).collect();
    let blocks = n / BS;
    for diag in 0..2 * blocks - 1 {
        let first = diag.saturating_sub(blocks - 1);
        (first..=diag.min(blocks - 1))
            .into_par_iter()
            .for_each(|bx| {
                let (r0, c0) = ((diag - bx) * BS, bx * BS);
                for i in r0 + 1..=r0 + BS {
                    for j in c0 + 1..=c0 + BS {
                        let at = |i: usize, j: usize| score[i * w + j].load(Relaxed);
                        let matched = at(i - 1, j - 1) + input.reference[i * w + j];
                        let deleted = at(i - 1, j) - PENALTY;
                        let inserted = at(i, j - 1) - PENALTY;
                        score[i * w + j].store(matched.max(deleted).max(inserted), Relaxed);
                    }
                }
            });
    }
    score.into_iter().map(AtomicI32::into_inner).collect()
}

struct Input {
    n: usize,
    /// The substitution scores of the two sequences' items, `(n + 1)` square.
    reference: Vec<i32>,
    /// The score matrix before the alignment: the gap penalties along row and column 0.
    start: Vec<i32>,
}

impl Input {
    fn new(n: usize) -> Input {
        let w = n + 1;
        let mut rng = Lcg(0x3c1);
        let seq = |rng: &mut Lcg| (0..w).map(|_| rng.next_u32() % 24).collect::<Vec<_>>();
        let (a, b) = (seq(&mut rng), seq(&mut rng));
        // A substitution table in BLOSUM's range: matches score 4 to 11, mismatches -4 to 3.
        let subst = |x: u32, y: u32| -> i32 {
            if x == y {
                4 + (x % 8) as i32
            } else {
                ((x * 7 + y * 3) % 8) as i32 - 4
            }
        };
        let mut reference = vec![0; w * w];
        let mut start = vec![0; w * w];
        for i in 0..w {
            for j in 0..w {
                reference[i * w + j] = subst(a[i], b[j]);
            }
            start[i * w] = -(i as i32) * PENALTY;
            start[i] = -(i as i32) * PENALTY;
        }
        Input {
            n,
            reference,
            start,
        }
    }
}

struct State<'a> {
    input: &'a Input,
    acc: Accelerator,
    score: Array<i32, 2>,
    reference: Array<i32, 2>,
    /// The blocked wavefront (`nw_block`), else one launch per anti-diagonal of cells.
    tiled: bool,
}

impl Port for State<'_> {
    type Out = i32;

    fn run(&mut self) -> Result<(), BoxError> {
        let n = self.input.n;
        self.score.copy_from_slice(&self.input.start)?;
        if self.tiled {
            let blocks = n / BS;
            for diag in 0..2 * blocks - 1 {
                let first = diag.saturating_sub(blocks - 1);
                let count = diag.min(blocks - 1) + 1 - first;
                let e = Extent::new([count * BS]).tile::<BS>();
                let call = nw_block(&mut self.score, &self.reference, first as u32, diag as u32);
                parallel_for_each_on(&self.acc, e, call)?;
            }
            return Ok(());
        }
        for d in 2..=2 * n {
            let range = diagonal(n, d);
            let e = Extent::new([range.end() - range.start() + 1]);
            let call = nw_diagonal(
                &mut self.score,
                &self.reference,
                *range.start() as u32,
                d as u32,
            );
            parallel_for_each_on(&self.acc, e, call)?;
        }
        Ok(())
    }

    fn result(&self) -> Result<Vec<i32>, BoxError> {
        Ok(self.score.to_vec()?)
    }
}

pub(super) fn row(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = if ctx.cfg.tiny {
        64
    } else if ctx.cfg.gpu {
        // A multiple of the block side whose matrix, one more on each side, fits a buffer.
        (ctx.cfg.fit_side(8192) - BS) / BS * BS
    } else {
        2048
    };
    let input = Input::new(n);
    let w = n + 1;
    let make = |tiled: bool| {
        let input = &input;
        move |acc: &Accelerator| -> Result<State<'_>, BoxError> {
            Ok(State {
                input,
                acc: acc.clone(),
                score: Array::from_slice_on(acc, [w, w], &input.start)?,
                reference: Array::from_slice_on(acc, [w, w], &input.reference)?,
                tiled,
            })
        }
    };
    let (amp, native) = device_and_native(ctx, make(true))?;
    let (simple_amp, simple_native) = device_and_native(ctx, make(false))?;
    let serial = time_cpu(ctx, || serial(&input))?;
    let rayon = time_cpu(ctx, || rayon(&input))?;
    let blocked = time_cpu(ctx, || blocked(&input))?;
    if blocked.1 != serial.1 {
        return Err("nw: the blocked plain Rust version differs from the serial one".into());
    }
    let size = format!("{w} x {w} i32");
    ctx.diagnostics.push(Diagnostic {
        workload: "rodinia nw".into(),
        size: size.clone(),
        variant: "the tiled kernel's algorithm in plain Rust on one core: blocks in wavefront \
                  order through local copies, each walked row by row (same results)"
            .into(),
        secs: blocked.0,
    });
    let label = "rodinia nw, simple: one launch per anti-diagonal of cells (bit for bit)";
    ctx.checks
        .push(check(label, &simple_amp.1, &simple_amp.1, &serial.1));
    if simple_native.0.is_ok() {
        ctx.checks
            .push(check_native(label, &simple_native.1, &serial.1));
    }
    let simple = [
        Ok(simple_amp.0).map(|t| ("amp (Vulkan device)", t)),
        simple_native.0.map(|t| ("native", t)),
    ];
    for (on, secs) in simple.into_iter().flatten() {
        ctx.diagnostics.push(Diagnostic {
            workload: "rodinia nw".into(),
            size: size.clone(),
            variant: format!(
                "the simple kernel, {} launches of one thread per cell of an anti-diagonal, {on}",
                2 * n - 1
            ),
            secs,
        });
    }
    // Bytes: each cell's substitution score read and its score written once.
    let work = Work::Bytes(8.0 * (n * n) as f64);
    record(
        ctx,
        Outcome {
            name: "nw",
            what: format!(
                "Needleman-Wunsch, {} anti-diagonals of {BS} x {BS} blocks (tiled {BS}, \
                 tile_static, checked; CPU: serial)",
                2 * (n / BS) - 1
            ),
            size,
            work,
            amp,
            native,
            serial,
            rayon,
        },
    );
    Ok(())
}
