//! The simulated discrete GPU (`AMP_SIMULATE_DISCRETE=1`): a Vulkan device whose memory the
//! host shares (lavapipe, an integrated GPU) made to behave, as far as the runtime can see, like
//! a discrete GPU, so the paths a discrete GPU takes are tested where there is none.
//!
//! In this mode, for every Vulkan device:
//! - the device does not share memory with the host ([`supports_cpu_shared_memory`] is false,
//!   `AccessType::Auto` resolves to `None`): arrays live in device memory whose mapping the
//!   runtime never uses, and every transfer goes through staging buffers;
//! - host memory is never imported: views of host slices are copied to the device and back;
//! - every mapping is treated as non-coherent: the host reads and writes a separate copy of the
//!   memory (its *shadow*), which reaches the device only through a flush and is refreshed from
//!   it only through an invalidation, in units of [`NON_COHERENT_ATOM`] bytes; a shadow starts
//!   filled with [`POISON`], so a missing invalidation reads poison and a missing flush leaves
//!   the device with stale bytes;
//! - the limits are those of a discrete GPU where they are stricter than the device's own
//!   ([`simulated_limits`]): a kernel that fits the simulated device fits a real one.
//!
//! [`supports_cpu_shared_memory`]: crate::Accelerator::supports_cpu_shared_memory

use std::sync::OnceLock;

use super::Limits;

/// The granularity of flushes and invalidations of a simulated mapping (NVIDIA's
/// `nonCoherentAtomSize`).
pub(crate) const NON_COHERENT_ATOM: u64 = 64;

/// The byte a fresh shadow holds: host reads of memory never invalidated see it.
pub(crate) const POISON: u8 = 0xA5;

/// `minStorageBufferOffsetAlignment` of the simulated device (NVIDIA's is 16 to 64, AMD's and
/// older devices' 256: the strictest is simulated).
const STORAGE_OFFSET_ALIGNMENT: u64 = 256;

/// Whether `AMP_SIMULATE_DISCRETE` is on (read once per process).
pub(crate) fn simulate_discrete() -> bool {
    static SIMULATE: OnceLock<bool> = OnceLock::new();
    *SIMULATE.get_or_init(|| crate::config::validated_flag("AMP_SIMULATE_DISCRETE"))
}

/// `minStorageBufferOffsetAlignment` as the runtime uses it: the device's, or the simulated
/// discrete GPU's when that is stricter.
pub(crate) fn storage_offset_alignment(device: u64, simulate: bool) -> u64 {
    if simulate {
        device.max(STORAGE_OFFSET_ALIGNMENT)
    } else {
        device
    }
}

/// The limits kernels and launches are checked against: the device's own, or in the simulated
/// mode the stricter of the device's and a discrete GPU's (an NVIDIA H100's: workgroup counts
/// 2^31-1 x 65,535 x 65,535, 48 KiB of shared memory, 256 bytes of push constants). A limit the
/// device itself lacks is never raised: the simulation must still run on the device.
pub(crate) fn simulated_limits(device: Limits) -> Limits {
    const GPU_WORKGROUP_COUNT: [u32; 3] = [(1 << 31) - 1, 65_535, 65_535];
    const GPU_SHARED_MEMORY: u32 = 48 * 1024;
    const GPU_PUSH_CONSTANTS: u32 = 256;
    let mut limits = device;
    for (limit, gpu) in limits
        .max_workgroup_count
        .iter_mut()
        .zip(GPU_WORKGROUP_COUNT)
    {
        *limit = (*limit).min(gpu);
    }
    limits.max_shared_memory_bytes = limits.max_shared_memory_bytes.min(GPU_SHARED_MEMORY);
    limits.max_push_constants_size = limits.max_push_constants_size.min(GPU_PUSH_CONSTANTS);
    limits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulated_limits_never_exceed_the_device_or_a_discrete_gpu() {
        let mut big = Limits::native();
        big.max_workgroup_count = [u32::MAX; 3];
        big.max_shared_memory_bytes = 64 * 1024;
        big.max_push_constants_size = 4096;
        let s = simulated_limits(big);
        assert_eq!(s.max_workgroup_count, [(1 << 31) - 1, 65_535, 65_535]);
        assert_eq!(s.max_shared_memory_bytes, 48 * 1024);
        assert_eq!(s.max_push_constants_size, 256);
        // lavapipe's own limits are lower: they stay.
        let mut small = Limits::native();
        small.max_workgroup_count = [65_535; 3];
        small.max_shared_memory_bytes = 32 * 1024;
        small.max_push_constants_size = 128;
        assert_eq!(simulated_limits(small), small);
    }

    #[test]
    fn the_simulated_offset_alignment_is_the_stricter() {
        assert_eq!(storage_offset_alignment(16, true), 256);
        assert_eq!(storage_offset_alignment(512, true), 512);
        assert_eq!(storage_offset_alignment(16, false), 16);
    }
}
