//! Deferred submission: each accelerator view's [`Queue`] records launches and transfers into
//! an open batch (one command buffer) that is submitted at sync points, when it is full or
//! old, and retired once its fence signaled. A batch keeps the resources it uses alive
//! ([`Work`]); a [`Ticket`] names it, and every buffer's [`Pending`] holds the tickets of the
//! batches that use it, plus the device errors (out-of-bounds reports, a lost device) of those
//! batches that were not reported yet.

use std::any::Any;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::time::{Duration, Instant};

use ash::vk;

use super::hazards::{Hazards, Touches};
use super::profile::{DeviceTimeline, KernelTime, Timed, TimedLaunch, Timestamps};
use super::submit::{
    default_timeout, record_barrier, timeout_millis, timeout_nanos, Barrier, Recording, Slot,
};
use super::Device;
use crate::sync::lock;
use crate::Error;

/// A batch is submitted once it holds this many items (or its descriptor pool is full).
const MAX_ITEMS: u32 = super::submit::SETS_PER_BATCH;
/// A batch is submitted by the first item recorded after it is this old (checked at each of
/// its first [`AGE_EVERY`] items, so a launch after a pause still sends a short batch, then
/// every [`AGE_EVERY`] items).
const MAX_AGE: Duration = Duration::from_millis(2);
/// How often a batch's age is checked: every this many items (reading the clock costs about
/// as much as the rest of an item's bookkeeping).
const AGE_EVERY: u32 = 8;
/// At most this many batches of one view are in flight; submitting another waits for the
/// oldest first.
const MAX_IN_FLIGHT: usize = 8;
/// Finished slots a view keeps for reuse.
const KEEP_FREE: usize = 4;

/// Whether `AMP_SYNC_LAUNCHES` asks every launch to wait for its work before returning
/// (the synchronous launches of earlier versions; for measurements and debugging).
pub(crate) fn sync_launches() -> bool {
    static SYNC: OnceLock<bool> = OnceLock::new();
    *SYNC.get_or_init(|| crate::config::validated_flag("AMP_SYNC_LAUNCHES"))
}

/// A device error of one launch, reported once: the launch (if it waits), its view's next
/// [`wait`](crate::AcceleratorView::wait) and the next host access of its buffers all hold
/// it, and whichever asks first takes it.
#[derive(Default)]
pub(crate) struct Reported(Mutex<Option<Error>>);

impl Reported {
    /// The error, unless it was taken already.
    pub(crate) fn take(&self) -> Option<Error> {
        lock(&self.0).take()
    }
}

/// A check run when a batch finished (reading a launch's out-of-bounds report).
pub(crate) struct Check {
    /// The launch's error, if any.
    pub(crate) run: Box<dyn FnOnce() -> Option<Error> + Send>,
    /// Where the error goes (the launch holds a clone).
    pub(crate) cell: Arc<Reported>,
    /// The launch's buffers, whose next host access reports the error.
    pub(crate) sinks: Vec<Arc<Pending>>,
    /// Whether the view's next `wait` reports the error too (not for a launch that waits for
    /// its work and reports the error itself).
    pub(crate) to_view: bool,
}

/// What a batch holds until it finished: the resources its commands use, checks to run, and
/// the buffers whose [`Pending`] learns of its errors.
#[derive(Default)]
pub(crate) struct Work {
    /// Kept alive until the batch finished (buffers, reports, staging buffers).
    pub(crate) keep: Vec<Arc<dyn Any + Send + Sync>>,
    pub(crate) checks: Vec<Check>,
    /// The buffers the batch uses.
    pub(crate) sinks: Vec<Arc<Pending>>,
}

/// One batch of one view's queue: finished once the view retired every batch up to it.
#[derive(Clone)]
pub(crate) struct Ticket {
    queue: Weak<Queue>,
    serial: u64,
}

impl Ticket {
    /// The batch's number on its view.
    pub(crate) fn serial(&self) -> u64 {
        self.serial
    }
}

/// The tickets of the batches that use one buffer and their unreported errors.
#[derive(Default)]
pub(crate) struct Pending {
    state: Mutex<PendingState>,
    /// Which views' batches `state` holds tickets of, written under its lock: 0 for none,
    /// the address of the one view's [`Queue`], or [`Pending::SEVERAL`]. Read without the
    /// lock, it lets a launch over a buffer only its own view uses (a chain of launches) skip
    /// the lock.
    views: AtomicUsize,
}

#[derive(Default)]
struct PendingState {
    /// At most one per view: a view's later batch finishes after its earlier ones.
    tickets: Vec<Ticket>,
    errors: Vec<Arc<Reported>>,
    /// A batch that used the buffer failed as a whole (its submission, or the wait for it):
    /// the buffer's contents are unknown until the host writes all of it again. Unlike
    /// `errors`, reported by every read until then.
    lost: Option<Error>,
}

impl Pending {
    /// [`Pending::views`] when the tickets are of several views.
    const SEVERAL: usize = usize::MAX;

    /// Updates [`Pending::views`] from `st` (its lock held).
    fn publish(&self, st: &PendingState) {
        // At most one ticket per view: two or more are of several views.
        let views = match &st.tickets[..] {
            [] => 0,
            [t] => Weak::as_ptr(&t.queue) as usize,
            _ => Self::SEVERAL,
        };
        self.views.store(views, Ordering::Release);
    }

    /// Notes that the batch `ticket` uses the buffer.
    pub(crate) fn add(&self, ticket: &Ticket) {
        let mut st = lock(&self.state);
        st.tickets.retain(|t| t.queue.strong_count() > 0);
        match st
            .tickets
            .iter_mut()
            .find(|t| t.queue.ptr_eq(&ticket.queue))
        {
            Some(t) => t.serial = t.serial.max(ticket.serial),
            None => st.tickets.push(ticket.clone()),
        }
        self.publish(&st);
    }

    /// Waits for the batches using the buffer, except those of `except` (whose later work is
    /// ordered after them anyway), each at most its view's timeout (`forever`: no limit).
    /// With `take_error`, then returns the first unreported device error of those batches.
    #[inline]
    pub(crate) fn wait(
        &self,
        device: &Device,
        except: Option<&Arc<Queue>>,
        forever: bool,
        take_error: bool,
    ) -> Result<(), Error> {
        if !take_error {
            // What the check under the lock in `wait_locked` answers from the tickets alone
            // (their summary as of the last change; the acquire pairs with its release).
            let views = self.views.load(Ordering::Acquire);
            if views == 0 || except.is_some_and(|q| views == Arc::as_ptr(q) as usize) {
                return Ok(());
            }
        }
        self.wait_locked(device, except, forever, take_error)
    }

    /// [`Pending::wait`] past its lock-free check.
    #[inline(never)]
    fn wait_locked(
        &self,
        device: &Device,
        except: Option<&Arc<Queue>>,
        forever: bool,
        take_error: bool,
    ) -> Result<(), Error> {
        let tickets = {
            let st = lock(&self.state);
            let own = |t: &Ticket| except.is_some_and(|q| Weak::as_ptr(&t.queue) == Arc::as_ptr(q));
            if st.tickets.iter().all(own) && (!take_error || st.errors.is_empty()) {
                return Ok(());
            }
            st.tickets.clone()
        };
        let mut done = Vec::new();
        for t in &tickets {
            let Some(queue) = t.queue.upgrade() else {
                continue;
            };
            if except.is_some_and(|q| Arc::ptr_eq(q, &queue)) {
                continue;
            }
            queue.wait_for(device, t.serial, forever)?;
            done.push(t);
        }
        let mut st = lock(&self.state);
        st.tickets.retain(|t| {
            t.queue.strong_count() > 0
                && !done
                    .iter()
                    .any(|d| d.queue.ptr_eq(&t.queue) && d.serial >= t.serial)
        });
        self.publish(&st);
        if take_error {
            while !st.errors.is_empty() {
                if let Some(e) = st.errors.remove(0).take() {
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    fn fail(&self, cell: &Arc<Reported>) {
        lock(&self.state).errors.push(cell.clone());
    }

    /// [`fail`](Self::fail) for a batch that failed as a whole: the buffer's contents are lost
    /// too.
    fn lose(&self, cell: &Arc<Reported>) {
        let error = lock(&cell.0).clone();
        let mut st = lock(&self.state);
        st.errors.push(cell.clone());
        if st.lost.is_none() {
            st.lost = error;
        }
    }

    /// The error that lost the buffer's contents, if a failed batch did and the host has not
    /// written all of it since.
    pub(crate) fn lost(&self) -> Option<Error> {
        lock(&self.state).lost.clone()
    }

    /// The host wrote the whole buffer: its contents are known again.
    pub(crate) fn restore(&self) {
        lock(&self.state).lost = None;
    }
}

/// One view's queue of batches. The device's Vulkan queue is shared by all views; this is
/// the order and bookkeeping of one view's work on it. (`pub` in a private module: it appears
/// in the sealed `BufferAccess` trait.)
pub struct Queue {
    state: Mutex<QueueState>,
}

struct QueueState {
    family: u32,
    timeout: Duration,
    /// Command buffers submitted so far.
    submitted: u64,
    /// When the last one was submitted.
    last_submit: Option<Instant>,
    /// The serial the next batch opened gets.
    next_serial: u64,
    /// The batch being recorded.
    open: Option<Batch>,
    /// Submitted batches, oldest first.
    in_flight: VecDeque<Batch>,
    free: Vec<Slot>,
    /// Device errors of this view's launches not reported yet.
    errors: VecDeque<Arc<Reported>>,
    /// Whether launches are timed (see `AcceleratorView::set_profiling`).
    profiling: bool,
    /// What the queue family's timestamps mean; `None` if it cannot write them.
    timestamps: Option<Timestamps>,
    /// The times of finished timed launches, not taken yet.
    times: Vec<KernelTime>,
    /// Where the timed launches lie on the host's clock.
    timeline: DeviceTimeline,
}

struct Batch {
    serial: u64,
    slot: Slot,
    /// What its items touched since its last barrier.
    hazards: Hazards,
    items: u32,
    opened: Instant,
    /// When its submission began (when it was opened, until then).
    submitted: Instant,
    work: Work,
}

impl Queue {
    /// An empty queue for queue family `family`, whose timestamps are `timestamps` (command
    /// objects are made on first use).
    pub(crate) fn new(family: u32, timestamps: Option<Timestamps>) -> Arc<Queue> {
        Arc::new(Queue {
            state: Mutex::new(QueueState {
                family,
                timeout: default_timeout(),
                submitted: 0,
                last_submit: None,
                next_serial: 1,
                open: None,
                in_flight: VecDeque::new(),
                free: Vec::new(),
                errors: VecDeque::new(),
                profiling: false,
                timestamps,
                times: Vec::new(),
                timeline: DeviceTimeline::default(),
            }),
        })
    }

    fn state(&self) -> MutexGuard<'_, QueueState> {
        lock(&self.state)
    }

    /// How long a wait for this view's work may take.
    pub(crate) fn timeout(&self) -> Duration {
        self.state().timeout
    }

    pub(crate) fn set_timeout(&self, timeout: Duration) {
        self.state().timeout = timeout;
    }

    /// Command buffers submitted so far.
    pub(crate) fn submitted(&self) -> u64 {
        self.state().submitted
    }

    /// Turns the timing of launches on or off. Errors if the queue family cannot write
    /// timestamps (`device` names the device).
    pub(crate) fn set_profiling(&self, on: bool, device: &str) -> Result<(), Error> {
        let mut st = self.state();
        if on && st.timestamps.is_none() {
            return Err(Error::TimestampsUnsupported {
                device: device.to_owned(),
            });
        }
        st.profiling = on;
        Ok(())
    }

    /// Whether launches are timed.
    pub(crate) fn profiling(&self) -> bool {
        self.state().profiling
    }

    /// The times of the finished timed launches, removed.
    pub(crate) fn take_times(&self) -> Vec<KernelTime> {
        std::mem::take(&mut self.state().times)
    }

    /// Records one item into the open batch with `record` (after a barrier ordering it after
    /// everything before it); `work` then adds what the batch must keep until it finished. A
    /// launch with `descriptors` buffers gets a batch whose descriptor pool has room for it.
    /// A launch names its kernel in `timed`: while the view times launches, or when the launch
    /// is an autotuner's try, timestamps are written around it. Returns the ticket of the
    /// batch.
    ///
    /// Submits the batch when it is full or old. Errors only when nothing was recorded; a
    /// failed submission afterwards is kept as this view's error (see [`Self::take_error`]).
    pub(crate) fn record<R>(
        self: &Arc<Self>,
        device: &Device,
        descriptors: u32,
        timed: Option<Timed<'_>>,
        touches: Touches<'_>,
        record: impl FnOnce(&mut Recording<'_>) -> Result<R, Error>,
        work: impl FnOnce(&mut Work),
    ) -> Result<(R, Ticket), Error> {
        let mut garbage = Vec::new();
        let out = {
            let mut st = self.state();
            if st.open.as_ref().is_some_and(|b| !b.slot.fits(descriptors)) {
                st.submit(device, &mut garbage)?;
            }
            if st.open.is_none() {
                // Finished batches are retired when a batch opens (their slots are reused
                // for it), not at every launch: a launch into the open batch asks the device
                // nothing.
                st.poll(device, &mut garbage);
                st.open(device, descriptors)?;
            }
            let d = device.vk();
            let profiled = st.profiling;
            let timed = timed
                .filter(|t| st.timestamps.is_some() && (profiled || t.tune.is_some()))
                .map(|t| TimedLaunch {
                    kernel: t.kernel.to_owned(),
                    profiled,
                    tune: t.tune,
                });
            let batch = st.open.as_mut().expect("opened above");
            let cmd = batch.slot.cmd();
            // SAFETY: the slot's command buffer is recording (outside any render pass).
            unsafe {
                if batch.hazards.before(touches) {
                    record_barrier(d, cmd, Barrier::BeforeWork);
                }
                if timed.is_some() {
                    batch.slot.queries.start(d, cmd)?;
                }
            }
            let out = record(&mut Recording {
                d,
                slot: &mut batch.slot,
            })?;
            if let Some(launch) = timed {
                // SAFETY: as above; `start` was recorded for this launch.
                unsafe { batch.slot.queries.end(d, cmd, launch) };
            }
            batch.items += 1;
            work(&mut batch.work);
            let ticket = Ticket {
                queue: Arc::downgrade(self),
                serial: batch.serial,
            };
            // The first launch after the view's queue sat idle starts at once: the device
            // works while the host records the next ones (which batch up meanwhile).
            let idle = batch.items == 1
                && st.in_flight.is_empty()
                && st.last_submit.is_none_or(|t| t.elapsed() >= MAX_AGE);
            let batch = st.open.as_mut().expect("opened above");
            if idle
                || batch.items >= MAX_ITEMS
                || ((batch.items <= AGE_EVERY || batch.items.is_multiple_of(AGE_EVERY))
                    && batch.opened.elapsed() >= MAX_AGE)
            {
                if let Err(e) = st.submit(device, &mut garbage) {
                    st.errors.push_back(Arc::new(Reported(Mutex::new(Some(e)))));
                }
            }
            (out, ticket)
        };
        drop(garbage);
        Ok(out)
    }

    /// Submits the open batch, if any (C++ AMP's `accelerator_view::flush`).
    pub(crate) fn flush(&self, device: &Device) -> Result<(), Error> {
        let mut garbage = Vec::new();
        let r = self.state().submit(device, &mut garbage);
        drop(garbage);
        r
    }

    /// Waits until the batch `serial` (and every earlier one) finished, at most this view's
    /// timeout per batch unless `forever`.
    pub(crate) fn wait_for(
        &self,
        device: &Device,
        serial: u64,
        forever: bool,
    ) -> Result<(), Error> {
        let mut garbage = Vec::new();
        let r = self.state().wait_for(device, serial, forever, &mut garbage);
        drop(garbage);
        r
    }

    /// Waits for all work recorded so far.
    pub(crate) fn wait_all(&self, device: &Device, forever: bool) -> Result<(), Error> {
        let mut garbage = Vec::new();
        let r = {
            let mut st = self.state();
            let last = st.next_serial - 1;
            st.wait_for(device, last, forever, &mut garbage)
        };
        drop(garbage);
        r
    }

    /// The first device error of this view's finished work not reported yet.
    pub(crate) fn take_error(&self) -> Option<Error> {
        let mut st = self.state();
        while let Some(cell) = st.errors.pop_front() {
            if let Some(e) = cell.take() {
                return Some(e);
            }
        }
        None
    }

    /// Submits and waits for all work without a limit, then destroys the command objects.
    ///
    /// # Safety
    /// The queue is not used afterwards.
    pub(crate) unsafe fn destroy(&self, device: &Device) {
        let _ = self.wait_all(device, true);
        let mut st = self.state();
        let d = device.vk();
        let mut garbage = Vec::new();
        // Only a batch whose wait failed (a lost device) can be left.
        while let Some(batch) = st.in_flight.pop_front() {
            // SAFETY: the fence belongs to this device.
            let _ = unsafe { d.wait_for_fences(&[batch.slot.fence], true, u64::MAX) };
            st.retire(batch, None, device, &mut garbage);
        }
        for slot in st.free.drain(..) {
            // SAFETY: per the function's contract; every batch finished.
            unsafe { slot.destroy(d) };
        }
        if let Some(batch) = st.open.take() {
            // SAFETY: never submitted.
            unsafe { batch.slot.destroy(d) };
        }
        drop(st);
        drop(garbage);
    }
}

impl QueueState {
    /// Opens a new batch in a free (or new) slot, with room for a launch with `descriptors`
    /// buffers.
    fn open(&mut self, device: &Device, descriptors: u32) -> Result<(), Error> {
        let d = device.vk();
        let mut slot = match self.free.pop() {
            Some(s) => s,
            None => Slot::new(d, self.family)?,
        };
        // SAFETY: free slots' batches have finished.
        if let Err(e) = unsafe { slot.begin(d, descriptors) } {
            self.free.push(slot);
            return Err(e);
        }
        let now = Instant::now();
        self.open = Some(Batch {
            serial: self.next_serial,
            slot,
            hazards: Hazards::new(),
            items: 0,
            opened: now,
            submitted: now,
            work: Work::default(),
        });
        self.next_serial += 1;
        Ok(())
    }

    /// Retires the finished batches at the front (without waiting).
    fn poll(&mut self, device: &Device, garbage: &mut Vec<Work>) {
        let d = device.vk();
        while let Some(front) = self.in_flight.front() {
            // SAFETY: the fence belongs to this device.
            match unsafe { d.get_fence_status(front.slot.fence) } {
                Ok(true) => {
                    let batch = self.in_flight.pop_front().expect("checked");
                    self.retire(batch, None, device, garbage);
                }
                Ok(false) => break,
                Err(e) => {
                    let batch = self.in_flight.pop_front().expect("checked");
                    self.retire(batch, Some(e), device, garbage);
                }
            }
        }
    }

    /// Submits the open batch, if any, first waiting for the oldest batch in flight when
    /// there are [`MAX_IN_FLIGHT`].
    fn submit(&mut self, device: &Device, garbage: &mut Vec<Work>) -> Result<(), Error> {
        let Some(batch) = self.open.take() else {
            return Ok(());
        };
        let _span = tracing::info_span!(
            "submit",
            batch = batch.serial,
            items = batch.items,
            device = device.device_path()
        )
        .entered();
        let d = device.vk();
        if self.in_flight.len() >= MAX_IN_FLIGHT {
            let oldest = self.in_flight[0].serial;
            // A timeout leaves it in flight: the queue grows rather than fails.
            let _ = self.wait_for(device, oldest, false, garbage);
        }
        // Taken before the call: a driver may run the batch before `vkQueueSubmit` returns
        // (lavapipe does), never before it is called.
        let submitting = Instant::now();
        // SAFETY: the command buffer is recording; after `end` it is submitted once.
        let submitted = unsafe {
            batch.slot.end(d).and_then(|()| {
                let cmds = [batch.slot.cmd()];
                let submit = vk::SubmitInfo::default().command_buffers(&cmds);
                // vkQueueSubmit needs the queue externally synchronized.
                let queue = lock(&device.queue);
                if crate::fault::fires(crate::fault::SUBMIT) {
                    return Err(Error::vk("vkQueueSubmit")(vk::Result::ERROR_DEVICE_LOST));
                }
                d.queue_submit(*queue, &[submit], batch.slot.fence)
                    .map_err(Error::vk("vkQueueSubmit"))
            })
        };
        match submitted {
            Ok(()) => {
                super::exit::on_submit();
                let now = Instant::now();
                self.submitted += 1;
                self.last_submit = Some(now);
                self.in_flight.push_back(Batch {
                    submitted: submitting,
                    ..batch
                });
                Ok(())
            }
            Err(e) => {
                // Nothing of it will run: its resources go, its launches report the error.
                let cell = Arc::new(Reported(Mutex::new(Some(e.clone()))));
                self.fail_batch(&batch.work.sinks, &cell);
                let Batch { slot, work, .. } = batch;
                // SAFETY: never submitted.
                unsafe { slot.destroy(d) };
                garbage.push(work);
                Err(e)
            }
        }
    }

    /// Waits for batch `serial` and every earlier one, retiring them.
    fn wait_for(
        &mut self,
        device: &Device,
        serial: u64,
        forever: bool,
        garbage: &mut Vec<Work>,
    ) -> Result<(), Error> {
        if self.open.as_ref().is_some_and(|b| b.serial <= serial) {
            self.submit(device, garbage)?;
        }
        let _span = self
            .in_flight
            .front()
            .is_some_and(|b| b.serial <= serial)
            .then(|| {
                tracing::info_span!("fence_wait", batch = serial, device = device.device_path())
                    .entered()
            });
        let d = device.vk();
        while let Some(front) = self.in_flight.front() {
            if front.serial > serial {
                break;
            }
            // The timeout is per launch: a batch of n launches may take n times it, so real
            // work batched together does not trip it (measured from the start of this wait
            // for the batch, which the earlier batches' waits leave at its own start).
            let limit = if forever {
                Duration::MAX
            } else {
                self.timeout.saturating_mul(front.items.max(1))
            };
            // (A wait without a limit cannot time out.)
            if !forever && crate::fault::fires(crate::fault::TIMEOUT) {
                return Err(Error::Timeout {
                    timeout_ms: timeout_millis(limit),
                });
            }
            // SAFETY: the fence belongs to this device and was submitted.
            let waited =
                unsafe { d.wait_for_fences(&[front.slot.fence], true, timeout_nanos(limit)) };
            // An injected loss comes after the real wait: the work is done, nothing it uses is
            // freed under the device.
            let waited = match waited {
                Ok(()) if crate::fault::fires(crate::fault::WAIT) => {
                    Err(vk::Result::ERROR_DEVICE_LOST)
                }
                other => other,
            };
            match waited {
                Ok(()) => {
                    let batch = self.in_flight.pop_front().expect("checked");
                    self.retire(batch, None, device, garbage);
                }
                Err(vk::Result::TIMEOUT) => {
                    return Err(Error::Timeout {
                        timeout_ms: timeout_millis(limit),
                    })
                }
                Err(e) => {
                    let batch = self.in_flight.pop_front().expect("checked");
                    self.retire(batch, Some(e), device, garbage);
                }
            }
        }
        Ok(())
    }

    /// Ends a finished batch (or one whose wait failed with `failed`): runs its checks,
    /// hands their errors to the view and the buffers, and frees its slot for reuse.
    fn retire(
        &mut self,
        batch: Batch,
        failed: Option<vk::Result>,
        device: &Device,
        garbage: &mut Vec<Work>,
    ) {
        let Batch {
            mut slot,
            mut work,
            submitted,
            ..
        } = batch;
        if let (None, Some(timestamps)) = (failed, self.timestamps) {
            // SAFETY: the batch finished.
            let read = unsafe {
                slot.queries.read(
                    device.vk(),
                    timestamps,
                    submitted,
                    &mut self.timeline,
                    &mut self.times,
                )
            };
            if let Err(e) = read {
                self.errors
                    .push_back(Arc::new(Reported(Mutex::new(Some(e)))));
            }
        }
        if let Some(result) = failed {
            let cell = Arc::new(Reported(Mutex::new(Some(Error::vk("vkWaitForFences")(
                result,
            )))));
            self.fail_batch(&work.sinks, &cell);
        }
        for check in work.checks.drain(..) {
            if let Some(e) = (check.run)() {
                *lock(&check.cell.0) = Some(e);
                if check.to_view {
                    self.errors.push_back(check.cell.clone());
                }
                for sink in &check.sinks {
                    sink.fail(&check.cell);
                }
            }
        }
        if failed.is_none() {
            super::exit::again_after_first_work();
        }
        if failed.is_none() && self.free.len() < KEEP_FREE {
            self.free.push(slot);
        } else if failed.is_none() {
            // SAFETY: the batch finished.
            unsafe { slot.destroy(device.vk()) };
        }
        // A slot whose fence failed may still be in use: it is leaked rather than reused.
        garbage.push(work);
    }

    /// Hands the error in `cell` to the view and to the buffers `sinks`.
    fn fail_batch(&mut self, sinks: &[Arc<Pending>], cell: &Arc<Reported>) {
        self.errors.push_back(cell.clone());
        for sink in sinks {
            sink.lose(cell);
        }
    }
}
