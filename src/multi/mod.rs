//! One launch over several accelerators: the domain split along its first dimension, each
//! accelerator running its part at the same time, the results in the caller's data.
//!
//! ```no_run
//! use amp::prelude::*;
//! use amp::multi::{self, Measured, Options};
//!
//! #[kernel(amp)]
//! fn add(idx: Index<1>, a: ArrayView<f32, 1>, b: ArrayView<f32, 1>, sum: ArrayViewMut<f32, 1>) {
//!     sum[idx] = a[idx] + b[idx];
//! }
//!
//! # fn main() -> Result<(), amp::Error> {
//! let n = 1 << 20;
//! let (a, b) = (vec![1.0f32; n], vec![2.0f32; n]);
//! let mut out = vec![0.0f32; n];
//! let accelerators = Accelerator::all()?; // every Vulkan device, then the native CPU one
//! let measured = Measured::new(); // rows per second per accelerator, learned as it runs
//! multi::parallel_for_each(
//!     &accelerators,
//!     [n],
//!     &Options::new().measured(&measured),
//!     &mut out[..],
//!     |part, out| {
//!         let a = part.view(&a)?;
//!         let b = part.view(&b)?;
//!         let mut sum = part.view_mut(out)?;
//!         sum.discard_data();
//!         parallel_for_each_on(part.accelerator_view(), part.extent(), add(&a, &b, &mut sum))?;
//!         sum.synchronize()
//!     },
//! )?;
//! assert!(out.iter().all(|&x| x == 3.0));
//! # Ok(()) }
//! ```
//!
//! - The rows are shared evenly, by static weights ([`Options::weights`]) or by the rates
//!   measured in earlier launches ([`Options::measured`], [`Measured`]), in whole tiles for
//!   tiled kernels ([`Options::tile_rows`]).
//! - The closure runs once per part that has rows, every part on a thread of its own, all at
//!   once; it makes views of the part's rows ([`Part::view`], [`Part::rows_of`], and
//!   [`Part::view_with_halo`] for a stencil that reads its neighbours' edge rows), launches on
//!   [`Part::accelerator_view`] and returns once its results are in its output rows
//!   (`synchronize`). Each part's views are a family of their own, so every accelerator
//!   copies or imports only its own rows, as it would for a launch of its own.
//! - Outputs ([`Outputs`]): host slices with the domain's rows, cut into disjoint pieces, one
//!   per part; every part writes its rows in place.
//! - Errors: a failed part is [`Error::PartFailed`], naming its accelerator and rows, with
//!   the part's own error inside; a split that cannot be made is [`Error::InvalidSplit`].
//!
//! `docs/scaling.md` says when splitting pays, and when the copies eat the gain.

mod outputs;
mod part;
mod split;

pub use outputs::Outputs;
pub use part::{HaloView, Part};
pub use split::{Measured, Options};

use std::ops::Range;
use std::time::Instant;

use crate::{AcceleratorView, Error, Extent, LaunchTarget, SplitError};
use split::{check_weights, cuts, weights_from_rates, Weights};

/// What a split launch did: one entry per part that ran, in the order they ran (a launch with
/// measured weights that had nothing measured yet runs a probe round first).
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The parts that ran.
    pub parts: Vec<PartReport>,
}

/// One part of a [`Report`].
#[derive(Clone, Debug)]
pub struct PartReport {
    /// Its position in the list of accelerators.
    pub part: usize,
    /// The name of the accelerator it ran on.
    pub device: String,
    /// Its rows of the domain.
    pub rows: Range<usize>,
    /// Wall-clock seconds from its start to the end of its closure and of its accelerator
    /// view's work.
    pub seconds: f64,
}

/// Runs `kernel` over `domain` split across `targets` (accelerators, or accelerator views),
/// all at once, and returns once every part is done.
///
/// The domain is cut along its first dimension into one run of rows per target, shared as
/// `options` says. `outputs` (see [`Outputs`]) is cut at the same rows; `kernel` is called
/// once per part that has rows, on a thread of its own, with the [`Part`] and its pieces of
/// the outputs, and launches the part's work (see the [module docs](self)). After it returns,
/// the part's accelerator view is waited for, so errors the device reports late come back
/// too.
///
/// Targets may repeat (the same accelerator twice runs two parts on it, on two threads), or be
/// several views of one accelerator ([`Accelerator::create_view`](crate::Accelerator::create_view)).
///
/// Errors: [`Error::InvalidSplit`] for an empty list of targets, bad weights, tiles of zero
/// rows or outputs that are not a whole number of rows (nothing runs); [`Error::ZeroExtent`]
/// for a domain of rank 0; [`Error::PartFailed`] when a part's closure or its accelerator
/// failed (the other parts still run to their end; the first failed part in the order of
/// `targets` is returned). A panic in a part is resumed on the calling thread once every
/// part has ended.
pub fn parallel_for_each<L, const N: usize, O, F>(
    targets: &[L],
    domain: impl Into<Extent<N>>,
    options: &Options<'_>,
    outputs: O,
    kernel: F,
) -> Result<Report, Error>
where
    L: LaunchTarget + Sync,
    O: Outputs,
    F: Fn(&Part<N>, O) -> Result<(), Error> + Sync,
{
    let domain = domain.into();
    if N == 0 {
        return Err(Error::ZeroExtent);
    }
    if targets.is_empty() {
        return Err(Error::InvalidSplit(SplitError::NoAccelerators));
    }
    if options.tile_rows == 0 {
        return Err(Error::InvalidSplit(SplitError::ZeroTileRows));
    }
    let views: Vec<AcceleratorView> = targets.iter().map(|t| t.accelerator_view()).collect();
    let rows = domain[0];
    let even = vec![1.0; views.len()];
    let launch = Launch {
        views: &views,
        domain,
        kernel: &kernel,
    };
    let mut report = Report::default();
    match options.weights {
        Weights::Even => {
            let cuts = cuts(rows, options.tile_rows, &even);
            let pieces = outputs.split_rows(rows, &cuts)?;
            launch.round(0, &cuts, pieces, &mut report)?;
        }
        Weights::Fixed(weights) => {
            check_weights(weights, views.len())?;
            let cuts = cuts(rows, options.tile_rows, weights);
            let pieces = outputs.split_rows(rows, &cuts)?;
            launch.round(0, &cuts, pieces, &mut report)?;
        }
        Weights::Measured(measured) => {
            let devices: Vec<String> = views
                .iter()
                .map(|v| v.accelerator().device_path().to_owned())
                .collect();
            let (probe_rows, weights) = match measured.weights_for(&devices) {
                Some(weights) => (0, weights),
                None => (probe_rows(rows, options.tile_rows, views.len()), even),
            };
            // The probe's rows, then the rest: the outputs cut in two first.
            let mut halves = outputs
                .split_rows(rows, &[0, probe_rows, rows])?
                .into_iter();
            let (Some(probe), Some(rest)) = (halves.next(), halves.next()) else {
                unreachable!("two cuts give two pieces")
            };
            let mut weights = weights;
            if probe_rows > 0 {
                let even = vec![1.0; views.len()];
                let probe_cuts = cuts(probe_rows, options.tile_rows, &even);
                let pieces = probe.split_rows(probe_rows, &probe_cuts)?;
                let times = launch.round(0, &probe_cuts, pieces, &mut report)?;
                measured.record(&devices, &part_rows(&probe_cuts), &times);
                weights = measured.weights_for(&devices).unwrap_or(weights);
            }
            let left = rows - probe_rows;
            let weights = weights_from_rates(left, options.tile_rows, &weights);
            let mut rest_cuts = cuts(left, options.tile_rows, &weights);
            let pieces = rest.split_rows(left, &rest_cuts)?;
            let times = launch.round(probe_rows, &rest_cuts, pieces, &mut report)?;
            rest_cuts.iter_mut().for_each(|c| *c += probe_rows);
            measured.record(&devices, &part_rows(&rest_cuts), &times);
        }
    }
    Ok(report)
}

/// Rows each accelerator runs in a probe: about an eighth of the domain in all, whole tiles,
/// at least one tile each; none when that would leave less than half of the domain for the
/// measured split (the one round is then split evenly and measured).
fn probe_rows(rows: usize, tile_rows: usize, parts: usize) -> usize {
    let per_part = (rows / (8 * parts) / tile_rows).max(1) * tile_rows;
    let probe = per_part * parts;
    if 2 * probe > rows {
        0
    } else {
        probe
    }
}

/// The number of rows of each part between `cuts`.
fn part_rows(cuts: &[usize]) -> Vec<usize> {
    cuts.windows(2).map(|w| w[1] - w[0]).collect()
}

/// Elements per row of data with `len` elements and `rows` rows. Errors:
/// [`SplitError::RowsMismatch`] when `len` is not a whole number of rows.
fn rows_in(len: usize, rows: usize, what: &'static str) -> Result<usize, Error> {
    let mismatch = || Error::InvalidSplit(SplitError::RowsMismatch { what, len, rows });
    match (len, rows) {
        (0, _) => Ok(0),
        (_, 0) => Err(mismatch()),
        _ if !len.is_multiple_of(rows) => Err(mismatch()),
        _ => Ok(len / rows),
    }
}

/// What every round of one split launch shares.
struct Launch<'l, const N: usize, F> {
    views: &'l [AcceleratorView],
    domain: Extent<N>,
    kernel: &'l F,
}

impl<const N: usize, F> Launch<'_, N, F> {
    /// Runs one round: part `i` over the rows `first + cuts[i] .. first + cuts[i + 1]` with
    /// `pieces[i]`, all at once, part 0 on the calling thread. Returns each part's seconds (0
    /// for a part with no rows) and adds the parts that ran to `report`.
    fn round<O>(
        &self,
        first: usize,
        cuts: &[usize],
        pieces: Vec<O>,
        report: &mut Report,
    ) -> Result<Vec<f64>, Error>
    where
        O: Outputs,
        F: Fn(&Part<N>, O) -> Result<(), Error> + Sync,
    {
        let (parts, pieces): (Vec<Part<N>>, Vec<O>) = self
            .views
            .iter()
            .zip(cuts.windows(2))
            .zip(pieces)
            .enumerate()
            .map(|(index, ((view, cut), piece))| {
                let part = Part {
                    index,
                    view: view.clone(),
                    rows: first + cut[0]..first + cut[1],
                    domain: self.domain,
                };
                (part, piece)
            })
            .filter(|(part, _)| !part.rows.is_empty())
            .unzip();
        let run = |part: &Part<N>, piece: O| -> (Result<(), Error>, f64) {
            let start = Instant::now();
            let result = (self.kernel)(part, piece).and_then(|()| part.view.wait());
            (result, start.elapsed().as_secs_f64())
        };
        let outcomes: Vec<(Result<(), Error>, f64)> = std::thread::scope(|scope| {
            let mut work = parts.iter().zip(pieces);
            let on_this_thread = work.next();
            let handles: Vec<_> = work
                .map(|(part, piece)| scope.spawn(move || run(part, piece)))
                .collect();
            let mut outcomes: Vec<_> = on_this_thread
                .map(|(part, piece)| run(part, piece))
                .into_iter()
                .collect();
            let mut panic = None;
            for handle in handles {
                match handle.join() {
                    Ok(outcome) => outcomes.push(outcome),
                    Err(payload) => panic = panic.or(Some(payload)),
                }
            }
            if let Some(payload) = panic {
                std::panic::resume_unwind(payload);
            }
            outcomes
        });
        let mut seconds = vec![0.0; self.views.len()];
        let mut failed = None;
        for (part, (result, secs)) in parts.iter().zip(outcomes) {
            seconds[part.index] = secs;
            report.parts.push(PartReport {
                part: part.index,
                device: part.accelerator().name().to_owned(),
                rows: part.rows(),
                seconds: secs,
            });
            if let (Err(error), None) = (result, &failed) {
                failed = Some(Error::PartFailed {
                    part: part.index,
                    device: part.accelerator().name().to_owned(),
                    rows: part.rows(),
                    error: Box::new(error),
                });
            }
        }
        match failed {
            Some(error) => Err(error),
            None => Ok(seconds),
        }
    }
}
