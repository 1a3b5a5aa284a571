//! Queues: [`AcceleratorView`] (C++ AMP's `accelerator_view`), the [`LaunchTarget`] trait and
//! the command-submission path every transfer and launch goes through.
//!
//! Each view owns its command pool, command buffer, fence and descriptor pool (a
//! [`Submitter`]); the device's Vulkan queue is shared by all of them and guarded by a mutex
//! around `vkQueueSubmit` only, so views on one accelerator record, submit and wait
//! independently.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};
use std::time::Duration;

use ash::vk;

use crate::accelerator::{lock, DeviceShared};
use crate::counts::{LIVE_DESCRIPTOR_POOLS, LIVE_SUBMITTERS};
use crate::memory::Busy;
use crate::pipeline::{LaunchKey, RecordedLaunch};
use crate::{Accelerator, Error};

/// Command recording state of one view: a command pool with one command buffer, its fence and
/// a descriptor pool for the launch's one descriptor set. Guarded by a mutex; a submission holds
/// it from recording until its fence signals.
pub(crate) struct Submitter {
    pool: vk::CommandPool,
    pub(crate) cmd: vk::CommandBuffer,
    fence: vk::Fence,
    pub(crate) descriptor_pool: vk::DescriptorPool,
    descriptor_capacity: u32,
    /// Command buffers submitted so far.
    submitted: u64,
    /// How long a submission may take before its wait gives up with [`Error::Timeout`].
    timeout: Duration,
    /// Counts this view's abandoned submissions still running (see [`abandoned_work`]).
    abandoned: Arc<Busy>,
    /// The launch the command buffer holds, when it holds exactly one launch (see
    /// [`LaunchKey`]); `None` after any other recording.
    recorded: Option<RecordedLaunch>,
}

/// The timeout when `AMP_LAUNCH_TIMEOUT_MS` is not set.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The timeout of new views: `AMP_LAUNCH_TIMEOUT_MS` milliseconds (`0`: no limit), or 60 s
/// when it is unset or not a number.
pub(crate) fn default_timeout() -> Duration {
    static TIMEOUT: OnceLock<Duration> = OnceLock::new();
    *TIMEOUT.get_or_init(|| parse_timeout(std::env::var("AMP_LAUNCH_TIMEOUT_MS").ok().as_deref()))
}

/// The timeout a value of `AMP_LAUNCH_TIMEOUT_MS` sets.
fn parse_timeout(value: Option<&str>) -> Duration {
    match value.and_then(|v| v.trim().parse::<u64>().ok()) {
        Some(0) => Duration::MAX,
        Some(ms) => Duration::from_millis(ms),
        None => DEFAULT_TIMEOUT,
    }
}

/// `timeout` in nanoseconds for `vkWaitForFences` (`u64::MAX` waits forever).
fn timeout_nanos(timeout: Duration) -> u64 {
    u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX)
}

/// `timeout` in milliseconds for [`Error::Timeout`].
fn timeout_millis(timeout: Duration) -> u64 {
    u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX)
}

/// Counts the submissions, over all devices, whose wait timed out and that still run.
///
/// Vulkan cannot cancel submitted work, so a submission whose wait gave up keeps its command
/// buffer, fence and descriptor pool (its old [`Submitter`], handed to a thread that waits
/// for it and then destroys them) and keeps the buffers it uses: every host access to buffer
/// memory and every buffer's drop waits here first. Coarse (all buffers, not just the ones
/// the work uses) but simple, and only ever slow after a timeout.
fn abandoned_work() -> &'static Arc<Busy> {
    static ABANDONED: LazyLock<Arc<Busy>> = LazyLock::new(Arc::default);
    &ABANDONED
}

/// Blocks until no abandoned submission (see [`abandoned_work`]) is running.
pub(crate) fn wait_for_abandoned_work() {
    abandoned_work().wait_idle();
}

const INITIAL_DESCRIPTOR_CAPACITY: u32 = 16;

impl Submitter {
    /// A submitter for queue family `family` of `d`.
    pub(crate) fn new(d: &ash::Device, family: u32) -> Result<Submitter, Error> {
        // SAFETY: object creation on a live device; partial results are destroyed on error.
        unsafe {
            let pool = d
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default()
                        .queue_family_index(family)
                        .flags(vk::CommandPoolCreateFlags::TRANSIENT),
                    None,
                )
                .map_err(Error::vk("vkCreateCommandPool"))?;
            let cleanup_pool = |e| {
                d.destroy_command_pool(pool, None);
                e
            };
            let cmd = d
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(pool)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(1),
                )
                .map_err(Error::vk("vkAllocateCommandBuffers"))
                .map_err(cleanup_pool)?[0];
            let fence = d
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(Error::vk("vkCreateFence"))
                .map_err(cleanup_pool)?;
            let descriptor_pool =
                create_descriptor_pool(d, INITIAL_DESCRIPTOR_CAPACITY).map_err(|e| {
                    d.destroy_fence(fence, None);
                    cleanup_pool(e)
                })?;
            LIVE_SUBMITTERS.created();
            Ok(Submitter {
                pool,
                cmd,
                fence,
                descriptor_pool,
                descriptor_capacity: INITIAL_DESCRIPTOR_CAPACITY,
                submitted: 0,
                timeout: default_timeout(),
                abandoned: Arc::default(),
                recorded: None,
            })
        }
    }

    /// Destroys the Vulkan objects.
    ///
    /// # Safety
    /// No submission of this submitter may be pending; it must not be used afterwards.
    pub(crate) unsafe fn destroy(&self, d: &ash::Device) {
        // SAFETY: per the function's contract.
        unsafe {
            d.destroy_descriptor_pool(self.descriptor_pool, None);
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.pool, None);
        }
        LIVE_DESCRIPTOR_POOLS.destroyed();
        LIVE_SUBMITTERS.destroyed();
    }
}

fn create_descriptor_pool(d: &ash::Device, capacity: u32) -> Result<vk::DescriptorPool, Error> {
    let sizes = [vk::DescriptorPoolSize {
        ty: vk::DescriptorType::STORAGE_BUFFER,
        descriptor_count: capacity,
    }];
    let info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(1)
        .pool_sizes(&sizes);
    // SAFETY: valid create info.
    let pool = unsafe { d.create_descriptor_pool(&info, None) }
        .map_err(Error::vk("vkCreateDescriptorPool"))?;
    LIVE_DESCRIPTOR_POOLS.created();
    Ok(pool)
}

impl DeviceShared {
    /// Records commands with `record` on the device's default view, submits them and waits.
    /// Transfers between host and device memory go through here.
    pub(crate) fn submit<R>(
        &self,
        record: impl FnOnce(&ash::Device, &mut Submitter) -> Result<R, Error>,
    ) -> Result<R, Error> {
        self.submit_on(&self.submitter, record)
    }

    /// Records commands with `record` into `submitter`'s command buffer, submits them to the
    /// device's queue and waits for them.
    ///
    /// A global barrier before the commands orders them after every earlier transfer or
    /// compute work on the queue (whichever view submitted it: all views share one queue); one
    /// after them makes their writes visible to the host.
    pub(crate) fn submit_on<R>(
        &self,
        submitter: &Mutex<Submitter>,
        record: impl FnOnce(&ash::Device, &mut Submitter) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let mut s = lock(submitter);
        let out = self.record_commands(&mut s, record)?;
        self.submit_and_wait(&mut s)?;
        Ok(out)
    }

    /// [`submit_on`](Self::submit_on) for one launch described by `key`: when the command
    /// buffer still holds that very launch (the previous submission of this submitter was it),
    /// it is submitted again without recording anything; otherwise `record` records it.
    pub(crate) fn submit_launch_on(
        &self,
        submitter: &Mutex<Submitter>,
        key: &LaunchKey<'_>,
        record: impl FnOnce(&ash::Device, &mut Submitter) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut s = lock(submitter);
        let holds_launch = s.recorded.as_ref().is_some_and(|r| key.matches(r));
        if !holds_launch {
            self.record_commands(&mut s, record)?;
            s.recorded = Some(key.to_recorded());
        }
        self.submit_and_wait(&mut s)
    }

    /// Records the submitter's command buffer afresh: a barrier, `record`'s commands, and a
    /// barrier (see [`submit_on`](Self::submit_on)).
    fn record_commands<R>(
        &self,
        s: &mut Submitter,
        record: impl FnOnce(&ash::Device, &mut Submitter) -> Result<R, Error>,
    ) -> Result<R, Error> {
        s.recorded = None;
        let d = &self.device;
        // SAFETY: the command buffer belongs to this device and is not in use (every
        // submission is waited for while the lock is held; one whose wait failed was handed
        // to a watcher thread with its whole submitter, see `abandon`). Not one-time-submit:
        // a launch may submit it again.
        unsafe {
            d.reset_command_pool(s.pool, vk::CommandPoolResetFlags::empty())
                .map_err(Error::vk("vkResetCommandPool"))?;
            d.begin_command_buffer(s.cmd, &vk::CommandBufferBeginInfo::default())
                .map_err(Error::vk("vkBeginCommandBuffer"))?;
            record_barrier(d, s.cmd, Barrier::BeforeWork);
        }
        let out = record(d, s);
        // SAFETY: as above.
        unsafe {
            record_barrier(d, s.cmd, Barrier::AfterWork);
            d.end_command_buffer(s.cmd)
                .map_err(Error::vk("vkEndCommandBuffer"))?;
        }
        out
    }

    /// Submits the recorded command buffer to the device's queue and waits for it, at most the
    /// submitter's timeout (then the work is abandoned to a watcher thread, see `abandon`).
    fn submit_and_wait(&self, s: &mut Submitter) -> Result<(), Error> {
        let d = &self.device;
        // SAFETY: the command buffer is recorded and not pending; the fence is not in use.
        unsafe {
            d.reset_fences(&[s.fence])
                .map_err(Error::vk("vkResetFences"))?;
            let cmds = [s.cmd];
            let submit = vk::SubmitInfo::default().command_buffers(&cmds);
            {
                // vkQueueSubmit needs the queue externally synchronized; the wait below does not.
                let queue = lock(&self.queue);
                d.queue_submit(*queue, &[submit], s.fence)
                    .map_err(Error::vk("vkQueueSubmit"))?;
            }
            s.submitted += 1;
            match d.wait_for_fences(&[s.fence], true, timeout_nanos(s.timeout)) {
                Ok(()) => Ok(()),
                Err(result) => {
                    let timeout_ms = timeout_millis(s.timeout);
                    self.abandon(s);
                    Err(match result {
                        vk::Result::TIMEOUT => Error::Timeout { timeout_ms },
                        other => Error::vk("vkWaitForFences")(other),
                    })
                }
            }
        }
    }

    /// Gives up waiting for `s`'s submission, which is still pending: a thread takes over
    /// `s`'s objects, waits for the submission (without a limit) and destroys them, while `s`
    /// continues with fresh ones. Until that thread is done, [`abandoned_work`] and the
    /// view's own counter are busy, so host access to buffers and [`AcceleratorView::wait`]
    /// wait for it.
    fn abandon(&self, s: &mut Submitter) {
        let d = self.device.clone();
        let Ok(fresh) = Submitter::new(&d, self.queue_family) else {
            // No objects for a fresh start: wait here after all.
            // SAFETY: the fence belongs to this device and was submitted.
            let _ = unsafe { d.wait_for_fences(&[s.fence], true, u64::MAX) };
            return;
        };
        let old = std::mem::replace(s, fresh);
        s.submitted = old.submitted;
        s.timeout = old.timeout;
        s.abandoned = old.abandoned.clone();
        let guards = (abandoned_work().begin(), old.abandoned.begin());
        let finish = move || {
            // SAFETY: the fence belongs to the device, which outlives this (`DeviceShared::drop`
            // waits for abandoned work first); once it signaled (or the device is lost) the
            // submitter's objects are no longer in use.
            unsafe {
                let _ = d.wait_for_fences(&[old.fence], true, u64::MAX);
                old.destroy(&d);
            }
            drop(guards);
        };
        // Shared so that the work can still be done here if no thread can be started.
        let work = Arc::new(Mutex::new(Some(finish)));
        let for_thread = work.clone();
        let spawned = std::thread::Builder::new()
            .name("amp-abandoned-work".into())
            .spawn(move || run_once(&for_thread));
        if spawned.is_err() {
            run_once(&work);
        }
    }

    /// Makes sure the descriptor pool can hold one set with `buffers` storage buffers, and
    /// resets it. Only called while recording (the submitter lock is held).
    pub(crate) fn reset_descriptor_pool(
        &self,
        s: &mut Submitter,
        buffers: u32,
    ) -> Result<(), Error> {
        let d = &self.device;
        // SAFETY: the pool's sets are only used by the command buffer, which is not pending.
        unsafe {
            if buffers > s.descriptor_capacity {
                let capacity = buffers.next_power_of_two();
                let pool = create_descriptor_pool(d, capacity)?;
                d.destroy_descriptor_pool(s.descriptor_pool, None);
                LIVE_DESCRIPTOR_POOLS.destroyed();
                s.descriptor_pool = pool;
                s.descriptor_capacity = capacity;
            } else {
                d.reset_descriptor_pool(s.descriptor_pool, vk::DescriptorPoolResetFlags::empty())
                    .map_err(Error::vk("vkResetDescriptorPool"))?;
            }
        }
        Ok(())
    }
}

/// Runs the closure in `slot` unless it already ran.
fn run_once(slot: &Mutex<Option<impl FnOnce()>>) {
    let work = lock(slot).take();
    if let Some(work) = work {
        work();
    }
}

enum Barrier {
    BeforeWork,
    AfterWork,
}

/// Records the global memory barrier that starts (orders the commands after all earlier
/// transfer and compute writes) or ends (makes their writes visible to the host) a submission.
///
/// # Safety
/// `cmd` is a command buffer of `d` in the recording state.
unsafe fn record_barrier(d: &ash::Device, cmd: vk::CommandBuffer, which: Barrier) {
    let stages = vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER;
    let written = vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE;
    let (dst_stage, dst_access) = match which {
        Barrier::BeforeWork => (
            stages,
            vk::AccessFlags::SHADER_READ
                | vk::AccessFlags::SHADER_WRITE
                | vk::AccessFlags::TRANSFER_READ
                | vk::AccessFlags::TRANSFER_WRITE,
        ),
        Barrier::AfterWork => (
            vk::PipelineStageFlags::HOST,
            vk::AccessFlags::HOST_READ | vk::AccessFlags::HOST_WRITE,
        ),
    };
    let barrier = vk::MemoryBarrier::default()
        .src_access_mask(written)
        .dst_access_mask(dst_access);
    // SAFETY: per the function's contract.
    unsafe {
        d.cmd_pipeline_barrier(
            cmd,
            stages,
            dst_stage,
            vk::DependencyFlags::empty(),
            &[barrier],
            &[],
            &[],
        )
    };
}

/// A queue on an accelerator (C++ AMP's `accelerator_view`): launches submitted to one view
/// run in submission order.
///
/// Get one with [`Accelerator::default_view`] (the view [`parallel_for_each`] and all
/// host-device copies use) or [`Accelerator::create_view`] (a new, independent queue), and
/// launch on it with [`parallel_for_each_on`]. Cheap to clone: clones are the same view.
///
/// Every view owns its command buffer, fence and descriptor pool, so threads launching on
/// different views of one accelerator record and wait independently (on a device with a single
/// Vulkan queue, such as lavapipe, they share it for the submission itself). Launches on one
/// view from several threads are serialized.
///
/// **Launches are synchronous**: [`parallel_for_each_on`] returns after the device finished the
/// work (so views written by a launch can be read right away). [`wait`](Self::wait) therefore
/// only has to wait for launches that other threads are running on the same view, and
/// [`flush`](Self::flush) has nothing buffered to submit; both exist so code written against
/// C++ AMP's `accelerator_view` keeps its shape.
///
/// ```no_run
/// use amp_runtime::Accelerator;
/// let acc = Accelerator::default()?;
/// let view = acc.create_view()?;
/// // parallel_for_each_on(&view, out.extent(), kernel(&a, &mut out))?;
/// view.wait()?;
/// # Ok::<(), amp_runtime::Error>(())
/// ```
///
/// [`parallel_for_each`]: crate::parallel_for_each
/// [`parallel_for_each_on`]: crate::parallel_for_each_on
#[derive(Clone)]
pub struct AcceleratorView {
    acc: Accelerator,
    /// `None` for the default view, whose submitter the device owns.
    own: Option<Arc<ViewShared>>,
}

/// The state of a view made by [`Accelerator::create_view`].
struct ViewShared {
    device: Arc<DeviceShared>,
    submitter: Mutex<Submitter>,
    id: u64,
}

impl Drop for ViewShared {
    fn drop(&mut self) {
        // SAFETY: every submission was waited for before its lock was released, and nothing
        // else can use the submitter once the last handle is gone.
        unsafe { lock(&self.submitter).destroy(&self.device.device) };
    }
}

/// Ids of created views; 0 is every accelerator's default view.
static NEXT_VIEW_ID: AtomicU64 = AtomicU64::new(1);

impl AcceleratorView {
    pub(crate) fn default_of(acc: &Accelerator) -> AcceleratorView {
        AcceleratorView {
            acc: acc.clone(),
            own: None,
        }
    }

    pub(crate) fn create(acc: &Accelerator) -> Result<AcceleratorView, Error> {
        let device = acc.shared.clone();
        let submitter = Submitter::new(&device.device, device.queue_family)?;
        Ok(AcceleratorView {
            acc: acc.clone(),
            own: Some(Arc::new(ViewShared {
                device,
                submitter: Mutex::new(submitter),
                id: NEXT_VIEW_ID.fetch_add(1, Ordering::Relaxed),
            })),
        })
    }

    /// The accelerator this view submits to.
    pub fn accelerator(&self) -> &Accelerator {
        &self.acc
    }

    /// Whether this is its accelerator's default view.
    pub fn is_default(&self) -> bool {
        self.own.is_none()
    }

    /// The number of command buffers this view has submitted (launches, and for the default
    /// view also host-device copies). Every one of them has finished once [`wait`](Self::wait)
    /// returns.
    pub fn submission_count(&self) -> u64 {
        lock(self.submitter()).submitted
    }

    /// Blocks until all work submitted to this view has finished, including launches other
    /// threads are running on it right now and launches whose own wait timed out (C++ AMP's
    /// `accelerator_view::wait`).
    ///
    /// Errors: [`Error::Timeout`] if that work is still running after this view's
    /// [`timeout`](Self::timeout).
    pub fn wait(&self) -> Result<(), Error> {
        // A submission holds the lock until its fence signals or its wait times out: taking
        // the lock waits for the one in flight. Timed-out ones are counted in `abandoned`.
        let (abandoned, timeout) = {
            let s = lock(self.submitter());
            (s.abandoned.clone(), s.timeout)
        };
        if abandoned.wait_idle_for(timeout) {
            Ok(())
        } else {
            Err(Error::Timeout {
                timeout_ms: timeout_millis(timeout),
            })
        }
    }

    /// How long a launch (or, on the default view, a transfer) on this view may run before
    /// its wait returns [`Error::Timeout`]: `AMP_LAUNCH_TIMEOUT_MS` milliseconds when the
    /// view was created (`0` for no limit; 60 s when unset), unless changed with
    /// [`set_timeout`](Self::set_timeout).
    pub fn timeout(&self) -> Duration {
        lock(self.submitter()).timeout
    }

    /// Sets [`timeout`](Self::timeout) for this view and its clones (`Duration::MAX`: no
    /// limit).
    ///
    /// A timeout does not stop the work (Vulkan cannot cancel it): the launch returns
    /// [`Error::Timeout`] while the device goes on, and host access to any buffer (reading a
    /// view or array, dropping it) waits until it finished, so the launch's results appear
    /// then. It turns a hang inside a launch into an error the program can report.
    ///
    /// ```no_run
    /// # let acc = amp_runtime::Accelerator::default()?;
    /// let view = acc.create_view()?;
    /// view.set_timeout(std::time::Duration::from_secs(5));
    /// # Ok::<(), amp_runtime::Error>(())
    /// ```
    pub fn set_timeout(&self, timeout: Duration) {
        lock(self.submitter()).timeout = timeout;
    }

    /// Submits work recorded but not yet submitted (C++ AMP's `accelerator_view::flush`).
    ///
    /// Launches are submitted as they are made, so there is never anything left to submit;
    /// returns `Ok(())`.
    pub fn flush(&self) -> Result<(), Error> {
        Ok(())
    }

    pub(crate) fn submitter(&self) -> &Mutex<Submitter> {
        match &self.own {
            Some(v) => &v.submitter,
            None => &self.acc.shared.submitter,
        }
    }

    fn id(&self) -> u64 {
        self.own.as_ref().map_or(0, |v| v.id)
    }
}

impl PartialEq for AcceleratorView {
    fn eq(&self, other: &Self) -> bool {
        self.acc == other.acc && self.id() == other.id()
    }
}

impl Eq for AcceleratorView {}

impl fmt::Debug for AcceleratorView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AcceleratorView")
            .field("accelerator", &self.acc.name())
            .field("id", &self.id())
            .finish()
    }
}

/// Where [`parallel_for_each_on`](crate::parallel_for_each_on) runs a launch: an
/// [`Accelerator`] (its default view) or an [`AcceleratorView`].
pub trait LaunchTarget {
    /// The view the launch is submitted to.
    fn accelerator_view(&self) -> AcceleratorView;
}

impl LaunchTarget for Accelerator {
    fn accelerator_view(&self) -> AcceleratorView {
        self.default_view()
    }
}

impl LaunchTarget for AcceleratorView {
    fn accelerator_view(&self) -> AcceleratorView {
        self.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_timeout, DEFAULT_TIMEOUT};
    use std::time::Duration;

    #[test]
    fn the_timeout_variable_is_milliseconds_zero_is_no_limit_and_junk_is_the_default() {
        assert_eq!(parse_timeout(None), DEFAULT_TIMEOUT);
        assert_eq!(parse_timeout(Some("250")), Duration::from_millis(250));
        assert_eq!(parse_timeout(Some(" 7 ")), Duration::from_millis(7));
        assert_eq!(parse_timeout(Some("0")), Duration::MAX);
        assert_eq!(parse_timeout(Some("soon")), DEFAULT_TIMEOUT);
        assert_eq!(parse_timeout(Some("-5")), DEFAULT_TIMEOUT);
    }
}
