//! Queues: [`AcceleratorView`] (C++ AMP's `accelerator_view`) and the [`LaunchTarget`] trait.
//!
//! Each view owns its command pool, command buffer, fence and descriptor pool (a
//! [`Submitter`]); the device's Vulkan queue is shared by all of them and guarded by a mutex
//! around `vkQueueSubmit` only, so views on one accelerator record, submit and wait
//! independently.

use std::fmt;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::accelerator::Accelerator;
use super::submit::{timeout_millis, Submitter};
use super::Device;
use crate::sync::lock;
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
    device: Arc<Device>,
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

impl AcceleratorView {
    fn default_of(acc: &Accelerator) -> AcceleratorView {
        AcceleratorView {
            acc: acc.clone(),
            own: None,
        }
    }

    fn create(acc: &Accelerator) -> Result<AcceleratorView, Error> {
        let device = acc.device().clone();
        let submitter = Submitter::new(&device.device, device.queue_family)?;
        let id = device.next_view_id.fetch_add(1, Ordering::Relaxed);
        Ok(AcceleratorView {
            acc: acc.clone(),
            own: Some(Arc::new(ViewShared {
                device,
                submitter: Mutex::new(submitter),
                id,
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
            None => self.acc.device().default_submitter(),
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
