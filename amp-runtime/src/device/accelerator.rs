//! Accelerators: the [`Accelerator`] handle (a Vulkan device or the native CPU accelerator),
//! the process-wide registry of opened devices (one logical device per physical device), the
//! default accelerator and its order, and
//! [`live_object_counts`] over all of them.

use std::fmt;
use std::sync::{Arc, Mutex};

use ash::vk;

use super::counts::{
    ObjectCounts, LIVE_DESCRIPTOR_POOLS, LIVE_PIPELINES, LIVE_QUERY_POOLS, LIVE_SUBMITTERS,
};
use super::create::{create_device, physical_devices, PhysicalInfo};
use super::instance::{instance, InstanceShared};
use super::native::{NativeDevice, NATIVE_PATH};
use super::properties::{DeviceType, Limits};
use super::{Device, LaunchShape};
use crate::sync::lock;
use crate::Error;

/// A handle to a device that runs kernels (C++ AMP's `accelerator`): a Vulkan device, or the
/// native CPU accelerator ([`Accelerator::cpu`]), which runs each kernel's Rust translation.
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
    backend: Backend,
}

/// What runs an accelerator's kernels.
#[derive(Clone)]
pub(crate) enum Backend {
    /// A Vulkan device: kernels run as SPIR-V.
    Vulkan(Arc<Device>),
    /// The native CPU accelerator: kernels run as the Rust code generated beside their SPIR-V.
    Native(Arc<NativeDevice>),
}

impl fmt::Debug for Accelerator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Accelerator")
            .field("name", &self.name())
            .field("device_type", &self.device_type())
            .finish()
    }
}

impl PartialEq for Accelerator {
    fn eq(&self, other: &Self) -> bool {
        match (&self.backend, &other.backend) {
            (Backend::Vulkan(a), Backend::Vulkan(b)) => Arc::ptr_eq(a, b),
            (Backend::Native(a), Backend::Native(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for Accelerator {}

impl Accelerator {
    /// What runs this accelerator's kernels.
    pub(crate) fn backend(&self) -> &Backend {
        &self.backend
    }

    /// The Vulkan device this handle shares; [`Error::NativeUnsupported`] naming `what` on the
    /// native CPU accelerator.
    pub(crate) fn vulkan(&self, what: &str) -> Result<&Arc<Device>, Error> {
        match &self.backend {
            Backend::Vulkan(d) => Ok(d),
            Backend::Native(_) => Err(Error::NativeUnsupported {
                what: what.to_owned(),
                reason: "it needs a Vulkan device".into(),
            }),
        }
    }

    /// The native CPU accelerator (C++ AMP's `accelerator(accelerator::cpu_accelerator)`,
    /// which amp-rs makes a real one, like WARP): every kernel's Rust translation, generated
    /// by `#[kernel(amp)]` beside its SPIR-V and compiled by rustc with your crate, run on a
    /// `rayon` pool of `AMP_CPU_THREADS` threads (default: every core). Its
    /// [`device_path`](Self::device_path) is `"cpu"`. It needs no Vulkan loader or driver.
    ///
    /// Arrays created on it live in host memory, views of host slices are used in place,
    /// and launches on it finish before `parallel_for_each_on` returns. Kernels the native
    /// back end does not translate (textures, for now) fail to launch with
    /// [`Error::NativeUnsupported`].
    ///
    /// ```no_run
    /// let cpu = amp_runtime::Accelerator::cpu()?;
    /// assert_eq!(cpu.device_path(), "cpu");
    /// # Ok::<(), amp_runtime::Error>(())
    /// ```
    ///
    /// Errors: [`Error::InvalidSetting`] when `AMP_CPU_THREADS` (or another setting) has an
    /// invalid value.
    pub fn cpu() -> Result<Accelerator, Error> {
        Ok(Accelerator {
            backend: Backend::Native(NativeDevice::get()?),
        })
    }

    /// Whether this is the native CPU accelerator ([`Accelerator::cpu`]).
    pub fn is_native(&self) -> bool {
        matches!(self.backend, Backend::Native(_))
    }
}

fn vulkan_acc(device: Arc<Device>) -> Accelerator {
    Accelerator {
        backend: Backend::Vulkan(device),
    }
}

static DEVICES: Mutex<Vec<(vk::PhysicalDevice, Arc<Device>)>> = Mutex::new(Vec::new());
static DEFAULT: Mutex<Option<Accelerator>> = Mutex::new(None);

/// The environment variable that picks the default accelerator (see [`Accelerator::default`]).
const DEVICE_ENV: &str = "AMP_DEVICE";

fn device_for(inst: &Arc<InstanceShared>, phys: &PhysicalInfo) -> Result<Accelerator, Error> {
    let mut devices = lock(&DEVICES);
    if let Some((_, d)) = devices.iter().find(|(p, _)| *p == phys.handle) {
        return Ok(vulkan_acc(d.clone()));
    }
    let device = Arc::new(create_device(inst, phys)?);
    devices.push((phys.handle, device.clone()));
    super::exit::at_exit(finish_open_devices, wait_for_open_devices);
    Ok(vulkan_acc(device))
}

/// The exit hook (`device/exit.rs`): each open device's submitted work, waited for, once (the
/// hook is registered twice, and each device's queue stays locked after its wait).
extern "C" fn finish_open_devices() {
    static RAN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if RAN.swap(true, std::sync::atomic::Ordering::AcqRel) {
        return;
    }
    for device in open_devices() {
        device.finish_submitted_at_exit();
    }
}

/// What a thread that submitted work waits for when it ends (`device/exit.rs`): each open
/// device's submitted work.
fn wait_for_open_devices() {
    for device in open_devices() {
        device.finish_submitted();
    }
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
                .chain(["the native CPU accelerator (cpu)".to_owned()])
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
    /// [`Accelerator::set_default`] if that came first; else the one the environment variable
    /// `AMP_DEVICE` names ([`Error::DeviceNotFound`] if none matches):
    /// - `cpu`: the native CPU accelerator ([`Accelerator::cpu`]);
    /// - `vulkan`: the preferred Vulkan device (GPUs first, then Vulkan CPU drivers);
    /// - anything else: the first Vulkan device whose name contains it (case-insensitive) or
    ///   whose [`device_path`](Self::device_path) equals it.
    ///
    /// Without `AMP_DEVICE` (or with it empty): the first discrete, integrated, then virtual
    /// GPU; else the native CPU accelerator, which runs kernels far faster than a Vulkan CPU
    /// driver such as Mesa's lavapipe. The default is never such a driver: `AMP_DEVICE=vulkan`
    /// (where there is no GPU) or a name picks one. Without a Vulkan loader, or when Vulkan
    /// cannot list its devices, the default is the native CPU accelerator.
    ///
    /// Errors: [`Error::DeviceNotFound`], and those of opening the chosen device.
    #[allow(clippy::should_implement_trait)]
    pub fn default() -> Result<Accelerator, Error> {
        let mut slot = lock(&DEFAULT);
        if let Some(acc) = slot.as_ref() {
            return Ok(acc.clone());
        }
        crate::config::check_all()?;
        let acc = match crate::config::peek(DEVICE_ENV) {
            Some(want) if !want.is_empty() => named(&want)?,
            _ => preferred()?,
        };
        crate::config::latch(DEVICE_ENV);
        *slot = Some(acc.clone());
        Ok(acc)
    }

    /// Every accelerator: each Vulkan 1.1 device with a compute queue, in enumeration order,
    /// then the native CPU accelerator. Without a Vulkan loader, only the native one.
    pub fn all() -> Result<Vec<Accelerator>, Error> {
        let mut all = match instance() {
            Ok(inst) => physical_devices(&inst)?
                .iter()
                .map(|p| device_for(&inst, p))
                .collect::<Result<Vec<_>, _>>()?,
            Err(Error::NoVulkanLoader(_)) => Vec::new(),
            Err(e) => return Err(e),
        };
        all.push(Accelerator::cpu()?);
        Ok(all)
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
    /// assert!(Accelerator::set_default(&Accelerator::cpu()?));
    /// # Ok::<(), amp_runtime::Error>(())
    /// ```
    pub fn set_default(acc: &Accelerator) -> bool {
        let mut slot = lock(&DEFAULT);
        match slot.as_ref() {
            Some(current) => current == acc,
            None => {
                *slot = Some(acc.clone());
                crate::config::latch(DEVICE_ENV);
                true
            }
        }
    }

    /// The accelerator whose [`device_path`](Self::device_path) is `path`: `"cpu"` for the
    /// native CPU accelerator, `vulkan:<index>:<name>` for a Vulkan device.
    ///
    /// Errors: [`Error::DeviceNotFound`] when no device has that path.
    pub fn from_path(path: &str) -> Result<Accelerator, Error> {
        if path == NATIVE_PATH {
            return Accelerator::cpu();
        }
        let inst = instance()?;
        let phys = physical_devices(&inst)?;
        match phys.iter().find(|p| p.path() == path) {
            Some(p) => device_for(&inst, p),
            None => Err(Error::DeviceNotFound {
                name: path.to_owned(),
                available: phys
                    .iter()
                    .map(|p| p.path())
                    .chain([NATIVE_PATH.to_owned()])
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }

    /// A longer description: for a Vulkan device its name, the kind of device, its Vulkan
    /// version and its vendor and device ids, for example
    /// `llvmpipe (LLVM 15.0.6, 256 bits) (CPU device, Vulkan 1.3.238, vendor 0x10005, device 0x0000)`;
    /// for the native CPU accelerator its thread count and the host's architecture.
    pub fn description(&self) -> &str {
        match &self.backend {
            Backend::Vulkan(d) => &d.description,
            Backend::Native(n) => n.description(),
        }
    }

    /// A string that identifies the device in this system: `cpu` for the native CPU
    /// accelerator; `vulkan:<index>:<name>` for a Vulkan device, where `<index>` is its
    /// position in Vulkan's device enumeration and `<name>` its [`name`](Self::name), for
    /// example `vulkan:0:llvmpipe (LLVM 15.0.6, 256 bits)`. It stays the same across runs
    /// while the installed drivers and devices do; [`Accelerator::from_path`] and `AMP_DEVICE`
    /// accept it.
    pub fn device_path(&self) -> &str {
        match &self.backend {
            Backend::Vulkan(d) => &d.device_path,
            Backend::Native(_) => NATIVE_PATH,
        }
    }

    /// Bytes of device-local memory (the sum of the device-local memory heaps). On a CPU
    /// device or an integrated GPU this is system memory the driver sets aside or shares; the
    /// native CPU accelerator has none of its own and reports 0, as C++ AMP's CPU accelerator.
    pub fn dedicated_memory(&self) -> u64 {
        match &self.backend {
            Backend::Vulkan(d) => d.memory().device_local_bytes(),
            Backend::Native(_) => 0,
        }
    }

    /// Whether the device runs on the CPU rather than a GPU: a [`DeviceType::Cpu`] device such
    /// as Mesa's lavapipe or the native CPU accelerator (as C++ AMP's WARP and reference
    /// accelerators are).
    pub fn is_emulated(&self) -> bool {
        self.device_type() == DeviceType::Cpu
    }

    /// Whether `amp::copy` copies `bytes` between two arrays on this device with a kernel
    /// rather than the driver's copy ([`DeviceCopy`], decided when the device is made: GPUs and
    /// the simulated discrete GPU are GPUs). Never on the native CPU accelerator, whose arrays
    /// are host memory.
    ///
    /// [`DeviceCopy`]: crate::DeviceCopy
    #[doc(hidden)]
    pub fn __copies_by_kernel(&self, bytes: u64) -> bool {
        match &self.backend {
            Backend::Vulkan(d) => bytes > 0 && d.copies_by_kernel(bytes),
            Backend::Native(_) => false,
        }
    }

    /// Whether the host can read and write kernel buffers in place (C++ AMP's
    /// `supports_cpu_shared_memory`): on Vulkan, a device that is not a discrete GPU and has
    /// memory that is device-local, host-visible and coherent (integrated GPUs, lavapipe);
    /// always on the native CPU accelerator. Never on a discrete GPU, whose host-visible device
    /// memory the host reaches over the bus: its arrays stay in device memory and transfers go
    /// through staging buffers.
    pub fn supports_cpu_shared_memory(&self) -> bool {
        match &self.backend {
            Backend::Vulkan(d) => d.memory().shared_memory(),
            Backend::Native(_) => true,
        }
    }

    /// The device's name, as the driver reports it (`native CPU (<n> threads)` for the native
    /// CPU accelerator).
    pub fn name(&self) -> &str {
        match &self.backend {
            Backend::Vulkan(d) => &d.name,
            Backend::Native(n) => n.name(),
        }
    }

    /// The kind of device ([`DeviceType::Cpu`] for the native CPU accelerator).
    pub fn device_type(&self) -> DeviceType {
        match &self.backend {
            Backend::Vulkan(d) => d.device_type,
            Backend::Native(_) => DeviceType::Cpu,
        }
    }

    /// Whether kernels using `f64` can run here (the Vulkan feature `shaderFloat64`; always
    /// on the native CPU accelerator).
    pub fn supports_double_precision(&self) -> bool {
        match &self.backend {
            Backend::Vulkan(d) => d.float64,
            Backend::Native(_) => true,
        }
    }

    /// Runs `f` on the native CPU accelerator's thread pool (`AMP_CPU_THREADS` threads) and
    /// returns what it returns; `None`, without running it, on a Vulkan device. The algorithms'
    /// plain-Rust paths use it (`amp::algorithms`), so their parallel loops share the pool the
    /// accelerator's kernels run on.
    #[doc(hidden)]
    pub fn on_native_pool<R: Send>(&self, f: impl FnOnce() -> R + Send) -> Option<R> {
        match &self.backend {
            Backend::Native(d) => Some(d.pool().install(f)),
            Backend::Vulkan(_) => None,
        }
    }

    /// Whether `f32` denormals are kept exactly, as Rust keeps them: the Vulkan property
    /// `shaderDenormPreserveFloat32`, which amp-rs then asks for (always on the native CPU
    /// accelerator). Where it is `false` a device may flush denormal results to zero (NVIDIA
    /// GPUs do; lavapipe is exact without promising it); see docs/semantics.md.
    pub fn preserves_denormals(&self) -> bool {
        match &self.backend {
            Backend::Vulkan(d) => d.float_controls().preserve_denormals[0],
            Backend::Native(_) => true,
        }
    }

    /// Whether kernels can `atomic_fetch_add` into `f32` elements of views and arrays (the
    /// Vulkan feature `shaderBufferFloat32AtomicAdd` of `VK_EXT_shader_atomic_float`; always on
    /// the native CPU accelerator). Such kernels fail with [`Error::MissingCapability`] where
    /// it is missing.
    pub fn supports_float_atomic_add(&self) -> bool {
        match &self.backend {
            Backend::Vulkan(d) => d.atomic_float32.buffer_add,
            Backend::Native(_) => true,
        }
    }

    /// The device's compute limits, among them the most threads in a tile
    /// ([`Limits::max_tile_threads`]) and bytes of `tile_static` memory
    /// ([`Limits::max_tile_static_bytes`]). The native CPU accelerator has the limits kernels
    /// are compiled against (1,024 threads per tile, 32 KiB of `tile_static` memory) and no
    /// images.
    pub fn limits(&self) -> Limits {
        match &self.backend {
            Backend::Vulkan(d) => d.limits,
            Backend::Native(_) => Limits::native(),
        }
    }

    /// How simple kernels are dispatched on this Vulkan device: threads per workgroup and
    /// indices per thread (`AMP_WORKGROUP_SIZE`, `AMP_ITEMS_PER_THREAD`); `None` on the native
    /// CPU accelerator, which runs batches of threads of its own size.
    pub fn launch_shape(&self) -> Option<LaunchShape> {
        match &self.backend {
            Backend::Vulkan(d) => Some(d.launch_shape()),
            Backend::Native(_) => None,
        }
    }

    /// The launch shapes the autotuner chose (or is choosing) for simple kernels here, by
    /// kernel and size class, with the time of each shape it tried; empty on the native CPU
    /// accelerator (it has no launch shapes) and where tuning is off (`AMP_AUTOTUNE=0`, a CPU
    /// device without `AMP_AUTOTUNE=1`, or a shape set by `AMP_WORKGROUP_SIZE` or
    /// `AMP_ITEMS_PER_THREAD`). The policy and its cost are
    /// in docs/performance.md ("Autotuned launch shapes").
    pub fn tuned_shapes(&self) -> Vec<super::TunedShape> {
        match &self.backend {
            Backend::Vulkan(d) => d.tuner().report(),
            Backend::Native(_) => Vec::new(),
        }
    }

    /// Whether the Vulkan validation layer is active for this device (never for the native
    /// CPU accelerator).
    pub fn validation_enabled(&self) -> bool {
        match &self.backend {
            Backend::Vulkan(d) => d.instance.validation,
            Backend::Native(_) => false,
        }
    }
}

/// The accelerator `AMP_DEVICE=want` names.
fn named(want: &str) -> Result<Accelerator, Error> {
    if want == NATIVE_PATH {
        return Accelerator::cpu();
    }
    let inst = instance()?;
    let mut phys = physical_devices(&inst)?;
    if want.eq_ignore_ascii_case("vulkan") {
        phys.sort_by_key(|p| p.device_type.preference());
        return match phys.first() {
            Some(p) => device_for(&inst, p),
            None => Err(Error::NoDevice),
        };
    }
    let chosen = find_named(&mut phys, want)?;
    device_for(&inst, &chosen)
}

/// The default without `AMP_DEVICE`: a GPU, else the native CPU accelerator.
fn preferred() -> Result<Accelerator, Error> {
    if let Ok(inst) = instance() {
        if let Ok(mut phys) = physical_devices(&inst) {
            // Stable sort: enumeration order breaks ties.
            phys.sort_by_key(|p| p.device_type.preference());
            if let Some(gpu) = phys.first().filter(|p| p.device_type.is_gpu()) {
                return device_for(&inst, gpu);
            }
        }
    }
    Accelerator::cpu()
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
        query_pools: LIVE_QUERY_POOLS.get(),
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
