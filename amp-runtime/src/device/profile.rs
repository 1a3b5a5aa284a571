//! Kernel timing (opt-in, per view): [`KernelTime`], what a queue's timestamps mean
//! ([`Timestamps`]), the timestamp queries of one batch ([`QueryPools`]), and the times a view
//! collected ([`Profiler`]).
//!
//! On a Vulkan view, each timed launch writes two timestamps into its batch's query pool
//! (`vkCmdWriteTimestamp` at `BOTTOM_OF_PIPE` before and after its dispatch: once all earlier
//! work finished, and once the dispatch finished); the results are read when the batch is
//! retired. On the native CPU accelerator a launch's time is the wall-clock time it ran.
//!
//! A launch's start is also placed on the host's clock ([`KernelTime::start`]), so that a
//! timeline can show the device's work beside the host's: a batch's first timed launch starts
//! when the batch's submission began, or when the queue's previous timed launch ended if that is
//! later (a device starts a batch no earlier than either); the later ones keep the device's own
//! offsets from it. The start is a lower bound by the device's latency in taking up a batch
//! (microseconds on a GPU); the durations and the gaps inside a batch are the device's.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ash::vk;

use super::autotune::TuneSample;
use super::counts::LIVE_QUERY_POOLS;
use crate::sync::lock;
use crate::Error;

/// The device time of one launch, from
/// [`AcceleratorView::take_kernel_times`](crate::AcceleratorView::take_kernel_times).
#[derive(Clone, Debug, PartialEq)]
pub struct KernelTime {
    /// The kernel's name: the `#[kernel(amp)]` function's name, or the entry point of a
    /// [`RawKernel`](crate::RawKernel).
    pub kernel: String,
    /// How long the launch ran, in seconds. On a Vulkan accelerator: the time between two
    /// device timestamps around its dispatch (taken once the view's earlier work finished, and
    /// once the dispatch finished), without the host's recording and submission. On the native
    /// CPU accelerator: the wall-clock time of the launch on the host.
    pub seconds: f64,
    /// When the launch started on the device, on the host's clock: on the native CPU
    /// accelerator, when it started running; on a Vulkan accelerator, placed from the device's
    /// timestamps as the module documentation says (exact within a batch, a lower bound by the
    /// device's latency across batches). For timelines of the device's work beside the
    /// host's (docs/tracing.md).
    pub start: Instant,
}

impl KernelTime {
    /// A launch's measured time, also reported as a `kernel time` tracing event (with the
    /// kernel and the seconds), on every accelerator alike.
    pub(crate) fn measured(kernel: String, start: Instant, seconds: f64) -> KernelTime {
        tracing::info!(kernel = kernel.as_str(), seconds, "kernel time");
        KernelTime {
            kernel,
            seconds,
            start,
        }
    }

    /// When the launch ended on the device, on the host's clock.
    pub fn end(&self) -> Instant {
        self.start + Duration::from_secs_f64(self.seconds)
    }
}

/// Where a queue's timed launches lie on the host's clock: the end of the last one placed.
#[derive(Default)]
pub(super) struct DeviceTimeline {
    last_end: Option<Instant>,
}

impl DeviceTimeline {
    /// The host time at which a batch submitted at `submitted` began on the device, at the
    /// earliest.
    fn batch_start(&self, submitted: Instant) -> Instant {
        self.last_end.map_or(submitted, |end| end.max(submitted))
    }

    /// Places a launch the device's ticks put at `start`, lasting `seconds`: no earlier than
    /// the previous launch's end (a queue runs its timed launches one after another; this
    /// absorbs the rounding of ticks to nanoseconds). Returns its start.
    fn place(&mut self, start: Instant, seconds: f64) -> Instant {
        let start = self.last_end.map_or(start, |end| end.max(start));
        self.last_end = Some(start + Duration::from_secs_f64(seconds));
        start
    }
}

/// What a queue family's timestamps mean: nanoseconds per tick (`timestampPeriod`) and the
/// bits that count (`timestampValidBits`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timestamps {
    period_ns: f64,
    valid_bits: u32,
}

impl Timestamps {
    /// The timestamps of a queue family with `valid_bits` valid bits on a device whose
    /// timestamps tick every `period_ns` nanoseconds; `None` when the family cannot write
    /// timestamps (no valid bits) or the period is meaningless.
    pub(crate) fn new(period_ns: f32, valid_bits: u32) -> Option<Timestamps> {
        (valid_bits > 0 && period_ns.is_finite() && period_ns > 0.0).then_some(Timestamps {
            period_ns: f64::from(period_ns),
            valid_bits: valid_bits.min(64),
        })
    }

    /// Seconds between the timestamps `start` and `end` (the counter may wrap once).
    fn seconds(&self, start: u64, end: u64) -> f64 {
        let mask = if self.valid_bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.valid_bits) - 1
        };
        let ticks = end.wrapping_sub(start) & mask;
        ticks as f64 * self.period_ns * 1e-9
    }
}

/// A launch to time: its kernel's name, and the autotuner's try it runs, if any.
pub(crate) struct Timed<'a> {
    pub(crate) kernel: &'a str,
    pub(crate) tune: Option<TuneSample>,
}

/// A timed launch of the batch being recorded: for the view's profiler (`profiled`), the
/// autotuner (`tune`) or both.
pub(super) struct TimedLaunch {
    pub(super) kernel: String,
    pub(super) profiled: bool,
    pub(super) tune: Option<TuneSample>,
}

/// Launches timed per query pool (two queries each).
const LAUNCHES_PER_POOL: u32 = 64;

/// The timestamp queries of one batch slot: query pools of [`LAUNCHES_PER_POOL`] launches
/// each, made on first use, added as a batch needs more, and kept for the slot's next batches.
#[derive(Default)]
pub(super) struct QueryPools {
    pools: Vec<vk::QueryPool>,
    /// The launches timed in the current batch, in order.
    names: Vec<TimedLaunch>,
}

impl QueryPools {
    /// Forgets the previous batch's launches (its results were read or dropped).
    pub(super) fn clear(&mut self) {
        self.names.clear();
    }

    /// The pool and first query of the next timed launch, making a pool if needed.
    fn next(&mut self, d: &ash::Device) -> Result<(vk::QueryPool, u32), Error> {
        let n = self.names.len() as u32;
        let pool = (n / LAUNCHES_PER_POOL) as usize;
        if pool == self.pools.len() {
            let info = vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::TIMESTAMP)
                .query_count(2 * LAUNCHES_PER_POOL);
            // SAFETY: valid create info on a live device.
            let p = unsafe { d.create_query_pool(&info, None) }
                .map_err(Error::vk("vkCreateQueryPool"))?;
            LIVE_QUERY_POOLS.created();
            self.pools.push(p);
        }
        Ok((self.pools[pool], 2 * (n % LAUNCHES_PER_POOL)))
    }

    /// Records the timestamp before a launch: resets the launch's two queries and writes the
    /// first once all earlier work finished.
    ///
    /// # Safety
    /// `cmd` is this slot's command buffer, recording, outside a render pass.
    pub(super) unsafe fn start(
        &mut self,
        d: &ash::Device,
        cmd: vk::CommandBuffer,
    ) -> Result<(), Error> {
        let (pool, first) = self.next(d)?;
        // SAFETY: per the function's contract; the queries belong to this slot, whose earlier
        // batches finished.
        unsafe {
            d.cmd_reset_query_pool(cmd, pool, first, 2);
            d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::BOTTOM_OF_PIPE, pool, first);
        }
        Ok(())
    }

    /// Records the timestamp after the launch [`start`](Self::start) began.
    ///
    /// # Safety
    /// As for [`start`](Self::start), which was called for this launch.
    pub(super) unsafe fn end(
        &mut self,
        d: &ash::Device,
        cmd: vk::CommandBuffer,
        launch: TimedLaunch,
    ) {
        let n = self.names.len() as u32;
        let pool = self.pools[(n / LAUNCHES_PER_POOL) as usize];
        let first = 2 * (n % LAUNCHES_PER_POOL);
        // SAFETY: per the function's contract; `start` reset the query.
        unsafe {
            d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::BOTTOM_OF_PIPE, pool, first + 1)
        };
        self.names.push(launch);
    }

    /// The times of the finished batch's launches: the profiled ones appended to `out` in
    /// launch order and placed on `timeline` (the batch was submitted at `submitted`), the
    /// autotuner's tries handed to it.
    ///
    /// # Safety
    /// The batch finished.
    pub(super) unsafe fn read(
        &mut self,
        d: &ash::Device,
        timestamps: Timestamps,
        submitted: Instant,
        timeline: &mut DeviceTimeline,
        out: &mut Vec<KernelTime>,
    ) -> Result<(), Error> {
        let mut names = std::mem::take(&mut self.names).into_iter();
        let batch_start = timeline.batch_start(submitted);
        // The device's tick of the batch's first timed launch, the origin of the others.
        let mut origin = None;
        for &pool in &self.pools {
            let launches = names.len().min(LAUNCHES_PER_POOL as usize);
            if launches == 0 {
                break;
            }
            let mut ticks = vec![0u64; 2 * launches];
            // SAFETY: the batch that wrote these queries finished (per the contract).
            unsafe {
                d.get_query_pool_results(
                    pool,
                    0,
                    &mut ticks,
                    vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
                )
            }
            .map_err(Error::vk("vkGetQueryPoolResults"))?;
            for (pair, launch) in ticks.chunks_exact(2).zip(names.by_ref()) {
                let origin = *origin.get_or_insert(pair[0]);
                let seconds = timestamps.seconds(pair[0], pair[1]);
                let start = timeline.place(
                    batch_start + Duration::from_secs_f64(timestamps.seconds(origin, pair[0])),
                    seconds,
                );
                if let Some(tune) = launch.tune {
                    tune.finished(seconds);
                }
                if launch.profiled {
                    out.push(KernelTime::measured(launch.kernel, start, seconds));
                }
            }
        }
        Ok(())
    }

    /// Destroys the query pools.
    ///
    /// # Safety
    /// No pending batch uses them.
    pub(super) unsafe fn destroy(&mut self, d: &ash::Device) {
        for pool in self.pools.drain(..) {
            // SAFETY: per the function's contract.
            unsafe { d.destroy_query_pool(pool, None) };
            LIVE_QUERY_POOLS.destroyed();
        }
    }
}

/// Whether a view times its launches, and the times it collected since they were last taken.
#[derive(Default)]
pub(crate) struct Profiler {
    on: AtomicBool,
    times: Mutex<Vec<KernelTime>>,
}

impl Profiler {
    /// Whether launches are timed.
    pub(crate) fn on(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    pub(crate) fn set(&self, on: bool) {
        self.on.store(on, Ordering::Relaxed);
    }

    /// Notes one launch's time.
    pub(crate) fn push(&self, time: KernelTime) {
        lock(&self.times).push(time);
    }

    /// The times collected so far, removed.
    pub(crate) fn take(&self) -> Vec<KernelTime> {
        std::mem::take(&mut *lock(&self.times))
    }
}

#[cfg(test)]
mod tests {
    use super::Timestamps;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs()
    }

    #[test]
    fn ticks_are_scaled_by_the_period_and_wrap_within_the_valid_bits() {
        assert!(Timestamps::new(1.0, 0).is_none());
        assert!(Timestamps::new(0.0, 64).is_none());
        let t = Timestamps::new(2.0, 64).unwrap();
        assert!(close(t.seconds(1_000, 1_500), 1e-6));
        // A 36-bit counter that wrapped between the two timestamps.
        let t = Timestamps::new(1.0, 36).unwrap();
        let top = (1u64 << 36) - 10;
        assert!(close(t.seconds(top, 20), 30e-9));
        // Bits above the valid ones are ignored.
        assert!(close(t.seconds(5 | (1 << 40), 7 | (1 << 50)), 2e-9));
    }
}
