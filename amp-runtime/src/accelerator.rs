//! Accelerators: Vulkan devices, one logical device per physical device per process.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};

use crate::instance::{instance, InstanceShared};
use crate::pipeline::PipelineCache;
use crate::queue::AcceleratorView;
pub(crate) use crate::queue::Submitter;
use crate::Error;

/// Locks a mutex, ignoring poisoning (the state it guards stays consistent across panics).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The kind of a device, in the order [`Accelerator::default`] prefers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceType {
    /// A discrete GPU.
    DiscreteGpu,
    /// A GPU integrated with the CPU.
    IntegratedGpu,
    /// A virtual GPU (in a virtual machine).
    VirtualGpu,
    /// A software implementation on the CPU, such as Mesa's lavapipe.
    Cpu,
    /// Anything else.
    Other,
}

impl DeviceType {
    fn from_vk(t: vk::PhysicalDeviceType) -> Self {
        match t {
            vk::PhysicalDeviceType::DISCRETE_GPU => DeviceType::DiscreteGpu,
            vk::PhysicalDeviceType::INTEGRATED_GPU => DeviceType::IntegratedGpu,
            vk::PhysicalDeviceType::VIRTUAL_GPU => DeviceType::VirtualGpu,
            vk::PhysicalDeviceType::CPU => DeviceType::Cpu,
            _ => DeviceType::Other,
        }
    }

    fn preference(self) -> u32 {
        match self {
            DeviceType::DiscreteGpu => 0,
            DeviceType::IntegratedGpu => 1,
            DeviceType::VirtualGpu => 2,
            DeviceType::Cpu => 3,
            DeviceType::Other => 4,
        }
    }
}

/// The compute limits of an accelerator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Most workgroups per dispatch, per dimension (`maxComputeWorkGroupCount`).
    pub max_workgroup_count: [u32; 3],
    /// Most threads per workgroup, per dimension (`maxComputeWorkGroupSize`).
    pub max_workgroup_size: [u32; 3],
    /// Most threads in one workgroup (`maxComputeWorkGroupInvocations`).
    pub max_threads_per_workgroup: u32,
    /// Most bytes of workgroup-shared (`tile_static`) memory (`maxComputeSharedMemorySize`).
    pub max_shared_memory_bytes: u32,
    /// Most bytes of push constants (`maxPushConstantsSize`).
    pub max_push_constants_size: u32,
    /// Largest storage buffer a kernel can bind, in bytes (`maxStorageBufferRange`).
    pub max_storage_buffer_range: u32,
    /// Largest single memory allocation, in bytes (`maxMemoryAllocationSize`).
    pub max_memory_allocation_size: u64,
}

impl Limits {
    /// Most threads in one tile (C++ AMP's tile size limit): the same as
    /// [`max_threads_per_workgroup`](Self::max_threads_per_workgroup).
    pub fn max_tile_threads(&self) -> u32 {
        self.max_threads_per_workgroup
    }

    /// Most bytes of `tile_static` memory one tile can use: the same as
    /// [`max_shared_memory_bytes`](Self::max_shared_memory_bytes).
    pub fn max_tile_static_bytes(&self) -> u32 {
        self.max_shared_memory_bytes
    }
}

/// One logical device, shared by all [`Accelerator`] handles to it.
pub(crate) struct DeviceShared {
    pub(crate) instance: Arc<InstanceShared>,
    pub(crate) device: ash::Device,
    /// The one queue every view submits to; `vkQueueSubmit` needs it externally synchronized.
    pub(crate) queue: Mutex<vk::Queue>,
    pub(crate) queue_family: u32,
    pub(crate) name: String,
    pub(crate) device_type: DeviceType,
    pub(crate) description: String,
    pub(crate) device_path: String,
    pub(crate) dedicated_memory: u64,
    pub(crate) cpu_shared_memory: bool,
    pub(crate) limits: Limits,
    pub(crate) float64: bool,
    /// Whether kernels may ask to keep NaN, infinities and signed zeros (`[f32, f64]`).
    pub(crate) preserve_float_specials: [bool; 2],
    /// The `f32` atomics kernels may use (`VK_EXT_shader_atomic_float`).
    pub(crate) atomic_float32: crate::atomic_float::AtomicFloat32,
    pub(crate) allocator: Mutex<Option<Allocator>>,
    /// Memory types and host-memory import (see `memory.rs`).
    pub(crate) memory: crate::memory::MemoryInfo,
    /// The default view's submitter (also used for every host-device copy).
    pub(crate) submitter: Mutex<Submitter>,
    pub(crate) pipelines: Mutex<PipelineCache>,
    /// Out-of-bounds reports for checked launches, reused (see `bounds.rs`).
    pub(crate) oob_reports: crate::bounds::ReportPool,
}

impl Drop for DeviceShared {
    fn drop(&mut self) {
        // Threads finishing timed-out submissions use the device until they are done.
        crate::queue::wait_for_abandoned_work();
        // SAFETY: no buffers or raw kernels remain (they hold Arcs to this), and every
        // submission was waited for.
        unsafe {
            let _ = self.device.device_wait_idle();
            for p in lock(&self.pipelines).drain() {
                p.destroy(&self.device);
            }
            lock(&self.submitter).destroy(&self.device);
            self.oob_reports.destroy(&self.device);
            // The allocator frees its memory blocks through the device: drop it first.
            drop(lock(&self.allocator).take());
            self.device.destroy_device(None);
        }
    }
}

/// A handle to a Vulkan device that runs kernels (C++ AMP's `accelerator`).
///
/// Cheap to clone; all handles to one physical device share one logical device, its memory
/// allocator and its pipeline cache. The device lives until the process ends. Launches go to
/// one of its queues, [`AcceleratorView`]s: the [`default_view`](Self::default_view) unless
/// another is chosen with [`parallel_for_each_on`](crate::parallel_for_each_on).
///
/// ```no_run
/// let acc = amp_runtime::Accelerator::default()?;
/// println!("running on {} ({:?})", acc.name(), acc.device_type());
/// # Ok::<(), amp_runtime::Error>(())
/// ```
#[derive(Clone)]
pub struct Accelerator {
    pub(crate) shared: Arc<DeviceShared>,
}

impl fmt::Debug for Accelerator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Accelerator")
            .field("name", &self.shared.name)
            .field("device_type", &self.shared.device_type)
            .finish()
    }
}

impl PartialEq for Accelerator {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl Eq for Accelerator {}

struct PhysicalInfo {
    handle: vk::PhysicalDevice,
    /// Position in `vkEnumeratePhysicalDevices` (before filtering).
    index: usize,
    name: String,
    device_type: DeviceType,
}

impl PhysicalInfo {
    /// See [`Accelerator::device_path`].
    fn path(&self) -> String {
        format!("vulkan:{}:{}", self.index, self.name)
    }
}

static DEVICES: Mutex<Vec<(vk::PhysicalDevice, Arc<DeviceShared>)>> = Mutex::new(Vec::new());
static DEFAULT: Mutex<Option<Accelerator>> = Mutex::new(None);

/// The environment variable that picks the default accelerator (see [`Accelerator::default`]).
const DEVICE_ENV: &str = "AMP_DEVICE";

fn physical_devices(inst: &InstanceShared) -> Result<Vec<PhysicalInfo>, Error> {
    // SAFETY: plain queries on a live instance.
    unsafe {
        let handles = inst
            .instance
            .enumerate_physical_devices()
            .map_err(Error::vk("vkEnumeratePhysicalDevices"))?;
        let mut out = Vec::new();
        for (index, handle) in handles.into_iter().enumerate() {
            let props = inst.instance.get_physical_device_properties(handle);
            if props.api_version < vk::API_VERSION_1_1 {
                continue;
            }
            let families = inst
                .instance
                .get_physical_device_queue_family_properties(handle);
            if !families
                .iter()
                .any(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            {
                continue;
            }
            let name = props
                .device_name_as_c_str()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|_| "unnamed device".to_owned());
            out.push(PhysicalInfo {
                handle,
                index,
                name,
                device_type: DeviceType::from_vk(props.device_type),
            });
        }
        Ok(out)
    }
}

fn device_for(inst: &Arc<InstanceShared>, phys: &PhysicalInfo) -> Result<Accelerator, Error> {
    let mut devices = lock(&DEVICES);
    if let Some((_, d)) = devices.iter().find(|(p, _)| *p == phys.handle) {
        return Ok(Accelerator { shared: d.clone() });
    }
    let shared = Arc::new(create_device(inst, phys)?);
    devices.push((phys.handle, shared.clone()));
    Ok(Accelerator { shared })
}

fn create_device(inst: &Arc<InstanceShared>, phys: &PhysicalInfo) -> Result<DeviceShared, Error> {
    let instance = &inst.instance;
    // SAFETY: queries and object creation on a live instance; everything created here is
    // destroyed on the error paths or owned by the returned DeviceShared.
    unsafe {
        let props = instance.get_physical_device_properties(phys.handle);
        let l = props.limits;
        let families = instance.get_physical_device_queue_family_properties(phys.handle);
        // Prefer a compute family without graphics (dedicated compute), else any compute one.
        let family = families
            .iter()
            .position(|f| {
                f.queue_flags.contains(vk::QueueFlags::COMPUTE)
                    && !f.queue_flags.contains(vk::QueueFlags::GRAPHICS)
            })
            .or_else(|| {
                families
                    .iter()
                    .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            })
            .ok_or(Error::NoDevice)? as u32;
        let supported = instance.get_physical_device_features(phys.handle);
        let features = vk::PhysicalDeviceFeatures::default()
            .shader_float64(supported.shader_float64 == vk::TRUE)
            .shader_int64(supported.shader_int64 == vk::TRUE)
            // Out-of-bounds accesses by a kernel (a domain larger than its buffers) are
            // discarded instead of touching other memory.
            .robust_buffer_access(supported.robust_buffer_access == vk::TRUE);
        let float_controls = c"VK_KHR_shader_float_controls";
        let device_extensions = instance
            .enumerate_device_extension_properties(phys.handle)
            .map_err(Error::vk("vkEnumerateDeviceExtensionProperties"))?;
        let has_extension = |name: &std::ffi::CStr| {
            device_extensions
                .iter()
                .any(|e| e.extension_name_as_c_str() == Ok(name))
        };
        let has_float_controls = has_extension(float_controls);
        let host_import = crate::memory::MemoryInfo::HOST_IMPORT_EXTENSION;
        let memory =
            crate::memory::MemoryInfo::query(instance, phys.handle, has_extension(host_import));
        let mut preserve_float_specials = [false; 2];
        if has_float_controls {
            let mut fc = vk::PhysicalDeviceFloatControlsProperties::default();
            let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut fc);
            instance.get_physical_device_properties2(phys.handle, &mut props2);
            preserve_float_specials = [
                fc.shader_signed_zero_inf_nan_preserve_float32 == vk::TRUE,
                fc.shader_signed_zero_inf_nan_preserve_float64 == vk::TRUE,
            ];
        }
        let mut extensions = if has_float_controls {
            vec![float_controls.as_ptr()]
        } else {
            Vec::new()
        };
        if memory.host_import_alignment.is_some() {
            extensions.push(host_import.as_ptr());
        }
        let atomic_float_extension = crate::atomic_float::AtomicFloat32::EXTENSION;
        let atomic_float32 = crate::atomic_float::AtomicFloat32::query(
            instance,
            phys.handle,
            has_extension(atomic_float_extension),
        );
        let mut enabled_atomic_float = atomic_float32.enable();
        if atomic_float32.any() {
            extensions.push(atomic_float_extension.as_ptr());
        }
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let mut info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&extensions)
            .enabled_features(&features);
        if atomic_float32.any() {
            info = info.push_next(&mut enabled_atomic_float);
        }
        let device = instance
            .create_device(phys.handle, &info, None)
            .map_err(Error::vk("vkCreateDevice"))?;
        let queue = device.get_device_queue(family, 0);

        let destroy = |device: &ash::Device| device.destroy_device(None);
        let allocator = match Allocator::new(&AllocatorCreateDesc {
            instance: instance.clone(),
            device: device.clone(),
            physical_device: phys.handle,
            debug_settings: Default::default(),
            buffer_device_address: false,
            allocation_sizes: gpu_allocator::AllocationSizes::new(64 << 20, 64 << 20),
        }) {
            Ok(a) => a,
            Err(e) => {
                destroy(&device);
                return Err(e.into());
            }
        };
        let submitter = match Submitter::new(&device, family) {
            Ok(s) => s,
            Err(e) => {
                drop(allocator);
                destroy(&device);
                return Err(e);
            }
        };
        let summary = memory_summary(instance, phys.handle);
        Ok(DeviceShared {
            instance: inst.clone(),
            device,
            queue: Mutex::new(queue),
            queue_family: family,
            name: phys.name.clone(),
            device_type: phys.device_type,
            description: describe(phys, &props),
            device_path: phys.path(),
            dedicated_memory: summary.device_local_bytes,
            cpu_shared_memory: summary.cpu_shared,
            limits: Limits {
                max_workgroup_count: l.max_compute_work_group_count,
                max_workgroup_size: l.max_compute_work_group_size,
                max_threads_per_workgroup: l.max_compute_work_group_invocations,
                max_shared_memory_bytes: l.max_compute_shared_memory_size,
                max_push_constants_size: l.max_push_constants_size,
                max_storage_buffer_range: l.max_storage_buffer_range,
                max_memory_allocation_size: max_memory_allocation_size(instance, phys.handle),
            },
            float64: supported.shader_float64 == vk::TRUE,
            preserve_float_specials,
            atomic_float32,
            allocator: Mutex::new(Some(allocator)),
            memory,
            submitter: Mutex::new(submitter),
            pipelines: Mutex::new(PipelineCache::default()),
            oob_reports: crate::bounds::ReportPool::default(),
        })
    }
}

/// What [`Accelerator::dedicated_memory`] and [`Accelerator::supports_cpu_shared_memory`]
/// report.
struct MemorySummary {
    device_local_bytes: u64,
    cpu_shared: bool,
}

fn memory_summary(instance: &ash::Instance, phys: vk::PhysicalDevice) -> MemorySummary {
    // SAFETY: a plain query on a live instance.
    let props = unsafe { instance.get_physical_device_memory_properties(phys) };
    let heaps = &props.memory_heaps[..props.memory_heap_count as usize];
    let types = &props.memory_types[..props.memory_type_count as usize];
    let shared = vk::MemoryPropertyFlags::DEVICE_LOCAL
        | vk::MemoryPropertyFlags::HOST_VISIBLE
        | vk::MemoryPropertyFlags::HOST_COHERENT;
    MemorySummary {
        device_local_bytes: heaps
            .iter()
            .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
            .map(|h| h.size)
            .sum(),
        cpu_shared: types.iter().any(|t| t.property_flags.contains(shared)),
    }
}

/// `maxMemoryAllocationSize` (Vulkan 1.1, `VkPhysicalDeviceMaintenance3Properties`).
fn max_memory_allocation_size(instance: &ash::Instance, phys: vk::PhysicalDevice) -> u64 {
    let mut m3 = vk::PhysicalDeviceMaintenance3Properties::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut m3);
    // SAFETY: a plain query on a live instance of a Vulkan 1.1 device.
    unsafe { instance.get_physical_device_properties2(phys, &mut props2) };
    m3.max_memory_allocation_size
}

/// `llvmpipe (LLVM 15.0.6, 256 bits) (CPU device, Vulkan 1.3.238, vendor 0x10005, device 0x0000)`.
fn describe(phys: &PhysicalInfo, props: &vk::PhysicalDeviceProperties) -> String {
    let api = props.api_version;
    let kind = match phys.device_type {
        DeviceType::DiscreteGpu => "discrete GPU",
        DeviceType::IntegratedGpu => "integrated GPU",
        DeviceType::VirtualGpu => "virtual GPU",
        DeviceType::Cpu => "CPU device",
        DeviceType::Other => "other device",
    };
    format!(
        "{} ({kind}, Vulkan {}.{}.{}, vendor {:#06x}, device {:#06x})",
        phys.name,
        vk::api_version_major(api),
        vk::api_version_minor(api),
        vk::api_version_patch(api),
        props.vendor_id,
        props.device_id,
    )
}

/// The logical devices opened so far.
pub(crate) fn open_devices() -> Vec<Arc<DeviceShared>> {
    lock(&DEVICES).iter().map(|(_, d)| d.clone()).collect()
}

/// The device `AMP_DEVICE=want` names: the first whose name contains `want`
/// (case-insensitive) or whose [`Accelerator::device_path`] is `want`.
fn find_named(phys: &mut Vec<PhysicalInfo>, want: &str) -> Result<PhysicalInfo, Error> {
    let lower = want.to_lowercase();
    match phys
        .iter()
        .position(|p| p.path() == want || p.name.to_lowercase().contains(&lower))
    {
        Some(i) => Ok(phys.swap_remove(i)),
        None => Err(Error::DeviceNotFound {
            name: want.to_owned(),
            available: phys
                .iter()
                .map(|p| format!("{} ({})", p.name, p.path()))
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

impl Accelerator {
    /// The process-wide default accelerator (C++ AMP's `accelerator()`), used by
    /// [`parallel_for_each`](crate::parallel_for_each) and the `new` constructors.
    ///
    /// Chosen once per process, on first use: the accelerator passed to
    /// [`Accelerator::set_default`] if that came first; else the first device whose name
    /// contains the value of the environment variable `AMP_DEVICE` (case-insensitive) or whose
    /// [`device_path`](Self::device_path) equals it ([`Error::DeviceNotFound`] if none does);
    /// otherwise the first discrete GPU, integrated GPU, virtual GPU, then CPU device.
    ///
    /// Errors: [`Error::NoVulkanLoader`], [`Error::NoDevice`], [`Error::DeviceNotFound`].
    #[allow(clippy::should_implement_trait)]
    pub fn default() -> Result<Accelerator, Error> {
        let mut slot = lock(&DEFAULT);
        if let Some(acc) = slot.as_ref() {
            return Ok(acc.clone());
        }
        let inst = instance()?;
        let mut phys = physical_devices(&inst)?;
        if phys.is_empty() {
            return Err(Error::NoDevice);
        }
        let chosen = match std::env::var(DEVICE_ENV) {
            Ok(want) if !want.is_empty() => find_named(&mut phys, &want)?,
            _ => {
                // Stable sort: enumeration order breaks ties.
                phys.sort_by_key(|p| p.device_type.preference());
                phys.swap_remove(0)
            }
        };
        let acc = device_for(&inst, &chosen)?;
        *slot = Some(acc.clone());
        Ok(acc)
    }

    /// Every Vulkan 1.1 device with a compute queue, in enumeration order.
    pub fn all() -> Result<Vec<Accelerator>, Error> {
        let inst = instance()?;
        physical_devices(&inst)?
            .iter()
            .map(|p| device_for(&inst, p))
            .collect()
    }

    /// Makes `acc` the process-wide default accelerator (C++ AMP's `accelerator::set_default`),
    /// overriding `AMP_DEVICE`.
    ///
    /// Returns `true` if `acc` is now the default: the default had not been chosen yet (no
    /// call to [`Accelerator::default`], or to anything that uses it, came first), or it
    /// already is `acc`. Returns `false`, changing nothing, if another accelerator already
    /// became the default: arrays and views may already live there.
    ///
    /// ```no_run
    /// use amp_runtime::Accelerator;
    /// let all = Accelerator::all()?;
    /// if let Some(cpu) = all.iter().find(|a| a.is_emulated()) {
    ///     assert!(Accelerator::set_default(cpu));
    /// }
    /// # Ok::<(), amp_runtime::Error>(())
    /// ```
    pub fn set_default(acc: &Accelerator) -> bool {
        let mut slot = lock(&DEFAULT);
        match slot.as_ref() {
            Some(current) => current == acc,
            None => {
                *slot = Some(acc.clone());
                true
            }
        }
    }

    /// The accelerator whose [`device_path`](Self::device_path) is `path`.
    ///
    /// Errors: [`Error::DeviceNotFound`] when no device has that path.
    pub fn from_path(path: &str) -> Result<Accelerator, Error> {
        let inst = instance()?;
        let phys = physical_devices(&inst)?;
        match phys.iter().find(|p| p.path() == path) {
            Some(p) => device_for(&inst, p),
            None => Err(Error::DeviceNotFound {
                name: path.to_owned(),
                available: phys.iter().map(|p| p.path()).collect::<Vec<_>>().join(", "),
            }),
        }
    }

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

    /// A longer description: the name, the kind of device, its Vulkan version and its vendor
    /// and device ids, for example
    /// `llvmpipe (LLVM 15.0.6, 256 bits) (CPU device, Vulkan 1.3.238, vendor 0x10005, device 0x0000)`.
    pub fn description(&self) -> &str {
        &self.shared.description
    }

    /// A string that identifies the device in this system: `vulkan:<index>:<name>`, where
    /// `<index>` is its position in Vulkan's device enumeration and `<name>` its
    /// [`name`](Self::name), for example `vulkan:0:llvmpipe (LLVM 15.0.6, 256 bits)`. It
    /// stays the same across runs while the installed drivers and devices do;
    /// [`Accelerator::from_path`] and `AMP_DEVICE` accept it.
    pub fn device_path(&self) -> &str {
        &self.shared.device_path
    }

    /// Bytes of device-local memory (the sum of the device-local memory heaps). On a CPU
    /// device or an integrated GPU this is system memory the driver sets aside or shares.
    pub fn dedicated_memory(&self) -> u64 {
        self.shared.dedicated_memory
    }

    /// Whether the device is emulated on the CPU (a [`DeviceType::Cpu`] device such as Mesa's
    /// lavapipe), as C++ AMP's WARP and reference accelerators are.
    pub fn is_emulated(&self) -> bool {
        self.shared.device_type == DeviceType::Cpu
    }

    /// Whether the device has memory that is both device-local and host-visible and coherent,
    /// so the host can read and write kernel buffers in place (C++ AMP's
    /// `supports_cpu_shared_memory`).
    pub fn supports_cpu_shared_memory(&self) -> bool {
        self.shared.cpu_shared_memory
    }

    /// The device's name, as the driver reports it.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// The kind of device.
    pub fn device_type(&self) -> DeviceType {
        self.shared.device_type
    }

    /// Whether kernels using `f64` can run here (the Vulkan feature `shaderFloat64`).
    pub fn supports_double_precision(&self) -> bool {
        self.shared.float64
    }

    /// Whether kernels can `atomic_fetch_add` into `f32` elements of views and arrays (the
    /// Vulkan feature `shaderBufferFloat32AtomicAdd` of `VK_EXT_shader_atomic_float`). Such
    /// kernels fail with [`Error::MissingCapability`] where it is missing.
    pub fn supports_float_atomic_add(&self) -> bool {
        self.shared.atomic_float32.buffer_add
    }

    /// The device's compute limits, among them the most threads in a tile
    /// ([`Limits::max_tile_threads`]) and bytes of `tile_static` memory
    /// ([`Limits::max_tile_static_bytes`]).
    pub fn limits(&self) -> Limits {
        self.shared.limits
    }

    /// Whether the Vulkan validation layer is active for this device.
    pub fn validation_enabled(&self) -> bool {
        self.shared.instance.validation
    }
}
