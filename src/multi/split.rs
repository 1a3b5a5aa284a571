//! How the rows of a domain are shared out: [`Options`] (static or measured weights, tile
//! alignment), [`Measured`] (rows per second learned from earlier launches) and the cut points
//! they give.

use std::sync::Mutex;

use crate::{Error, SplitError};

/// How [`parallel_for_each`](super::parallel_for_each) shares a domain's rows among its
/// accelerators.
///
/// ```
/// use amp::multi::{Measured, Options};
/// let even = Options::new();
/// let three_to_one = Options::new().weights(&[3.0, 1.0]);
/// let measured = Measured::new();
/// let learned = Options::new().measured(&measured).tile_rows(16);
/// # let _ = (even, three_to_one, learned);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Options<'a> {
    pub(super) weights: Weights<'a>,
    pub(super) tile_rows: usize,
}

/// Where the weights of a split come from.
#[derive(Clone, Copy, Debug)]
pub(super) enum Weights<'a> {
    /// The same share for every accelerator.
    Even,
    /// One weight per accelerator, in proportion to which it gets rows.
    Fixed(&'a [f64]),
    /// In proportion to the rows per second each accelerator achieved before.
    Measured(&'a Measured),
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            weights: Weights::Even,
            tile_rows: 1,
        }
    }
}

impl<'a> Options<'a> {
    /// An even split into parts of whole rows: every accelerator gets the same number of rows
    /// (up to one).
    pub fn new() -> Self {
        Self::default()
    }

    /// Static weights, one per accelerator (finite, not negative, not all zero): each gets
    /// rows in proportion to its weight; a weight of 0 gives an accelerator nothing.
    pub fn weights(mut self, weights: &'a [f64]) -> Self {
        self.weights = Weights::Fixed(weights);
        self
    }

    /// Measured weights: each accelerator gets rows in proportion to the rows per second it
    /// achieved in the earlier launches that used `measured`. The first launch with a new
    /// `measured` (or a different list of accelerators) first runs a probe, a few rows on
    /// every accelerator at once, and splits the rest by the probe's rates; every launch then
    /// refines the rates with its own times. Keep one `Measured` per workload: a matrix product
    /// and a vector add do not scale alike.
    pub fn measured(mut self, measured: &'a Measured) -> Self {
        self.weights = Weights::Measured(measured);
        self
    }

    /// Align the parts to tiles of `rows` rows: every cut between two parts falls on a
    /// multiple of `rows`, so each part of a domain whose first dimension is a multiple of the
    /// tile's is one too (a tiled kernel's domain, `extent.tile::<R, ..>()` with `rows = R`).
    /// 0 is [`SplitError::ZeroTileRows`].
    pub fn tile_rows(mut self, rows: usize) -> Self {
        self.tile_rows = rows;
        self
    }
}

/// Rows per second per accelerator, learned from the launches that use it (see
/// [`Options::measured`]). It can be shared between threads; launches that use it at the same
/// time each read and update it.
#[derive(Debug, Default)]
pub struct Measured {
    rates: Mutex<Option<Rates>>,
}

/// What a [`Measured`] knows: the accelerators it was measured on and their rates.
#[derive(Clone, Debug)]
struct Rates {
    devices: Vec<String>,
    rows_per_second: Vec<Option<f64>>,
}

impl Measured {
    /// Nothing measured yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The rows per second measured for each accelerator of the last launch that used this
    /// (`None` before any launch, or for an accelerator that has not run rows yet).
    pub fn rows_per_second(&self) -> Option<Vec<Option<f64>>> {
        self.lock().as_ref().map(|r| r.rows_per_second.clone())
    }

    /// Weights for `devices` (their device paths, one per accelerator of the launch) from what
    /// was measured on exactly that list; `None` when nothing was.
    pub(super) fn weights_for(&self, devices: &[String]) -> Option<Vec<f64>> {
        let guard = self.lock();
        let rates = guard.as_ref().filter(|r| r.devices == devices)?;
        let known: Vec<f64> = rates.rows_per_second.iter().flatten().copied().collect();
        if known.is_empty() {
            return None;
        }
        // An accelerator not measured yet is taken to be as fast as the average of the others,
        // so it gets rows and a rate of its own.
        let mean = known.iter().sum::<f64>() / known.len() as f64;
        Some(
            rates
                .rows_per_second
                .iter()
                .map(|r| r.unwrap_or(mean))
                .collect(),
        )
    }

    /// Takes in one round's times: `rows[i]` rows in `seconds[i]` on accelerator `i`. A new
    /// rate is averaged with the one before it, so one disturbed launch moves the split by half.
    pub(super) fn record(&self, devices: &[String], rows: &[usize], seconds: &[f64]) {
        let mut guard = self.lock();
        if guard.as_ref().is_none_or(|r| r.devices != devices) {
            *guard = Some(Rates {
                devices: devices.to_vec(),
                rows_per_second: vec![None; devices.len()],
            });
        }
        let Some(rates) = guard.as_mut() else { return };
        for ((rate, &rows), &secs) in rates.rows_per_second.iter_mut().zip(rows).zip(seconds) {
            if rows == 0 {
                continue;
            }
            let now = rows as f64 / secs.max(1e-9);
            *rate = Some(match *rate {
                Some(before) => 0.5 * (before + now),
                None => now,
            });
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Rates>> {
        // A launch that panicked while holding the lock left whole rates behind: keep them.
        self.rates
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Weights for sharing `rows` rows among accelerators that run `rates` rows per second: the
/// rates themselves, but an accelerator whose share (at least a tile) would still be running
/// after the others could have finished everything gets nothing. The slowest are dropped one
/// by one while that shortens the predicted time of the launch.
pub(super) fn weights_from_rates(rows: usize, tile_rows: usize, rates: &[f64]) -> Vec<f64> {
    let makespan = |weights: &[f64]| {
        let cuts = cuts(rows, tile_rows, weights);
        cuts.windows(2)
            .zip(rates)
            .map(|(cut, rate)| (cut[1] - cut[0]) as f64 / rate.max(f64::MIN_POSITIVE))
            .fold(0.0, f64::max)
    };
    let mut weights = rates.to_vec();
    let mut best = makespan(&weights);
    let mut slowest_first: Vec<usize> = (0..rates.len()).collect();
    slowest_first.sort_by(|&a, &b| rates[a].total_cmp(&rates[b]));
    for &i in &slowest_first[..slowest_first.len().saturating_sub(1)] {
        let mut fewer = weights.clone();
        fewer[i] = 0.0;
        let time = makespan(&fewer);
        if time >= best {
            break;
        }
        (weights, best) = (fewer, time);
    }
    weights
}

/// Checks `weights` (one per accelerator, finite, not negative, not all zero).
pub(super) fn check_weights(weights: &[f64], accelerators: usize) -> Result<(), Error> {
    if weights.len() != accelerators {
        return Err(Error::InvalidSplit(SplitError::WeightCount {
            weights: weights.len(),
            accelerators,
        }));
    }
    if let Some((index, &value)) = weights
        .iter()
        .enumerate()
        .find(|(_, w)| !w.is_finite() || **w < 0.0)
    {
        return Err(Error::InvalidSplit(SplitError::InvalidWeight {
            index,
            value,
        }));
    }
    if weights.iter().all(|&w| w == 0.0) {
        return Err(Error::InvalidSplit(SplitError::ZeroWeights));
    }
    Ok(())
}

/// The cut points of `rows` rows shared in proportion to `weights` (checked): `weights.len()
/// + 1` ascending row numbers from 0 to `rows`, part `i` being `cuts[i]..cuts[i + 1]`. Every
/// cut but the last is a multiple of `tile_rows`; the shares are rounded cumulatively, so they
/// add up to `rows` exactly.
pub(super) fn cuts(rows: usize, tile_rows: usize, weights: &[f64]) -> Vec<usize> {
    let total: f64 = weights.iter().sum();
    let mut cuts = Vec::with_capacity(weights.len() + 1);
    cuts.push(0);
    let mut sum = 0.0;
    for &w in &weights[..weights.len() - 1] {
        sum += w;
        // The ideal cut, rounded to the nearest tile boundary.
        let tiles = (rows as f64 * sum / total / tile_rows as f64).round() as usize;
        let cut = tiles
            .saturating_mul(tile_rows)
            .min(rows)
            .max(*cuts.last().unwrap_or(&0));
        cuts.push(cut);
    }
    cuts.push(rows);
    cuts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_add_up_and_follow_the_weights() {
        assert_eq!(cuts(10, 1, &[1.0, 1.0]), [0, 5, 10]);
        assert_eq!(cuts(11, 1, &[1.0, 1.0]), [0, 6, 11]);
        assert_eq!(cuts(8, 1, &[3.0, 1.0]), [0, 6, 8]);
        assert_eq!(cuts(8, 1, &[1.0, 0.0]), [0, 8, 8]);
        assert_eq!(cuts(8, 1, &[0.0, 1.0]), [0, 0, 8]);
        assert_eq!(cuts(0, 1, &[1.0, 1.0, 1.0]), [0, 0, 0, 0]);
        assert_eq!(cuts(2, 1, &[1.0, 1.0, 1.0, 1.0]), [0, 1, 1, 2, 2]);
    }

    #[test]
    fn cuts_fall_on_tiles() {
        assert_eq!(cuts(64, 16, &[1.0, 1.0]), [0, 32, 64]);
        assert_eq!(cuts(64, 16, &[3.0, 1.0]), [0, 48, 64]);
        assert_eq!(cuts(50, 16, &[1.0, 1.0, 1.0]), [0, 16, 32, 50]);
        assert_eq!(cuts(10, 16, &[1.0, 1.0]), [0, 0, 10]);
        assert_eq!(cuts(40, 16, &[1.0, 1.0]), [0, 16, 40]);
    }

    #[test]
    fn weights_are_checked() {
        assert!(check_weights(&[1.0, 0.0], 2).is_ok());
        let e = check_weights(&[1.0], 2).unwrap_err();
        assert!(matches!(
            e,
            Error::InvalidSplit(SplitError::WeightCount {
                weights: 1,
                accelerators: 2
            })
        ));
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            let e = check_weights(&[1.0, bad], 2).unwrap_err();
            assert!(matches!(
                e,
                Error::InvalidSplit(SplitError::InvalidWeight { index: 1, .. })
            ));
        }
        let e = check_weights(&[0.0, 0.0], 2).unwrap_err();
        assert!(matches!(e, Error::InvalidSplit(SplitError::ZeroWeights)));
    }

    #[test]
    fn measured_rates_are_averaged_and_fill_gaps() {
        let m = Measured::new();
        let devices = vec!["a".to_string(), "b".to_string()];
        assert_eq!(m.weights_for(&devices), None);
        m.record(&devices, &[100, 0], &[1.0, 0.0]);
        assert_eq!(m.weights_for(&devices), Some(vec![100.0, 100.0]));
        m.record(&devices, &[300, 50], &[1.0, 1.0]);
        assert_eq!(m.weights_for(&devices), Some(vec![200.0, 50.0]));
        assert_eq!(m.weights_for(&devices[..1]), None);
    }

    #[test]
    fn an_accelerator_too_slow_for_one_tile_gets_nothing() {
        // 64 rows in tiles of 16: the slow one's share rounds up to a tile, 0.8 s, while the
        // fast one does all 64 rows in 0.64 s.
        assert_eq!(weights_from_rates(64, 16, &[20.0, 100.0]), [0.0, 100.0]);
        // In rows of one, or with closer rates, both keep their share.
        assert_eq!(weights_from_rates(64, 1, &[20.0, 100.0]), [20.0, 100.0]);
        assert_eq!(weights_from_rates(64, 16, &[30.0, 100.0]), [30.0, 100.0]);
    }
}
