//! The command-submission path every transfer and launch goes through: a [`Submitter`] (one
//! per accelerator view: command pool and buffer, fence, descriptor pool), recording between
//! two global barriers, submission to the device's one queue, waiting with a timeout, and
//! abandoning work whose wait timed out.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use ash::vk;

use super::counts::{LIVE_DESCRIPTOR_POOLS, LIVE_SUBMITTERS};
use super::recorded::{LaunchKey, RecordedLaunch};
use super::Device;
use crate::sync::{lock, Busy};
use crate::Error;

/// Command recording state of one view: a command pool with one command buffer, its fence and
/// a descriptor pool for the launch's one descriptor set. Guarded by a mutex; a submission holds
/// it from recording until its fence signals.
pub(crate) struct Submitter {
    pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    descriptor_pool: vk::DescriptorPool,
    descriptor_capacity: u32,
    /// Command buffers submitted so far.
    pub(super) submitted: u64,
    /// How long a submission may take before its wait gives up with [`Error::Timeout`].
    pub(super) timeout: Duration,
    /// Counts this view's abandoned submissions still running (see
    /// [`Device::wait_for_abandoned_work`]).
    pub(super) abandoned: Arc<Busy>,
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
pub(super) fn timeout_millis(timeout: Duration) -> u64 {
    u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX)
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

    /// The command buffer being recorded (valid inside a `submit` closure).
    pub(crate) fn cmd(&self) -> vk::CommandBuffer {
        self.cmd
    }

    /// The descriptor pool for the launch's one descriptor set (see
    /// [`Device::reset_descriptor_pool`]).
    pub(crate) fn descriptor_pool(&self) -> vk::DescriptorPool {
        self.descriptor_pool
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

impl Device {
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
    /// continues with fresh ones. Until that thread is done, the device's and the view's
    /// counters of abandoned work are busy, so host access to buffers and [`AcceleratorView::wait`]
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
        let guards = (self.abandoned.begin(), old.abandoned.begin());
        let finish = move || {
            // SAFETY: the fence belongs to the device, which outlives this (`Device::drop`
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
