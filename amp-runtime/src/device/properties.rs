//! What a device is and can do: [`DeviceType`] and the compute [`Limits`].

use ash::vk;

/// The kind of a device, in the order `AMP_DEVICE=vulkan` prefers them. Without `AMP_DEVICE`,
/// [`Accelerator::default`](crate::Accelerator::default) takes only the three GPU kinds, in this
/// order, and else the native CPU accelerator.
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
    pub(super) fn from_vk(t: vk::PhysicalDeviceType) -> Self {
        match t {
            vk::PhysicalDeviceType::DISCRETE_GPU => DeviceType::DiscreteGpu,
            vk::PhysicalDeviceType::INTEGRATED_GPU => DeviceType::IntegratedGpu,
            vk::PhysicalDeviceType::VIRTUAL_GPU => DeviceType::VirtualGpu,
            vk::PhysicalDeviceType::CPU => DeviceType::Cpu,
            _ => DeviceType::Other,
        }
    }

    /// A discrete, integrated or virtual GPU.
    pub(super) fn is_gpu(self) -> bool {
        matches!(
            self,
            DeviceType::DiscreteGpu | DeviceType::IntegratedGpu | DeviceType::VirtualGpu
        )
    }

    pub(super) fn preference(self) -> u32 {
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
    /// Largest storage buffer a kernel can bind, in bytes (`maxStorageBufferRange`). The
    /// native CPU accelerator reports `u32::MAX`, the most a Vulkan device can; its arrays are
    /// host memory, which only the host's memory bounds.
    pub max_storage_buffer_range: u32,
    /// Largest single memory allocation, in bytes (`maxMemoryAllocationSize`).
    pub max_memory_allocation_size: u64,
    /// Largest texture dimension for ranks 1, 2 and 3 (`maxImageDimension1D`, `2D`, `3D`).
    pub max_image_dimension: [u32; 3],
    /// Lanes per subgroup (`subgroupSize`): the `size()` of `t.subgroup()` in kernels. The
    /// native CPU accelerator's subgroups have 32 lanes.
    pub subgroup_size: u32,
    /// Most loop iterations a group of threads runs before the device leaves the loop it is in
    /// by itself, without an error, counted over every loop of the kernel (lavapipe:
    /// 65,535); `None` where loops run to their end. amp-rs watches the loops of kernels that
    /// could reach it and returns [`Error::LoopLimit`](crate::Error::LoopLimit) instead of
    /// their wrong results.
    pub max_loop_iterations: Option<u32>,
    /// Whether the device's own `f32` division and square root are correctly rounded, as
    /// Rust's are (lavapipe: LLVM's IEEE operations; the native accelerator: Rust's). Where
    /// they may not be (Vulkan allows 2.5 ULP), kernels check each result and correct it;
    /// where they are, the check is left out of the pipeline.
    pub rounds_f32_exactly: bool,
}

/// Whether the device named `name` rounds `f32` division and square root correctly: lavapipe
/// (`llvmpipe (LLVM ...)`), whose `OpFDiv` and `Sqrt` are LLVM's IEEE `fdiv` and `llvm.sqrt`
/// (the exactness tests run there with and without the checks). Every other device is checked.
pub(crate) fn rounds_f32_exactly(name: &str) -> bool {
    name.starts_with("llvmpipe")
}

/// Whether kernels' memory fences become atomic additions of 0 on the device named `name`
/// ([`amp_abi::spec_id::FENCES_AS_ATOMICS`]): lavapipe (`llvmpipe (LLVM ...)`), where an
/// `OpMemoryBarrier` inside a loop entered by part of a workgroup ends the invocations that
/// reach it (Mesa 22.3), and where every atomic is sequentially consistent, so the addition
/// orders memory as the fence would.
pub(crate) fn fences_as_atomics(name: &str) -> bool {
    name.starts_with("llvmpipe")
}

/// lavapipe's (Mesa llvmpipe's) loop limit, `LP_MAX_TGSI_LOOP_ITERATIONS`.
const LLVMPIPE_LOOP_LIMIT: u32 = 65_535;

/// The loop limit of the device named `name`: lavapipe's, which names its devices
/// `llvmpipe (LLVM ...)`; no other Vulkan driver is known to have one.
pub(crate) fn loop_limit(name: &str) -> Option<u32> {
    name.starts_with("llvmpipe").then_some(LLVMPIPE_LOOP_LIMIT)
}

impl Limits {
    /// The native CPU accelerator's limits: those kernels are compiled against (1,024 threads
    /// and 32 KiB of `tile_static` memory per tile, 128 bytes of arguments), no dispatch limit
    /// beyond 32-bit indices, and no images.
    pub(crate) fn native() -> Limits {
        Limits {
            max_workgroup_count: [u32::MAX; 3],
            max_workgroup_size: [1024; 3],
            max_threads_per_workgroup: 1024,
            max_shared_memory_bytes: 32 * 1024,
            max_push_constants_size: 128,
            max_storage_buffer_range: u32::MAX,
            max_memory_allocation_size: isize::MAX as u64,
            max_image_dimension: [0; 3],
            subgroup_size: amp_native_rt::SUBGROUP_SIZE,
            max_loop_iterations: None,
            rounds_f32_exactly: true,
        }
    }

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
