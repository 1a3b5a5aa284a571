//! The launch shape of simple kernels on a Vulkan device: threads per workgroup and indices
//! per thread, chosen once per device from its kind and the settings, and the other shapes
//! the autotuner may try there (`autotune.rs`).

use super::properties::Limits;
use crate::Error;

/// How a Vulkan device runs simple (untiled) kernels compiled by amp-rs: `workgroup_size`
/// threads per workgroup, each running up to `items_per_thread` indices on a grid-stride
/// loop (thread `i` of `n` runs `i`, `i + n`, `i + 2n`, ..., so neighbouring threads touch
/// neighbouring elements on every pass). The results are the same for every shape: a simple
/// kernel's threads do not communicate. Tiled kernels run their tile, one index per thread.
///
/// [`Accelerator::launch_shape`](crate::Accelerator::launch_shape) is the device's default;
/// the autotuner may run a kernel at another
/// ([`Accelerator::tuned_shapes`](crate::Accelerator::tuned_shapes)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchShape {
    /// Threads per workgroup (`AMP_WORKGROUP_SIZE`).
    pub workgroup_size: u32,
    /// Indices each thread runs (`AMP_ITEMS_PER_THREAD`); a device with a loop limit runs
    /// kernels that have loops at one.
    pub items_per_thread: u32,
}

/// Threads per workgroup on GPUs: a multiple of every vendor's SIMD width (32 on NVIDIA, 32
/// or 64 on AMD, 8 to 32 on Intel), with enough warps per workgroup to keep an NVIDIA SM's
/// schedulers fed; the GPU kit's shape experiment measures the others.
const GPU_WORKGROUP_SIZE: u32 = 64 * 4;

/// Threads per workgroup on CPU devices (lavapipe): its 8-lane SIMD groups run a workgroup
/// on one core, and more workgroups than cores keep every core busy on small domains.
const CPU_WORKGROUP_SIZE: u32 = 64;

/// Indices per thread on GPUs: on an NVIDIA H200, 256 threads of 4 indices ran vector add,
/// saxpy and copy of 256M `f32` at 1.3 to 1.4 times the rate of one index per thread, the
/// best of the shapes the GPU kit tried but 8 indices in one row of three (docs/performance.md).
const GPU_ITEMS_PER_THREAD: u32 = 4;

/// Indices per thread on CPU devices: fewer, longer workgroups spend less of lavapipe's time
/// starting them (vector add and copy: 0.7 to 0.8 of the time of one index per thread against
/// the same GLSL kernel in one run, 2 cores; docs/performance.md).
const CPU_ITEMS_PER_THREAD: u32 = 4;

/// The shapes the autotuner tries on GPUs besides the default (threads, indices per thread):
/// twice the indices (the fastest vector add on an H200), one index, half and twice the
/// threads.
const GPU_TRIES: [(u32, u32); 4] = [(256, 8), (256, 1), (128, 4), (512, 4)];

/// The shapes the autotuner tries on CPU devices besides the default: one index per thread
/// and twice the threads (lavapipe ran 16 indices per thread and 32-thread workgroups 1.3 to
/// 1.8 times slower than the default in the benchmark's vector add).
const CPU_TRIES: [(u32, u32); 2] = [(64, 1), (128, 4)];

impl LaunchShape {
    /// The shape of a device: a GPU (or a simulated discrete one: `gpu`) or a CPU device,
    /// with `AMP_WORKGROUP_SIZE` and `AMP_ITEMS_PER_THREAD` over the defaults, and the shapes
    /// the autotuner may try there, that one first (only that one when either setting is
    /// set: a shape set by hand is kept). A workgroup size past the device's limits is cut to
    /// the largest power of two within them.
    pub(crate) fn choose(
        gpu: bool,
        limits: &Limits,
    ) -> Result<(LaunchShape, Vec<LaunchShape>), Error> {
        let (default_size, default_items, tries) = if gpu {
            (GPU_WORKGROUP_SIZE, GPU_ITEMS_PER_THREAD, &GPU_TRIES[..])
        } else {
            (CPU_WORKGROUP_SIZE, CPU_ITEMS_PER_THREAD, &CPU_TRIES[..])
        };
        let size_set = setting("AMP_WORKGROUP_SIZE")?;
        let items_set = setting("AMP_ITEMS_PER_THREAD")?;
        let most = limits
            .max_threads_per_workgroup
            .min(limits.max_workgroup_size[0])
            .max(1);
        let within = |wanted: u32| {
            if wanted <= most {
                wanted
            } else {
                1 << most.ilog2()
            }
        };
        let shape = LaunchShape {
            workgroup_size: within(size_set.unwrap_or(default_size)),
            items_per_thread: items_set.unwrap_or(default_items),
        };
        let mut candidates = vec![shape];
        if size_set.is_none() && items_set.is_none() {
            for &(threads, items) in tries {
                let tried = LaunchShape {
                    workgroup_size: within(threads),
                    items_per_thread: items,
                };
                if !candidates.contains(&tried) {
                    candidates.push(tried);
                }
            }
        }
        Ok((shape, candidates))
    }
}

/// A shape setting's number (its values are the numbers its table lists).
fn setting(name: &'static str) -> Result<Option<u32>, Error> {
    Ok(crate::config::text(name)?.and_then(|v| v.parse().ok()))
}
