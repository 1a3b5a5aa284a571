//! The context a workload measures in: the two accelerators, the rows, checks and diagnostics
//! gathered so far, and the timers that count launches, read kernel times and run the native
//! column.

use amp::prelude::*;

use std::time::Instant;

use crate::clocks::ClockLog;
use crate::measure::{kernel_sampling, measure, measure_pair, native_unsupported, KERNEL_SAMPLES};
use crate::report::{
    check_native, BoundsCost, Check, Diagnostic, KernelRow, KernelStats, Native, Row, WarmUp,
    Yardstick,
};
use crate::{BoxError, Config};

/// Why the native column is empty in the GPU profile.
const NATIVE_OFF: &str = "the native column is off in the GPU profile (`--gpu` without `--native`)";

/// What a [`Workload`](crate::workloads::Workload) measures with and adds to: the run's
/// configuration, the Vulkan device of the amp and glslang columns, the native CPU accelerator,
/// and the rows, checks and diagnostics gathered so far. The timers below are how a workload
/// measures: `time` for the CPU column, `time_pair` for an amp kernel and its GLSL twin,
/// `time_amp` for an amp kernel alone, `time_native` for the native column.
pub struct Ctx<'a> {
    pub(crate) cfg: &'a Config,
    /// The Vulkan device of the amp and glslang columns.
    pub(crate) acc: Accelerator,
    /// The native CPU accelerator of the native column.
    pub(crate) native: Accelerator,
    pub(crate) rows: Vec<Row>,
    pub(crate) checks: Vec<Check>,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// `time_pair` calls so far (instruction counting picks one by its number).
    pub(crate) pairs: std::cell::Cell<usize>,
    /// Device times of the last timed pair (amp, glslang) or amp-only run, for the next row.
    pub(crate) pending_kernel: std::cell::Cell<Option<(Option<KernelStats>, Option<KernelStats>)>>,
    /// Kernel time beside wall time, one per row that launched on the Vulkan device.
    pub(crate) kernel_rows: Vec<KernelRow>,
    /// Seconds the Vulkan device took to come up (`Accelerator::all`, the first non-native),
    /// for the first-launch section.
    pub(crate) init: f64,
    /// Seconds `Accelerator::cpu` took, likewise.
    pub(crate) native_init: f64,
    /// The bounds-checking cost table, filled by the `bounds` section.
    pub(crate) bounds: Vec<BoundsCost>,
    /// The memory-bound rows' yardsticks, measured by the `yardsticks` section.
    pub(crate) yardsticks: Vec<Yardstick>,
    /// The GPU profile's warm-up, done by the `yardsticks` section.
    pub(crate) warm_up: Option<WarmUp>,
    /// The GPU's clocks around each section (the GPU profile).
    pub(crate) clocks: ClockLog,
}

impl Ctx<'_> {
    /// A checked and an unchecked run of a workload timed in alternation, on the Vulkan device
    /// or `native`ly; `None` while counting instructions, and natively where the native
    /// accelerator is off or cannot run the kernel.
    pub(crate) fn checked_pair(
        &self,
        native: bool,
        checked: impl FnMut() -> Result<(), BoxError>,
        unchecked: impl FnMut() -> Result<(), BoxError>,
    ) -> Result<Option<(f64, f64)>, BoxError> {
        if self.cfg.count.is_some() || (native && !self.cfg.native) {
            return Ok(None);
        }
        match measure_pair(self.cfg, checked, unchecked) {
            Ok(pair) => Ok(Some(pair)),
            Err(e) if native && native_unsupported(&e).is_some() => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub(crate) fn time(&self, f: impl FnMut() -> Result<(), BoxError>) -> Result<f64, BoxError> {
        if self.cfg.count.is_some() {
            return Ok(1.0);
        }
        measure(self.cfg, f)
    }

    /// [`Ctx::time`] for work on the Vulkan device, whose device time (more runs, timed with
    /// timestamp queries) goes with the next row.
    pub(crate) fn time_amp(
        &self,
        mut f: impl FnMut() -> Result<(), BoxError>,
    ) -> Result<f64, BoxError> {
        let secs = self.time(&mut f)?;
        if let Some(kernel) = self.kernel_time(&mut f)? {
            self.pending_kernel.set(Some((Some(kernel), None)));
        }
        Ok(secs)
    }

    /// The device time of repeated runs of `f` (see [`kernel_sampling`]): each sample is
    /// the sum of the kernel times (timestamp queries) of the launches one run made on the
    /// default view; `None` when it made none there, the device cannot time, or instructions
    /// are being counted.
    fn kernel_time(
        &self,
        f: &mut dyn FnMut() -> Result<(), BoxError>,
    ) -> Result<Option<KernelStats>, BoxError> {
        if self.cfg.count.is_some() {
            return Ok(None);
        }
        let view = Accelerator::default()?.default_view();
        if view.set_profiling(true).is_err() {
            return Ok(None);
        }
        let sampled = (|| -> Result<Vec<f64>, BoxError> {
            view.take_kernel_times()?;
            let (fewest, budget) = kernel_sampling(self.cfg);
            let t0 = Instant::now();
            let mut samples = Vec::with_capacity(KERNEL_SAMPLES);
            while samples.len() < KERNEL_SAMPLES {
                let t = Instant::now();
                f()?;
                let times = view.take_kernel_times()?;
                if times.is_empty() {
                    break;
                }
                samples.push(times.iter().map(|t| t.seconds).sum());
                // A run slower than half a second makes three samples enough.
                let fewest = if t.elapsed().as_secs_f64() > 0.5 {
                    fewest.min(3)
                } else {
                    fewest
                };
                if samples.len() >= fewest && t0.elapsed().as_secs_f64() >= budget {
                    break;
                }
            }
            Ok(samples)
        })();
        view.set_profiling(false)?;
        Ok(KernelStats::of(&sampled?))
    }

    /// Adds `row` to the table, and its kernel times, if the work before it measured any.
    pub(crate) fn push_row(&mut self, row: Row) {
        if let Some((amp_kernel, glsl_kernel)) = self.pending_kernel.take() {
            self.kernel_rows.push(KernelRow {
                row: self.rows.len(),
                amp_kernel,
                glsl_kernel,
            });
        }
        self.rows.push(row);
    }

    /// The native column: `f` (launches on `self.native`) timed as the CPU column is, or why
    /// the native accelerator cannot run it (`amp::Error::NativeUnsupported`). Other errors
    /// fail the benchmark.
    pub(crate) fn time_native(
        &self,
        f: impl FnMut() -> Result<(), BoxError>,
    ) -> Result<Native, BoxError> {
        if self.cfg.count.is_some() {
            return Ok(Err("not run while counting instructions".into()));
        }
        if !self.cfg.native {
            return Ok(Err(NATIVE_OFF.into()));
        }
        match measure(self.cfg, f) {
            Ok(secs) => Ok(Ok(secs)),
            Err(e) => match native_unsupported(&e) {
                Some(why) => Ok(Err(why)),
                None => Err(e),
            },
        }
    }

    /// Pushes the native check of `name` when the native column ran.
    pub(crate) fn check_native<T: PartialEq + std::fmt::Debug>(
        &mut self,
        name: &str,
        ran: &Native,
        native: impl FnOnce() -> Result<Vec<T>, BoxError>,
        cpu: &[T],
    ) -> Result<(), BoxError> {
        if ran.is_ok() && self.cfg.count.is_none() {
            let got = native()?;
            self.checks.push(check_native(name, &got, cpu));
        }
        Ok(())
    }

    /// Medians of the amp and the glslang version of a workload, timed in alternation (one
    /// run of each per repetition) so that machine load and cache state hit both alike.
    pub(crate) fn time_pair(
        &self,
        amp: impl FnMut() -> Result<(), BoxError>,
        glsl: impl FnMut() -> Result<(), BoxError>,
    ) -> Result<(f64, f64), BoxError> {
        let pair = self.pairs.get();
        self.pairs.set(pair + 1);
        if let Some(count) = &self.cfg.count {
            count.run(pair, amp, glsl)?;
            return Ok((1.0, 1.0));
        }
        let (mut amp, mut glsl) = (amp, glsl);
        let walls = measure_pair(self.cfg, &mut amp, &mut glsl)?;
        let kernels = (self.kernel_time(&mut amp)?, self.kernel_time(&mut glsl)?);
        self.pending_kernel.set(Some(kernels));
        Ok(walls)
    }
}
