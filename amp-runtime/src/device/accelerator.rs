//! Accelerators: the [`Accelerator`] handle, the process-wide registry of opened devices
//! (one logical device per physical device), the default accelerator, and
//! [`live_object_counts`] over all of them.

use std::fmt;
use std::sync::{Arc, Mutex};

use ash::vk;

use super::counts::{ObjectCounts, LIVE_DESCRIPTOR_POOLS, LIVE_PIPELINES, LIVE_SUBMITTERS};
use super::create::{create_device, physical_devices, PhysicalInfo};
use super::instance::{instance, InstanceShared};
use super::properties::{DeviceType, Limits};
use super::Device;
use crate::sync::lock;
use crate::Error;

/// A handle to a Vulkan device that runs kernels (C++ AMP's `accelerator`).
///
/// Cheap to clone; all handles to one physical device share one logical device, its memory
/// allocator and its pipeline cache. The device lives until the process ends. Launches go to
/// one of its queues, [`AcceleratorView`](crate::AcceleratorView)s: the [`default_view`](Self::default_view) unless
/// another is chosen with [`parallel_for_each_on`](crate::parallel_for_each_on).
///
/// ```no_run
/// let acc = amp_runtime::Accelerator::default()?;
/// println!("running on {} ({:?})", acc.name(), acc.device_type());
/// # Ok::<(), amp_runtime::Error>(())
/// ```
#[derive(Clone)]
pub struct Accelerator {
    device: Arc<Device>,
}

impl fmt::Debug for Accelerator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Accelerator")
            .field("name", &self.device.name)
            .field("device_type", &self.device.device_type)
            .finish()
    }
}

impl PartialEq for Accelerator {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.device, &other.device)
    }
}

impl Eq for Accelerator {}

impl Accelerator {
    /// The device this handle shares.
    pub(crate) fn device(&self) -> &Arc<Device> {
        &self.device
    }
}

static DEVICES: Mutex<Vec<(vk::PhysicalDevice, Arc<Device>)>> = Mutex::new(Vec::new());
static DEFAULT: Mutex<Option<Accelerator>> = Mutex::new(None);

/// The environment variable that picks the default accelerator (see [`Accelerator::default`]).
const DEVICE_ENV: &str = "AMP_DEVICE";

fn device_for(inst: &Arc<InstanceShared>, phys: &PhysicalInfo) -> Result<Accelerator, Error> {
    let mut devices = lock(&DEVICES);
    if let Some((_, d)) = devices.iter().find(|(p, _)| *p == phys.handle) {
        return Ok(Accelerator { device: d.clone() });
    }
    let device = Arc::new(create_device(inst, phys)?);
    devices.push((phys.handle, device.clone()));
    Ok(Accelerator { device })
}

/// The logical devices opened so far.
fn open_devices() -> Vec<Arc<Device>> {
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

    /// A longer description: the name, the kind of device, its Vulkan version and its vendor
    /// and device ids, for example
    /// `llvmpipe (LLVM 15.0.6, 256 bits) (CPU device, Vulkan 1.3.238, vendor 0x10005, device 0x0000)`.
    pub fn description(&self) -> &str {
        &self.device.description
    }

    /// A string that identifies the device in this system: `vulkan:<index>:<name>`, where
    /// `<index>` is its position in Vulkan's device enumeration and `<name>` its
    /// [`name`](Self::name), for example `vulkan:0:llvmpipe (LLVM 15.0.6, 256 bits)`. It
    /// stays the same across runs while the installed drivers and devices do;
    /// [`Accelerator::from_path`] and `AMP_DEVICE` accept it.
    pub fn device_path(&self) -> &str {
        &self.device.device_path
    }

    /// Bytes of device-local memory (the sum of the device-local memory heaps). On a CPU
    /// device or an integrated GPU this is system memory the driver sets aside or shares.
    pub fn dedicated_memory(&self) -> u64 {
        self.device.dedicated_memory
    }

    /// Whether the device is emulated on the CPU (a [`DeviceType::Cpu`] device such as Mesa's
    /// lavapipe), as C++ AMP's WARP and reference accelerators are.
    pub fn is_emulated(&self) -> bool {
        self.device.device_type == DeviceType::Cpu
    }

    /// Whether the device has memory that is both device-local and host-visible and coherent,
    /// so the host can read and write kernel buffers in place (C++ AMP's
    /// `supports_cpu_shared_memory`).
    pub fn supports_cpu_shared_memory(&self) -> bool {
        self.device.cpu_shared_memory
    }

    /// The device's name, as the driver reports it.
    pub fn name(&self) -> &str {
        &self.device.name
    }

    /// The kind of device.
    pub fn device_type(&self) -> DeviceType {
        self.device.device_type
    }

    /// Whether kernels using `f64` can run here (the Vulkan feature `shaderFloat64`).
    pub fn supports_double_precision(&self) -> bool {
        self.device.float64
    }

    /// Whether kernels can `atomic_fetch_add` into `f32` elements of views and arrays (the
    /// Vulkan feature `shaderBufferFloat32AtomicAdd` of `VK_EXT_shader_atomic_float`). Such
    /// kernels fail with [`Error::MissingCapability`] where it is missing.
    pub fn supports_float_atomic_add(&self) -> bool {
        self.device.atomic_float32.buffer_add
    }

    /// The device's compute limits, among them the most threads in a tile
    /// ([`Limits::max_tile_threads`]) and bytes of `tile_static` memory
    /// ([`Limits::max_tile_static_bytes`]).
    pub fn limits(&self) -> Limits {
        self.device.limits
    }

    /// Whether the Vulkan validation layer is active for this device.
    pub fn validation_enabled(&self) -> bool {
        self.device.instance.validation
    }
}

/// The runtime's live Vulkan objects, for leak checks (see [`ObjectCounts`]).
///
/// ```no_run
/// let before = amp_runtime::live_object_counts();
/// // ... launches with fresh views ...
/// assert_eq!(amp_runtime::live_object_counts(), before);
/// ```
pub fn live_object_counts() -> ObjectCounts {
    let mut counts = ObjectCounts {
        pipelines: LIVE_PIPELINES.get(),
        command_pools: LIVE_SUBMITTERS.get(),
        descriptor_pools: LIVE_DESCRIPTOR_POOLS.get(),
        ..ObjectCounts::default()
    };
    for device in open_devices() {
        counts.devices += 1;
        if let Some(alloc) = device.allocator().as_ref() {
            let report = alloc.generate_report();
            counts.allocations += report.allocations.len();
            counts.memory_blocks += report.blocks.len();
            counts.memory_bytes += report.total_capacity_bytes;
        }
    }
    counts
}
