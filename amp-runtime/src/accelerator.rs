//! Accelerators: Vulkan devices, one logical device per physical device per process.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};

use crate::instance::{instance, InstanceShared};
use crate::pipeline::{Pipeline, PipelineKey};
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
}

/// Per-device command recording state; guarded by a mutex, so launches on one device are
/// serialized.
pub(crate) struct Submitter {
    pool: vk::CommandPool,
    pub(crate) cmd: vk::CommandBuffer,
    fence: vk::Fence,
    pub(crate) descriptor_pool: vk::DescriptorPool,
    descriptor_capacity: u32,
}

/// One logical device, shared by all [`Accelerator`] handles to it.
pub(crate) struct DeviceShared {
    pub(crate) instance: Arc<InstanceShared>,
    pub(crate) device: ash::Device,
    queue: vk::Queue,
    pub(crate) name: String,
    pub(crate) device_type: DeviceType,
    pub(crate) limits: Limits,
    pub(crate) float64: bool,
    /// Whether kernels may ask to keep NaN, infinities and signed zeros (`[f32, f64]`).
    pub(crate) preserve_float_specials: [bool; 2],
    pub(crate) allocator: Mutex<Option<Allocator>>,
    /// Memory types and host-memory import (see `memory.rs`).
    pub(crate) memory: crate::memory::MemoryInfo,
    pub(crate) submitter: Mutex<Submitter>,
    pub(crate) pipelines: Mutex<HashMap<PipelineKey, Arc<Pipeline>>>,
}

impl Drop for DeviceShared {
    fn drop(&mut self) {
        // SAFETY: no buffers or raw kernels remain (they hold Arcs to this), and every
        // submission was waited for.
        unsafe {
            let _ = self.device.device_wait_idle();
            for (_, p) in lock(&self.pipelines).drain() {
                p.destroy(&self.device);
            }
            let s = lock(&self.submitter);
            self.device.destroy_descriptor_pool(s.descriptor_pool, None);
            self.device.destroy_fence(s.fence, None);
            self.device.destroy_command_pool(s.pool, None);
            drop(s);
            // The allocator frees its memory blocks through the device: drop it first.
            drop(lock(&self.allocator).take());
            self.device.destroy_device(None);
        }
    }
}

impl DeviceShared {
    /// Records commands with `record` into the device's command buffer, submits them and waits.
    ///
    /// A global barrier before the commands orders them after every earlier transfer or
    /// compute work; one after them makes their writes visible to the host.
    pub(crate) fn submit<R>(
        &self,
        record: impl FnOnce(&ash::Device, &mut Submitter) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let mut s = lock(&self.submitter);
        let d = &self.device;
        let stages = vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER;
        // SAFETY: the command buffer and fence belong to this device and are not in use (every
        // submission is waited for while the lock is held).
        unsafe {
            d.reset_command_pool(s.pool, vk::CommandPoolResetFlags::empty())
                .map_err(Error::vk("vkResetCommandPool"))?;
            d.begin_command_buffer(
                s.cmd,
                &vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
            )
            .map_err(Error::vk("vkBeginCommandBuffer"))?;
            let before = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(
                    vk::AccessFlags::SHADER_READ
                        | vk::AccessFlags::SHADER_WRITE
                        | vk::AccessFlags::TRANSFER_READ
                        | vk::AccessFlags::TRANSFER_WRITE,
                );
            d.cmd_pipeline_barrier(
                s.cmd,
                stages,
                stages,
                vk::DependencyFlags::empty(),
                &[before],
                &[],
                &[],
            );
        }
        let out = record(d, &mut s);
        // SAFETY: as above.
        unsafe {
            let after = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ | vk::AccessFlags::HOST_WRITE);
            d.cmd_pipeline_barrier(
                s.cmd,
                stages,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[after],
                &[],
                &[],
            );
            d.end_command_buffer(s.cmd)
                .map_err(Error::vk("vkEndCommandBuffer"))?;
            let out = out?;
            d.reset_fences(&[s.fence])
                .map_err(Error::vk("vkResetFences"))?;
            let cmds = [s.cmd];
            let submit = vk::SubmitInfo::default().command_buffers(&cmds);
            d.queue_submit(self.queue, &[submit], s.fence)
                .map_err(Error::vk("vkQueueSubmit"))?;
            d.wait_for_fences(&[s.fence], true, u64::MAX)
                .map_err(Error::vk("vkWaitForFences"))?;
            Ok(out)
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

fn create_descriptor_pool(d: &ash::Device, capacity: u32) -> Result<vk::DescriptorPool, Error> {
    let sizes = [vk::DescriptorPoolSize {
        ty: vk::DescriptorType::STORAGE_BUFFER,
        descriptor_count: capacity,
    }];
    let info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(1)
        .pool_sizes(&sizes);
    // SAFETY: valid create info.
    unsafe { d.create_descriptor_pool(&info, None) }.map_err(Error::vk("vkCreateDescriptorPool"))
}

/// A handle to a Vulkan device that runs kernels (C++ AMP's `accelerator`).
///
/// Cheap to clone; all handles to one physical device share one logical device, its memory
/// allocator and its pipeline cache. The device lives until the process ends.
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
    name: String,
    device_type: DeviceType,
}

static DEVICES: Mutex<Vec<(vk::PhysicalDevice, Arc<DeviceShared>)>> = Mutex::new(Vec::new());
static DEFAULT: Mutex<Option<Accelerator>> = Mutex::new(None);

fn physical_devices(inst: &InstanceShared) -> Result<Vec<PhysicalInfo>, Error> {
    // SAFETY: plain queries on a live instance.
    unsafe {
        let handles = inst
            .instance
            .enumerate_physical_devices()
            .map_err(Error::vk("vkEnumeratePhysicalDevices"))?;
        let mut out = Vec::new();
        for handle in handles {
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
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&extensions)
            .enabled_features(&features);
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
        let submitter = match create_submitter(&device, family) {
            Ok(s) => s,
            Err(e) => {
                drop(allocator);
                destroy(&device);
                return Err(e);
            }
        };
        Ok(DeviceShared {
            instance: inst.clone(),
            device,
            queue,
            name: phys.name.clone(),
            device_type: phys.device_type,
            limits: Limits {
                max_workgroup_count: l.max_compute_work_group_count,
                max_workgroup_size: l.max_compute_work_group_size,
                max_threads_per_workgroup: l.max_compute_work_group_invocations,
                max_shared_memory_bytes: l.max_compute_shared_memory_size,
                max_push_constants_size: l.max_push_constants_size,
                max_storage_buffer_range: l.max_storage_buffer_range,
            },
            float64: supported.shader_float64 == vk::TRUE,
            preserve_float_specials,
            allocator: Mutex::new(Some(allocator)),
            memory,
            submitter: Mutex::new(submitter),
            pipelines: Mutex::new(HashMap::new()),
        })
    }
}

fn create_submitter(d: &ash::Device, family: u32) -> Result<Submitter, Error> {
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
        let descriptor_pool = create_descriptor_pool(d, 16).map_err(|e| {
            d.destroy_fence(fence, None);
            cleanup_pool(e)
        })?;
        Ok(Submitter {
            pool,
            cmd,
            fence,
            descriptor_pool,
            descriptor_capacity: 16,
        })
    }
}

impl Accelerator {
    /// The process-wide default accelerator (C++ AMP's `accelerator()`), used by
    /// [`parallel_for_each`](crate::parallel_for_each) and the `new` constructors.
    ///
    /// Chosen once per process: the first device whose name contains the value of the
    /// environment variable `AMP_DEVICE` (case-insensitive; [`Error::DeviceNotFound`] if none
    /// does), otherwise the first discrete GPU, integrated GPU, virtual GPU, then CPU device.
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
        let chosen = match std::env::var("AMP_DEVICE") {
            Ok(want) if !want.is_empty() => {
                let lower = want.to_lowercase();
                match phys
                    .iter()
                    .position(|p| p.name.to_lowercase().contains(&lower))
                {
                    Some(i) => phys.swap_remove(i),
                    None => {
                        return Err(Error::DeviceNotFound {
                            name: want,
                            available: phys
                                .iter()
                                .map(|p| p.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", "),
                        })
                    }
                }
            }
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

    /// The device's compute limits.
    pub fn limits(&self) -> Limits {
        self.shared.limits
    }

    /// Whether the Vulkan validation layer is active for this device.
    pub fn validation_enabled(&self) -> bool {
        self.shared.instance.validation
    }
}
