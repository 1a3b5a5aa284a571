//! nw: Needleman-Wunsch global alignment of two sequences. Each cell of the score matrix is
//! the best of a match (the cell up and left plus the substitution score) and a gap in either
//! sequence (the cell above or to the left minus the penalty), so the cells of one
//! anti-diagonal depend only on the two before it: one simple launch per anti-diagonal, each
//! thread one cell of it, in place in one array.

use amp::prelude::*;
use rayon::prelude::*;

use super::{device_and_native, record, time_cpu, Lcg, Outcome, Port};
use crate::context::Ctx;
use crate::report::Work;
use crate::BoxError;

/// The gap penalty (the original's default).
const PENALTY: i32 = 10;

/// Cell `(i, j)` of anti-diagonal `d = i + j`, thread `idx` taking `i = first + idx[0]`.
/// Each thread writes its own cell (`i` differs between threads, and `j` follows from it),
/// which the checker does not prove for `j = d - i`: hence `allow(write_conflict)`.
#[kernel(amp, allow(write_conflict))]
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

/// Anti-diagonal by anti-diagonal as the kernel: each diagonal's cells computed in parallel,
/// then stored.
fn rayon(input: &Input) -> Vec<i32> {
    let (n, w) = (input.n, input.n + 1);
    let mut score = input.start.clone();
    let mut cells = Vec::with_capacity(w);
    for d in 2..=2 * n {
        let range = diagonal(n, d);
        (*range.start()..*range.end() + 1)
            .into_par_iter()
            .with_min_len(1024)
            .map(|i| cell(&score, &input.reference, w, i, d - i))
            .collect_into_vec(&mut cells);
        for (i, v) in range.zip(&cells) {
            score[i * w + d - i] = *v;
        }
    }
    score
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
}

impl Port for State<'_> {
    type Out = i32;

    fn run(&mut self) -> Result<(), BoxError> {
        let n = self.input.n;
        self.score.copy_from_slice(&self.input.start)?;
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
        ctx.cfg.fit_side(8192) - 1
    } else {
        2048
    };
    let input = Input::new(n);
    let w = n + 1;
    let (amp, native) = device_and_native(ctx, |acc| {
        Ok(State {
            input: &input,
            acc: acc.clone(),
            score: Array::from_slice_on(acc, [w, w], &input.start)?,
            reference: Array::from_slice_on(acc, [w, w], &input.reference)?,
        })
    })?;
    let serial = time_cpu(ctx, || serial(&input))?;
    let rayon = time_cpu(ctx, || rayon(&input))?;
    // Bytes: each cell's substitution score read and its score written once.
    let work = Work::Bytes(8.0 * (n * n) as f64);
    record(
        ctx,
        Outcome {
            name: "nw",
            what: format!(
                "Needleman-Wunsch, {} anti-diagonals (simple, checked; CPU: serial)",
                2 * n - 1
            ),
            size: format!("{w} x {w} i32"),
            work,
            amp,
            native,
            serial,
            rayon,
        },
    );
    Ok(())
}
