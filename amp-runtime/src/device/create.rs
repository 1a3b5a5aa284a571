//! Opening a device: the physical devices Vulkan lists, and the logical device, queue,
//! allocator and default view queue made for one of them.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};

use super::atomic_float::AtomicFloat32;
use super::autotune::Autotuner;
use super::batch::Queue;
use super::discrete::simulated_limits;
use super::instance::InstanceShared;
use super::memory_info::MemoryInfo;
use super::pipeline_cache::DriverCache;
use super::profile::Timestamps;
use super::properties::{DeviceType, Limits};
use super::Device;
use super::FloatControls;
use crate::Error;

/// A physical device with a compute queue and Vulkan 1.1.
pub(super) struct PhysicalInfo {
    pub(super) handle: vk::PhysicalDevice,
    /// Position in `vkEnumeratePhysicalDevices` (before filtering).
    pub(super) index: usize,
    pub(super) name: String,
    pub(super) device_type: DeviceType,
}

impl PhysicalInfo {
    /// See [`Accelerator::device_path`].
    pub(super) fn path(&self) -> String {
        format!("vulkan:{}:{}", self.index, self.name)
    }
}

/// Every Vulkan 1.1 physical device with a compute queue, in enumeration order.
pub(super) fn physical_devices(inst: &InstanceShared) -> Result<Vec<PhysicalInfo>, Error> {
    // SAFETY: plain queries on a live instance.
    unsafe {
        let handles = inst
            .instance
            .enumerate_physical_devices()
            .map_err(Error::vk("vkEnumeratePhysicalDevices"))?;
        let mut out = Vec::new();
        let mut seen = Vec::new();
        for (index, handle) in handles.into_iter().enumerate() {
            let props = inst.instance.get_physical_device_properties(handle);
            if props.api_version < vk::API_VERSION_1_1 {
                continue;
            }
            // One GPU reached through two drivers' manifests (the same manifest in two
            // folders, as in some container images) is one device: the first is kept.
            let mut id = vk::PhysicalDeviceIDProperties::default();
            let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut id);
            inst.instance
                .get_physical_device_properties2(handle, &mut props2);
            let uuid = id.device_uuid;
            if uuid != [0; vk::UUID_SIZE] {
                if seen.contains(&uuid) {
                    continue;
                }
                seen.push(uuid);
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

/// Opens the logical device of `phys`.
pub(super) fn create_device(
    inst: &Arc<InstanceShared>,
    phys: &PhysicalInfo,
) -> Result<Device, Error> {
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
        // Whether the chosen family can write timestamps is its `timestampValidBits` (0: it
        // cannot), whatever `timestampComputeAndGraphics` says of compute queues in general.
        let timestamps = Timestamps::new(
            l.timestamp_period,
            families[family as usize].timestamp_valid_bits,
        );
        let supported = instance.get_physical_device_features(phys.handle);
        let features = vk::PhysicalDeviceFeatures::default()
            .shader_float64(supported.shader_float64 == vk::TRUE)
            .shader_int64(supported.shader_int64 == vk::TRUE)
            // Out-of-bounds accesses by a kernel (a domain larger than its buffers) are
            // discarded instead of touching other memory.
            .robust_buffer_access(supported.robust_buffer_access == vk::TRUE)
            // Write-only texture views are storage images without a declared format (the
            // texture's bits per scalar are chosen at run time).
            .shader_storage_image_write_without_format(
                supported.shader_storage_image_write_without_format == vk::TRUE,
            );
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
        let host_import = MemoryInfo::HOST_IMPORT_EXTENSION;
        let memory = MemoryInfo::query(
            instance,
            phys.handle,
            phys.device_type,
            has_extension(host_import),
        );
        let mut preserve_float_specials = [false; 2];
        let mut preserve_denormals = [false; 2];
        if has_float_controls {
            let mut fc = vk::PhysicalDeviceFloatControlsProperties::default();
            let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut fc);
            instance.get_physical_device_properties2(phys.handle, &mut props2);
            preserve_float_specials = [
                fc.shader_signed_zero_inf_nan_preserve_float32 == vk::TRUE,
                fc.shader_signed_zero_inf_nan_preserve_float64 == vk::TRUE,
            ];
            // A width's denormal mode may be set on its own only where the device says so:
            // with `32_BIT_ONLY`, 64-bit floats share 16-bit floats' mode (which kernels leave
            // unset), and with `NONE` every width shares one.
            let independent = match fc.denorm_behavior_independence {
                vk::ShaderFloatControlsIndependence::ALL => [true, true],
                vk::ShaderFloatControlsIndependence::TYPE_32_ONLY => [true, false],
                _ => [false, false],
            };
            preserve_denormals = [
                independent[0] && fc.shader_denorm_preserve_float32 == vk::TRUE,
                independent[1] && fc.shader_denorm_preserve_float64 == vk::TRUE,
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
        let atomic_float_extension = AtomicFloat32::EXTENSION;
        let atomic_float32 =
            AtomicFloat32::query(instance, phys.handle, has_extension(atomic_float_extension));
        let mut enabled_atomic_float = atomic_float32.enable();
        if atomic_float32.any() {
            extensions.push(atomic_float_extension.as_ptr());
        }
        let narrow_extension = super::narrow_storage::NarrowStorage::EXTENSION_8BIT;
        let narrow_storage = super::narrow_storage::NarrowStorage::query(
            instance,
            phys.handle,
            has_extension(narrow_extension),
        );
        let (mut enabled_8bit, mut enabled_16bit) = narrow_storage.enable();
        if narrow_storage.bits8 {
            extensions.push(narrow_extension.as_ptr());
        }
        // Per-pipeline robustness: kernels that check every access of their views run
        // without the device's robust buffer access (exec/pipeline.rs), which then costs them
        // nothing. An earlier interface, every buffer of one shared block type, read a checked
        // kernel's own store back stale without it on NVIDIA's driver (580.159, H200); with a
        // block type per buffer the whole device suite passed there without it, and
        // `tests/device/stale_read.rs` (the GPU kit's `stale-read`) runs that kernel in four
        // module forms with robust access off.
        let robustness = crate::config::pipeline_robustness()?;
        let device_copy = crate::config::device_copy()?;
        let robustness_extension = ash::ext::pipeline_robustness::NAME;
        let pipeline_robustness = has_extension(robustness_extension) && {
            let mut robustness = vk::PhysicalDevicePipelineRobustnessFeaturesEXT::default();
            let mut features2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut robustness);
            instance.get_physical_device_features2(phys.handle, &mut features2);
            robustness.pipeline_robustness == vk::TRUE
        };
        let mut enabled_robustness =
            vk::PhysicalDevicePipelineRobustnessFeaturesEXT::default().pipeline_robustness(true);
        if pipeline_robustness {
            extensions.push(robustness_extension.as_ptr());
        }
        let subgroups = super::subgroup::Subgroups::query(instance, phys.handle);
        let limits = (if memory.simulated {
            simulated_limits
        } else {
            std::convert::identity
        })(Limits {
            max_workgroup_count: l.max_compute_work_group_count,
            max_workgroup_size: l.max_compute_work_group_size,
            max_threads_per_workgroup: l.max_compute_work_group_invocations,
            max_shared_memory_bytes: l.max_compute_shared_memory_size,
            max_push_constants_size: l.max_push_constants_size,
            max_storage_buffer_range: l.max_storage_buffer_range,
            max_memory_allocation_size: max_memory_allocation_size(instance, phys.handle),
            max_image_dimension: [
                l.max_image_dimension1_d,
                l.max_image_dimension2_d,
                l.max_image_dimension3_d,
            ],
            subgroup_size: subgroups.size,
            max_loop_iterations: super::properties::loop_limit(&phys.name),
            rounds_f32_exactly: super::properties::rounds_f32_exactly(&phys.name),
        });
        // Simple kernels' launch shape: a GPU's, or the one of the discrete GPU simulated.
        let gpu = phys.device_type.is_gpu() || memory.simulated;
        let (shape, candidates) = super::LaunchShape::choose(gpu, &limits)?;
        // The autotuner needs the queue's timestamps to time its tries. It is on by default
        // on GPUs only: on a CPU device (lavapipe) the shapes ran within a few percent of each
        // other, and its tries' pipelines are compiled at their first dispatch, late in a
        // program, where a driver that compiles on its own threads can be caught by the
        // process's end (lavapipe's compiler crashed so, once in ten runs on a busy machine).
        let tune = crate::config::flag_or("AMP_AUTOTUNE", gpu)? && timestamps.is_some();
        // The simulated discrete GPU tries other shapes than the CPU device it runs on.
        let suffix = if memory.simulated {
            "-discrete.txt"
        } else {
            ".txt"
        };
        let tune_file = super::pipeline_cache::device_file(&props, "launch-shapes", suffix);
        let tuner = Arc::new(Autotuner::new(tune, candidates, tune_file));
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
        if pipeline_robustness {
            info = info.push_next(&mut enabled_robustness);
        }
        if narrow_storage.bits8 {
            info = info.push_next(&mut enabled_8bit);
        }
        if narrow_storage.bits16 {
            info = info.push_next(&mut enabled_16bit);
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
        let driver_cache = DriverCache::create(&device, &props);
        Ok(Device {
            instance: inst.clone(),
            device,
            queue: Mutex::new(queue),
            queue_family: family,
            name: phys.name.clone(),
            device_type: phys.device_type,
            description: describe(phys, &props, memory.simulated),
            device_path: phys.path(),
            limits,
            shape,
            tuner,
            float64: supported.shader_float64 == vk::TRUE,
            physical: phys.handle,
            storage_image_write_without_format: supported.shader_storage_image_write_without_format
                == vk::TRUE,
            float_controls: FloatControls {
                preserve_specials: preserve_float_specials,
                preserve_denormals,
            },
            atomic_float32,
            narrow_storage,
            subgroups,
            pipeline_robustness,
            robustness,
            kernel_copy_min_bytes: match device_copy {
                crate::DeviceCopy::Driver => None,
                crate::DeviceCopy::Kernel => Some(1),
                crate::DeviceCopy::Auto => gpu.then_some(crate::KERNEL_COPY_MIN_BYTES),
            },
            allocator: Mutex::new(Some(allocator)),
            memory,
            default_queue: Queue::new(family, timestamps),
            timestamps,
            next_view_id: AtomicU64::new(1),
            states: Default::default(),
            driver_cache,
        })
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
fn describe(phys: &PhysicalInfo, props: &vk::PhysicalDeviceProperties, simulated: bool) -> String {
    let api = props.api_version;
    let kind = match phys.device_type {
        DeviceType::DiscreteGpu => "discrete GPU",
        DeviceType::IntegratedGpu => "integrated GPU",
        DeviceType::VirtualGpu => "virtual GPU",
        DeviceType::Cpu => "CPU device",
        DeviceType::Other => "other device",
    };
    let kind = if simulated {
        format!("{kind} simulating a discrete GPU")
    } else {
        kind.to_owned()
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
