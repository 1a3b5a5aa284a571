//! Queues: [`AcceleratorView`] (C++ AMP's `accelerator_view`) and the [`LaunchTarget`] trait.
//!
//! Each view owns its [`Queue`] of batches (command buffers, fences and descriptor pools);
//! the device's Vulkan queue is shared by all of them and guarded by a mutex around
//! `vkQueueSubmit` only, so views on one accelerator record, submit and wait independently.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::accelerator::{Accelerator, Backend};
use super::batch::Queue;
use super::native::NativeView;
use super::profile::KernelTime;
use super::Device;
use crate::Error;

impl Accelerator {
    /// The view (queue) [`parallel_for_each`](crate::parallel_for_each) and every host-device
    /// copy use on this accelerator (C++ AMP's `accelerator::default_view`).
    pub fn default_view(&self) -> AcceleratorView {
        AcceleratorView::default_of(self)
    }

    /// A new view (queue) on this accelerator, with its own command buffer, fence and
    /// descriptor pool (C++ AMP's `accelerator::create_view`). See [`AcceleratorView`].
    ///
    /// Errors: [`Error::OutOfDeviceMemory`] or [`Error::Vulkan`] if the objects cannot be
    /// created.
    pub fn create_view(&self) -> Result<AcceleratorView, Error> {
        AcceleratorView::create(self)
    }
}

/// A queue on an accelerator (C++ AMP's `accelerator_view`): launches submitted to one view
/// run in submission order.
///
/// Get one with [`Accelerator::default_view`] (the view [`parallel_for_each`] and all
/// host-device copies use) or [`Accelerator::create_view`] (a new, independent queue), and
/// launch on it with [`parallel_for_each_on`]. Cheap to clone: clones are the same view.
///
/// Every view owns its command buffers, fences and descriptor pools, so threads launching on
/// different views of one accelerator record and wait independently (on a device with a single
/// Vulkan queue, such as lavapipe, they share it for the submission itself). Launches on one
/// view from several threads are serialized.
///
/// **Launches are asynchronous**: [`parallel_for_each_on`] records the launch into the view's
/// open batch (one command buffer) and returns; the batch is submitted by [`flush`](Self::flush),
/// [`wait`](Self::wait), host access to a buffer it uses, or when it is full or older than
/// 2 ms at the next launch. Reading an array or view waits for the work that uses it.
/// Launches that use host memory in place (imported slices) wait before returning. See
/// `docs/data-model.md`, "Queues and asynchrony".
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
    /// `None` for the default view, whose queue the device owns.
    own: Option<Arc<ViewShared>>,
    /// Distinguishes the views created on the native CPU accelerator (0: its default view).
    native_id: u64,
    /// The launch count and timing of a view created on the native CPU accelerator.
    native_view: Option<Arc<NativeView>>,
}

/// The state of a view made by [`Accelerator::create_view`].
struct ViewShared {
    device: Arc<Device>,
    queue: Arc<Queue>,
    id: u64,
}

impl Drop for ViewShared {
    fn drop(&mut self) {
        // SAFETY: the last handle is gone; `destroy` submits and waits for the view's work.
        unsafe { self.queue.destroy(&self.device) };
    }
}

impl AcceleratorView {
    fn default_of(acc: &Accelerator) -> AcceleratorView {
        AcceleratorView {
            acc: acc.clone(),
            own: None,
            native_id: 0,
            native_view: None,
        }
    }

    fn create(acc: &Accelerator) -> Result<AcceleratorView, Error> {
        let Backend::Vulkan(device) = acc.backend() else {
            // Native launches finish before they return: a view is only a name.
            static NEXT_NATIVE_VIEW: AtomicU64 = AtomicU64::new(1);
            return Ok(AcceleratorView {
                acc: acc.clone(),
                own: None,
                native_id: NEXT_NATIVE_VIEW.fetch_add(1, Ordering::Relaxed),
                native_view: Some(Arc::default()),
            });
        };
        let device = device.clone();
        let queue = Queue::new(device.queue_family, device.timestamps());
        let id = device.next_view_id.fetch_add(1, Ordering::Relaxed);
        Ok(AcceleratorView {
            acc: acc.clone(),
            own: Some(Arc::new(ViewShared { device, queue, id })),
            native_id: 0,
            native_view: None,
        })
    }

    /// The accelerator this view submits to.
    pub fn accelerator(&self) -> &Accelerator {
        &self.acc
    }

    /// Whether this is its accelerator's default view.
    pub fn is_default(&self) -> bool {
        self.own.is_none() && self.native_id == 0
    }

    /// The number of command buffers this view has submitted (batches of launches, and for
    /// the default view also host-device copies); on the native CPU accelerator, the number
    /// of launches made on it. Every one of them has finished once
    /// [`wait`](Self::wait) returns.
    pub fn submission_count(&self) -> u64 {
        match (self.queue(), self.native_view()) {
            (Some((_, q)), _) => q.submitted(),
            (None, Some(n)) => n.launches.load(Ordering::Relaxed),
            (None, None) => 0,
        }
    }

    /// On the native CPU accelerator, this view's launch count (each launch is run at once,
    /// so each is its own "submission") and timing.
    pub(crate) fn native_view(&self) -> Option<&NativeView> {
        match self.acc.backend() {
            Backend::Native(n) => Some(self.native_view.as_deref().unwrap_or(n.default_view())),
            Backend::Vulkan(_) => None,
        }
    }

    /// Turns the timing of this view's launches on or off (for this view and its clones;
    /// off when a view is made). While it is on, every launch on the view
    /// ([`parallel_for_each`](crate::parallel_for_each),
    /// [`parallel_for_each_on`](crate::parallel_for_each_on), and on the default view
    /// [`RawKernel::dispatch`](crate::RawKernel::dispatch)) is timed, and
    /// [`take_kernel_times`](Self::take_kernel_times) returns the times (CUDA's events,
    /// SYCL's `enable_profiling`).
    ///
    /// On a Vulkan accelerator each timed launch writes two device timestamps into its
    /// command buffer (`vkCmdWriteTimestamp`, into query pools the view reuses); off, nothing
    /// is recorded and launches cost what they did. On the native CPU accelerator, the host's
    /// wall clock times each launch.
    ///
    /// Errors: [`Error::TimestampsUnsupported`] when turning it on for a Vulkan queue that
    /// cannot write timestamps (its `timestampValidBits` is 0); timing then stays off.
    ///
    /// ```no_run
    /// # let acc = amp_runtime::Accelerator::default()?;
    /// let view = acc.create_view()?;
    /// view.set_profiling(true)?;
    /// // parallel_for_each_on(&view, out.extent(), kernel(&a, &mut out))?;
    /// for t in view.take_kernel_times()? {
    ///     println!("{}: {:.3} ms", t.kernel, t.seconds * 1e3);
    /// }
    /// # Ok::<(), amp_runtime::Error>(())
    /// ```
    pub fn set_profiling(&self, on: bool) -> Result<(), Error> {
        match (self.queue(), self.native_view()) {
            (Some((device, q)), _) => q.set_profiling(on, device.name()),
            (None, Some(n)) => {
                n.profiler.set(on);
                Ok(())
            }
            (None, None) => Ok(()),
        }
    }

    /// Whether this view times its launches (see [`set_profiling`](Self::set_profiling)).
    pub fn profiling(&self) -> bool {
        match (self.queue(), self.native_view()) {
            (Some((_, q)), _) => q.profiling(),
            (None, Some(n)) => n.profiler.on(),
            (None, None) => false,
        }
    }

    /// Waits for this view's work (as [`wait`](Self::wait) does) and returns the times of the
    /// launches timed since the last call, one per launch, in the order they were made
    /// (see [`set_profiling`](Self::set_profiling) and [`KernelTime`]). Empty when timing is
    /// off.
    ///
    /// Errors: those of [`wait`](Self::wait) (a timeout, or a device error of a launch,
    /// which then has no time); the times stay for the next call.
    pub fn take_kernel_times(&self) -> Result<Vec<KernelTime>, Error> {
        match (self.queue(), self.native_view()) {
            (Some((_, q)), _) => {
                self.wait()?;
                Ok(q.take_times())
            }
            (None, Some(n)) => Ok(n.profiler.take()),
            (None, None) => Ok(Vec::new()),
        }
    }

    /// Submits the work recorded on this view and blocks until all of it has finished (C++
    /// AMP's `accelerator_view::wait`), including launches other threads made on it.
    ///
    /// Errors: [`Error::Timeout`] if a batch is still running after this view's
    /// [`timeout`](Self::timeout) (it keeps running; a later `wait` waits for it again);
    /// otherwise the first device error of this view's finished launches not reported yet
    /// ([`Error::IndexOutOfBounds`] from a checked kernel, [`Error::DeviceLost`]), each
    /// reported once (by whichever of this `wait`, the launch itself or a host access of its
    /// buffers comes first).
    pub fn wait(&self) -> Result<(), Error> {
        let _span = tracing::info_span!("wait", device = self.acc.device_path()).entered();
        let Some((device, queue)) = self.queue() else {
            return Ok(());
        };
        queue.wait_all(device, false)?;
        match queue.take_error() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// How long one launch of this view may run before a wait for it (by
    /// [`wait`](Self::wait), a launch that waits, or host access to a buffer it uses) returns
    /// [`Error::Timeout`]: `AMP_LAUNCH_TIMEOUT_MS` milliseconds when the view was created (`0`
    /// for no limit; 60 s when unset), unless changed with [`set_timeout`](Self::set_timeout).
    ///
    /// The limit scales with the work: launches are submitted in batches, and a wait allows
    /// each batch the timeout times its number of launches (a batch of 200 launches of 1 s
    /// each does not trip the default). It is a watchdog against a kernel that never ends,
    /// not a deadline.
    pub fn timeout(&self) -> Duration {
        self.queue()
            .map_or_else(super::submit::default_timeout, |(_, q)| q.timeout())
    }

    /// Sets [`timeout`](Self::timeout) for this view and its clones (`Duration::MAX`: no
    /// limit).
    ///
    /// A timeout does not stop the work (Vulkan cannot cancel it): the wait returns
    /// [`Error::Timeout`] while the device goes on, and the next wait (or host access to
    /// its buffers) waits for it again; dropping a buffer or view is always safe. It turns a
    /// hang into an error the program can report.
    ///
    /// ```no_run
    /// # let acc = amp_runtime::Accelerator::default()?;
    /// let view = acc.create_view()?;
    /// view.set_timeout(std::time::Duration::from_secs(5));
    /// # Ok::<(), amp_runtime::Error>(())
    /// ```
    pub fn set_timeout(&self, timeout: Duration) {
        if let Some((_, q)) = self.queue() {
            q.set_timeout(timeout);
        }
    }

    /// Submits the work recorded on this view and not yet submitted, without waiting for it
    /// (C++ AMP's `accelerator_view::flush`).
    ///
    /// Errors: [`Error::Vulkan`] or [`Error::DeviceLost`] if the submission fails (its
    /// launches then report the error too).
    pub fn flush(&self) -> Result<(), Error> {
        match self.queue() {
            Some((device, queue)) => queue.flush(device),
            None => Ok(()),
        }
    }

    /// The Vulkan device and the queue of batches launches on this view go to; `None` on the
    /// native CPU accelerator, whose launches finish before they return.
    pub(crate) fn queue(&self) -> Option<(&Arc<Device>, &Arc<Queue>)> {
        match (&self.own, self.acc.backend()) {
            (Some(v), _) => Some((&v.device, &v.queue)),
            (None, Backend::Vulkan(d)) => Some((d, d.default_queue())),
            (None, Backend::Native(_)) => None,
        }
    }

    fn id(&self) -> u64 {
        self.own.as_ref().map_or(self.native_id, |v| v.id)
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
