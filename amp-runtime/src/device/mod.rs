//! The device layer: the process-wide Vulkan instance, the logical devices ([`Device`], one
//! per physical device, shared by [`Accelerator`] handles), their queues
//! ([`AcceleratorView`], [`Submitter`]), limits and features, live-object counts, and the
//! per-device state of the layers above ([`DeviceState`]).
//!
//! Uses only the bottom layer (`error`, `sync`, ...); `memory`, `data` and `exec` build on it.

mod accelerator;
mod atomic_float;
mod counts;
mod create;
mod instance;
mod memory_info;
mod properties;
mod queue;
mod recorded;
mod state;
mod submit;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use ash::vk;
use gpu_allocator::vulkan::Allocator;

pub use accelerator::{live_object_counts, Accelerator};
pub(crate) use atomic_float::AtomicFloat32;
pub use counts::ObjectCounts;
pub(crate) use counts::LIVE_PIPELINES;
use instance::InstanceShared;
pub use instance::{validation_enabled, validation_message_count};
pub(crate) use memory_info::MemoryInfo;
pub use properties::{DeviceType, Limits};
pub use queue::{AcceleratorView, LaunchTarget};
pub(crate) use recorded::LaunchKey;
pub(crate) use state::DeviceState;
pub(crate) use submit::Submitter;

use crate::sync::{lock, Busy};

/// One logical device, shared by all [`Accelerator`] handles to it. Lives until the process
/// ends (the registry in `accelerator.rs` keeps it).
pub(crate) struct Device {
    instance: Arc<InstanceShared>,
    device: ash::Device,
    /// The one queue every view submits to; `vkQueueSubmit` needs it externally synchronized.
    queue: Mutex<vk::Queue>,
    queue_family: u32,
    name: String,
    device_type: DeviceType,
    description: String,
    device_path: String,
    dedicated_memory: u64,
    cpu_shared_memory: bool,
    limits: Limits,
    float64: bool,
    /// Whether kernels may ask to keep NaN, infinities and signed zeros (`[f32, f64]`).
    preserve_float_specials: [bool; 2],
    /// The `f32` atomics kernels may use (`VK_EXT_shader_atomic_float`).
    atomic_float32: AtomicFloat32,
    allocator: Mutex<Option<Allocator>>,
    /// Memory types and host-memory import.
    memory: MemoryInfo,
    /// The default view's submitter (also used for every host-device copy).
    submitter: Mutex<Submitter>,
    /// Counts this device's submissions whose wait timed out and that still run (see
    /// [`wait_for_abandoned_work`](Self::wait_for_abandoned_work)).
    abandoned: Arc<Busy>,
    /// Buffers of this device destroyed so far (see [`LaunchKey`]).
    buffers_destroyed: AtomicU64,
    /// The id of the next pipeline created on this device (see [`LaunchKey`]).
    next_pipeline_id: AtomicU64,
    /// The id of the next view created with `create_view`; 0 is the default view.
    next_view_id: AtomicU64,
    /// The upper layers' per-device state.
    states: state::States,
}

impl Drop for Device {
    fn drop(&mut self) {
        // Threads finishing timed-out submissions use the device until they are done.
        self.wait_for_abandoned_work();
        // SAFETY: no buffers or raw kernels remain (they hold Arcs to this), and every
        // submission was waited for.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.states.destroy_all(self);
            lock(&self.submitter).destroy(&self.device);
            // The allocator frees its memory blocks through the device: drop it first.
            drop(lock(&self.allocator).take());
            self.device.destroy_device(None);
        }
    }
}

impl Device {
    /// The Vulkan device functions and handle.
    pub(crate) fn vk(&self) -> &ash::Device {
        &self.device
    }

    /// The device's name, as the driver reports it.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The compute limits.
    pub(crate) fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Whether kernels using `f64` can run (`shaderFloat64`).
    pub(crate) fn supports_float64(&self) -> bool {
        self.float64
    }

    /// Whether kernels may ask to keep NaN, infinities and signed zeros (`[f32, f64]`).
    pub(crate) fn preserve_float_specials(&self) -> [bool; 2] {
        self.preserve_float_specials
    }

    /// The `f32` atomics kernels may use.
    pub(crate) fn atomic_float32(&self) -> &AtomicFloat32 {
        &self.atomic_float32
    }

    /// Memory types and host-memory import.
    pub(crate) fn memory(&self) -> &MemoryInfo {
        &self.memory
    }

    /// The memory allocator; `None` once the device is shutting down.
    pub(crate) fn allocator(&self) -> MutexGuard<'_, Option<Allocator>> {
        lock(&self.allocator)
    }

    /// The functions of `VK_EXT_external_memory_host`, loaded on first use (only call this
    /// when [`MemoryInfo::host_import_alignment`] says the extension is enabled).
    pub(crate) fn host_import_fns(&self) -> &ash::ext::external_memory_host::Device {
        self.memory.host_import_fns.get_or_init(|| {
            ash::ext::external_memory_host::Device::new(&self.instance.instance, &self.device)
        })
    }

    /// The default view's submitter, which every host-device copy also uses.
    pub(crate) fn default_submitter(&self) -> &Mutex<Submitter> {
        &self.submitter
    }

    /// Blocks until no abandoned submission of this device is running.
    ///
    /// Vulkan cannot cancel submitted work, so a submission whose wait timed out keeps its
    /// command buffer, fence and descriptor pool (its old [`Submitter`], handed to a thread
    /// that waits for it and then destroys them) and keeps the buffers it uses: every host
    /// access to buffer memory and every buffer's drop waits here first. Coarse (all buffers
    /// of the device, not just the ones the work uses) but simple, and only ever slow after a
    /// timeout.
    pub(crate) fn wait_for_abandoned_work(&self) {
        self.abandoned.wait_idle();
    }

    /// Notes that a buffer of this device is about to be destroyed (called before its handle
    /// is freed): recorded launches that bind it are stale from now on.
    pub(crate) fn note_buffer_destroyed(&self) {
        self.buffers_destroyed.fetch_add(1, Ordering::SeqCst);
    }

    /// Buffers of this device destroyed so far: part of every [`LaunchKey`], so a recorded
    /// launch is never submitted again once a buffer has been destroyed (its handle, bound in
    /// the recording, may since name a new buffer).
    pub(crate) fn buffers_destroyed(&self) -> u64 {
        self.buffers_destroyed.load(Ordering::SeqCst)
    }

    /// A new pipeline id: a recorded launch names its pipeline by id, since a destroyed
    /// pipeline's handle may come back for a new one.
    pub(crate) fn new_pipeline_id(&self) -> u64 {
        self.next_pipeline_id.fetch_add(1, Ordering::Relaxed)
    }
}
