//! The device layer: the process-wide Vulkan instance, the logical devices ([`Device`], one
//! per physical device, shared by [`Accelerator`] handles), their queues
//! ([`AcceleratorView`] and its [`Queue`] of batches), limits and features, live-object counts, and the
//! per-device state of the layers above ([`DeviceState`]).
//!
//! Uses only the bottom layer (`error`, `sync`, ...); `memory`, `data` and `exec` build on it.

mod accelerator;
mod atomic_float;
mod autotune;
mod batch;
mod counts;
mod create;
mod discrete;
mod exit;
mod hazards;
mod instance;
mod memory_info;
mod narrow_storage;
mod native;
mod pipeline_cache;
mod profile;
mod properties;
mod queue;
mod shape;
mod state;
mod subgroup;
mod submit;
mod team;

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};

use ash::vk;
use gpu_allocator::vulkan::Allocator;

pub(crate) use accelerator::Backend;
pub use accelerator::{live_object_counts, Accelerator};
pub(crate) use atomic_float::AtomicFloat32;
pub(crate) use autotune::{Autotuner, TuneRequest};
pub use autotune::{ShapeTime, TunedShape};
pub(crate) use batch::{sync_launches, Check, Pending, Queue, Reported, Work};
pub use counts::ObjectCounts;
pub(crate) use counts::LIVE_PIPELINES;
pub(crate) use discrete::{NON_COHERENT_ATOM, POISON};
pub(crate) use hazards::Touches;
use instance::InstanceShared;
pub use instance::{validation_enabled, validation_message_count};
pub(crate) use memory_info::MemoryInfo;
pub(crate) use native::{NativeDevice, NATIVE_PATH};
pub use profile::KernelTime;
pub(crate) use profile::Timed;
use profile::Timestamps;
pub use properties::{DeviceType, Limits};
pub use queue::{AcceleratorView, LaunchTarget};
pub use shape::LaunchShape;
pub(crate) use state::DeviceState;
pub(crate) use submit::Recording;
pub(crate) use team::Team;

use crate::sync::lock;
use crate::Error;

/// One logical device, shared by all [`Accelerator`] handles to it. Lives until the process
/// ends (the registry in `accelerator.rs` keeps it).
/// What a device lets kernels ask of its float arithmetic (`VK_KHR_shader_float_controls`),
/// per width `[f32, f64]`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FloatControls {
    /// NaN, infinities and signed zeros kept (`SignedZeroInfNanPreserve`).
    pub(crate) preserve_specials: [bool; 2],
    /// Denormals kept, never flushed to zero (`DenormPreserve`), set on its own per width.
    pub(crate) preserve_denormals: [bool; 2],
}

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
    limits: Limits,
    float64: bool,
    /// The physical device (for format queries).
    physical: vk::PhysicalDevice,
    /// `shaderStorageImageWriteWithoutFormat`, which write-only texture views need.
    storage_image_write_without_format: bool,
    /// The float controls kernels get here.
    float_controls: FloatControls,
    /// The `f32` atomics kernels may use (`VK_EXT_shader_atomic_float`).
    atomic_float32: AtomicFloat32,
    /// 8- and 16-bit storage, for kernels with views of `i8` .. `u16`.
    narrow_storage: narrow_storage::NarrowStorage,
    /// Its subgroups, as compute kernels see them.
    subgroups: subgroup::Subgroups,
    /// `VK_EXT_pipeline_robustness` is enabled: a pipeline may turn robust buffer access off.
    pipeline_robustness: bool,
    /// Which pipelines turn it off (`AMP_PIPELINE_ROBUSTNESS`).
    robustness: crate::Robustness,
    /// The fewest bytes `amp::copy` copies between arrays here with a kernel; `None`: none
    /// (`AMP_DEVICE_COPY`, resolved for this device).
    kernel_copy_min_bytes: Option<u64>,
    /// How simple kernels are dispatched here.
    shape: LaunchShape,
    /// The launch shapes chosen per kernel and size here.
    tuner: Arc<Autotuner>,
    allocator: Mutex<Option<Allocator>>,
    /// Memory types and host-memory import.
    memory: MemoryInfo,
    /// The default view's queue (also used for every host-device copy).
    default_queue: Arc<Queue>,
    /// What the queue family's timestamps mean; `None` if it cannot write them.
    timestamps: Option<Timestamps>,
    /// The id of the next view created with `create_view`; 0 is the default view.
    next_view_id: AtomicU64,
    /// The upper layers' per-device state.
    states: state::States,
    /// The `VkPipelineCache` every pipeline is created through, saved to disk.
    driver_cache: pipeline_cache::DriverCache,
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: no buffers or raw kernels remain (they hold Arcs to this, and so does the
        // work of every batch in flight); the queue waits for its batches.
        unsafe {
            self.default_queue.destroy(self);
            let _ = self.device.device_wait_idle();
            self.states.destroy_all(self);
            self.driver_cache.destroy(&self.device);
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

    /// Whether a pipeline of a kernel that does (`checked`) or does not check its accesses
    /// runs without robust buffer access here: where `VK_EXT_pipeline_robustness` lets a
    /// pipeline turn it off while the device keeps it for the others, as
    /// `AMP_PIPELINE_ROBUSTNESS` says.
    pub(crate) fn robust_access_off(&self, checked: bool) -> bool {
        self.pipeline_robustness
            && match self.robustness {
                crate::Robustness::Default | crate::Robustness::CheckedOff => checked,
                crate::Robustness::On => false,
                crate::Robustness::Off => true,
            }
    }

    /// The pipeline cache to create pipelines through; call
    /// [`pipeline_created`](Self::pipeline_created) after each.
    pub(crate) fn pipeline_cache(&self) -> vk::PipelineCache {
        self.driver_cache.handle
    }

    /// Notes a pipeline created through [`pipeline_cache`](Self::pipeline_cache) (the cache
    /// is saved to disk now and then).
    pub(crate) fn pipeline_created(&self) {
        self.driver_cache.created(&self.device);
    }

    /// The device's name, as the driver reports it.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The device's path ([`Accelerator::device_path`]).
    pub(crate) fn device_path(&self) -> &str {
        &self.device_path
    }

    /// The compute limits.
    pub(crate) fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Whether kernels' memory fences run as atomic additions here (lavapipe; see
    /// [`amp_abi::spec_id::FENCES_AS_ATOMICS`]).
    pub(crate) fn fences_as_atomics(&self) -> bool {
        properties::fences_as_atomics(&self.name)
    }

    /// Whether `amp::copy` copies `bytes` between arrays here with a kernel.
    pub(crate) fn copies_by_kernel(&self, bytes: u64) -> bool {
        self.kernel_copy_min_bytes.is_some_and(|min| bytes >= min)
    }

    /// How simple kernels are dispatched here.
    pub(crate) fn launch_shape(&self) -> LaunchShape {
        self.shape
    }

    /// The autotuner of simple kernels' launch shapes here.
    pub(crate) fn tuner(&self) -> &Arc<Autotuner> {
        &self.tuner
    }

    /// Whether kernels using `f64` can run (`shaderFloat64`).
    pub(crate) fn supports_float64(&self) -> bool {
        self.float64
    }

    /// The features of `format` with optimal tiling.
    pub(crate) fn format_features(&self, format: vk::Format) -> vk::FormatFeatureFlags {
        // SAFETY: a plain query on a live instance.
        unsafe {
            self.instance
                .instance
                .get_physical_device_format_properties(self.physical, format)
        }
        .optimal_tiling_features
    }

    /// Whether kernels may write storage images without a declared format.
    pub(crate) fn storage_image_write_without_format(&self) -> bool {
        self.storage_image_write_without_format
    }

    /// The float controls kernels get here.
    pub(crate) fn float_controls(&self) -> FloatControls {
        self.float_controls
    }

    /// The `f32` atomics kernels may use.
    pub(crate) fn atomic_float32(&self) -> &AtomicFloat32 {
        &self.atomic_float32
    }

    /// The module of `info` this device runs: with 8- and 16-bit storage where it has what the
    /// kernel needs, else with small integers packed into words.
    pub(crate) fn kernel_module(&self, info: &crate::kernel::KernelInfo) -> &'static [u32] {
        self.narrow_storage
            .module(info, crate::config::packed_small_ints())
    }

    /// The first subgroup feature a module needs that the device lacks, by its name.
    pub(crate) fn missing_subgroup_feature(&self, spirv: &[u32]) -> Option<&'static str> {
        self.subgroups.first_missing(spirv)
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

    /// What the queue family's timestamps mean, for new views' queues.
    pub(crate) fn timestamps(&self) -> Option<Timestamps> {
        self.timestamps
    }

    /// The default view's queue, which every host-device copy also uses.
    pub(crate) fn default_queue(&self) -> &Arc<Queue> {
        &self.default_queue
    }

    /// Records a transfer with `record` on the default view, after the work recorded there
    /// before it that it depends on (`touches`), and waits for it (at most the view's
    /// timeout). `touched` are the buffers it uses (their host access waits for it should this
    /// wait time out) and `keep` what must live until it finished.
    pub(crate) fn submit(
        &self,
        touched: &[&Arc<Pending>],
        keep: Option<Arc<dyn std::any::Any + Send + Sync>>,
        touches: Touches<'_>,
        record: impl FnOnce(&mut Recording<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let serial = self.record_transfer(&self.default_queue, touched, keep, touches, record)?;
        self.default_queue.wait_for(self, serial, false)
    }

    /// As [`submit`](Self::submit) on `queue` (a view's), without waiting: the device half of
    /// an upload whose host half (filling a staging buffer) is done. Returns the serial of its
    /// batch. The transfer runs before the work recorded on `queue` after it; host access to
    /// the `touched` buffers, and launches on other views that use them, wait for it as for a
    /// launch. With `AMP_SYNC_LAUNCHES=1` it is waited for at once.
    pub(crate) fn record_transfer(
        &self,
        queue: &Arc<Queue>,
        touched: &[&Arc<Pending>],
        keep: Option<Arc<dyn std::any::Any + Send + Sync>>,
        touches: Touches<'_>,
        record: impl FnOnce(&mut Recording<'_>) -> Result<(), Error>,
    ) -> Result<u64, Error> {
        let ((), ticket) = queue.record(self, 0, None, touches, record, |work: &mut Work| {
            work.keep.extend(keep);
            work.sinks.extend(touched.iter().map(|p| Arc::clone(p)));
        })?;
        for p in touched {
            p.add(&ticket);
        }
        if sync_launches() {
            queue.wait_for(self, ticket.serial(), false)?;
        }
        Ok(ticket.serial())
    }
}
