//! Statistics and timers: the median of timed runs after a warm-up run, the repetition budget,
//! alternating pairs, and `settle`, the wait that ends every timed run.

use amp::prelude::*;
use std::time::Instant;

use crate::{BoxError, Config};

pub(crate) fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Waits for the launches on the default accelerator's default view: launches are
/// asynchronous, so every timed run ends here (a run that read its results waits for
/// nothing more).
pub fn settle() -> Result<(), BoxError> {
    Ok(Accelerator::default()?.default_view().wait()?)
}

/// The autotuner's tries still to finish on the default accelerator (0 on the native one).
fn tries_left() -> u32 {
    Accelerator::default().map_or(0, |a| a.tuned_shapes().iter().map(|t| t.tries_left).sum())
}

/// Runs `f` again, untimed and settled, while the default accelerator's autotuner has tries
/// left and the last run finished some (16 runs at most): rows time the launch shapes the
/// tuner keeps, as a program's repeated launches run them. A run that finishes none ends it
/// (the tries left belong to another kernel).
fn finish_tuning(f: &mut dyn FnMut() -> Result<(), BoxError>) -> Result<(), BoxError> {
    let mut left = tries_left();
    for _ in 0..16 {
        if left == 0 {
            break;
        }
        f()?;
        settle()?;
        let now = tries_left();
        if now >= left {
            break;
        }
        left = now;
    }
    Ok(())
}

/// One warm-up run (and the runs that finish the autotuner's tries), then the median of up
/// to `cfg.reps` timed runs (at least 3, fewer beyond about 2 s of work). The tiny configuration times the single warm-up run.
pub(crate) fn measure(
    cfg: &Config,
    mut f: impl FnMut() -> Result<(), BoxError>,
) -> Result<f64, BoxError> {
    let mut f = move || -> Result<(), BoxError> {
        f()?;
        settle()
    };
    let t0 = Instant::now();
    f()?;
    let first = t0.elapsed().as_secs_f64();
    if cfg.tiny {
        return Ok(first);
    }
    finish_tuning(&mut f)?;
    let (min_reps, budget) = rep_budget(cfg);
    let reps = ((budget / first.max(1e-9)).ceil() as usize).clamp(min_reps, cfg.reps.max(min_reps));
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        f()?;
        times.push(t.elapsed().as_secs_f64());
    }
    Ok(median(&mut times))
}

/// The fewest timed runs of a row and the seconds of work after which no more are started:
/// at least 3 runs within about 2 s; in the GPU profile, whose CPU rows at GPU sizes take
/// seconds each, at least 2 within about 1 s.
fn rep_budget(cfg: &Config) -> (usize, f64) {
    if cfg.gpu {
        (2, 1.0)
    } else {
        (3, 2.0)
    }
}

/// How many times `--reps` a pair of fast rows may run ([`measure_pair`]): a ratio of two
/// sub-millisecond medians of 7 runs each moved by 15 % between runs of the same build.
const PAIR_REPS: usize = 8;

/// The seconds a pair of fast rows may spend on its extra runs ([`PAIR_REPS`]).
const PAIR_EXTRA_BUDGET: f64 = 0.1;

/// [`measure`] for two versions of a workload, alternating them: after one warm-up run of
/// each, every repetition runs the first and then the second (the order flips each time).
/// Their ratio is the point, so pairs fast enough to fit [`PAIR_EXTRA_BUDGET`] take up to
/// [`PAIR_REPS`] times `--reps` runs each.
pub(crate) fn measure_pair(
    cfg: &Config,
    mut first: impl FnMut() -> Result<(), BoxError>,
    mut second: impl FnMut() -> Result<(), BoxError>,
) -> Result<(f64, f64), BoxError> {
    let timed = |f: &mut dyn FnMut() -> Result<(), BoxError>| -> Result<f64, BoxError> {
        let t = Instant::now();
        f()?;
        settle()?;
        Ok(t.elapsed().as_secs_f64())
    };
    let (w1, w2) = (timed(&mut first)?, timed(&mut second)?);
    if cfg.tiny {
        return Ok((w1, w2));
    }
    finish_tuning(&mut first)?;
    finish_tuning(&mut second)?;
    let mut slowest = w1.max(w2).max(1e-9);
    if slowest < PAIR_EXTRA_BUDGET / 2.0 {
        // A first run pays for first touches of fresh memory: a fast pair's runs are
        // counted from a second one.
        slowest = timed(&mut first)?.max(timed(&mut second)?).max(1e-9);
    }
    let (min_reps, budget) = rep_budget(cfg);
    let reps = ((budget / slowest).ceil() as usize).clamp(min_reps, cfg.reps.max(min_reps));
    let fast = ((PAIR_EXTRA_BUDGET / slowest) as usize).min(cfg.reps * PAIR_REPS);
    let reps = reps.max(fast);
    let (mut t1, mut t2) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for rep in 0..reps {
        if rep % 2 == 0 {
            t1.push(timed(&mut first)?);
            t2.push(timed(&mut second)?);
        } else {
            t2.push(timed(&mut second)?);
            t1.push(timed(&mut first)?);
        }
    }
    Ok((median(&mut t1), median(&mut t2)))
}

/// The most runs whose kernel times (timestamp queries) make a row's kernel time: their
/// median, with the fastest beside it.
pub(crate) const KERNEL_SAMPLES: usize = 10;

/// The fewest runs whose kernel times are taken for a row, and the seconds after which no
/// more are started once that many are: the GPU profile times [`KERNEL_SAMPLES`] runs
/// (three of a run slower than half a second); the other profiles, which run on CPU drivers
/// too, stop after about 0.25 s (the tiny one 0.02 s), so that their run time stays as it was.
pub(crate) fn kernel_sampling(cfg: &Config) -> (usize, f64) {
    if cfg.gpu {
        (KERNEL_SAMPLES, 0.0)
    } else if cfg.tiny {
        (1, 0.02)
    } else {
        (1, 0.25)
    }
}

/// The reason when `e` is `amp::Error::NativeUnsupported` (a kernel the native back end does
/// not translate yet).
pub(crate) fn native_unsupported(e: &BoxError) -> Option<String> {
    match e.downcast_ref::<amp::Error>() {
        Some(amp::Error::NativeUnsupported { what, reason }) => Some(format!("{what}: {reason}")),
        _ => None,
    }
}
