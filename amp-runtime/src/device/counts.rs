//! Process-wide counters of live Vulkan objects, for leak checks ([`ObjectCounts`], read by
//! [`live_object_counts`](super::live_object_counts)).

use std::sync::atomic::{AtomicUsize, Ordering};

/// A counter of live Vulkan objects of one kind.
pub(crate) struct Counted(AtomicUsize);

impl Counted {
    const fn new() -> Self {
        Counted(AtomicUsize::new(0))
    }

    pub(crate) fn created(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn destroyed(&self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }

    pub(super) fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}

/// Compute pipelines (cached ones and those of [`RawKernel`](crate::RawKernel)s).
pub(crate) static LIVE_PIPELINES: Counted = Counted::new();
/// Command pools with their command buffer and fence (one per accelerator view).
pub(crate) static LIVE_SUBMITTERS: Counted = Counted::new();
/// Descriptor pools.
pub(crate) static LIVE_DESCRIPTOR_POOLS: Counted = Counted::new();
/// Timestamp query pools (of views that time their launches).
pub(crate) static LIVE_QUERY_POOLS: Counted = Counted::new();

/// How many Vulkan objects of each kind the runtime holds right now, over all accelerators.
///
/// For leak checks: after warm-up, a loop of launches with fresh views must leave every count
/// where it was (pipelines grow only with new kernels or specializations).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ObjectCounts {
    /// Logical devices (one per accelerator in use).
    pub devices: usize,
    /// Live memory allocations: one per device buffer (view copies, arrays, staging buffers).
    pub allocations: usize,
    /// Device memory blocks the allocator holds (allocations are carved out of them).
    pub memory_blocks: usize,
    /// Bytes of device memory the allocator holds.
    pub memory_bytes: u64,
    /// Compute pipelines.
    pub pipelines: usize,
    /// Command pools, each with one command buffer and one fence (one per accelerator view).
    pub command_pools: usize,
    /// Descriptor pools.
    pub descriptor_pools: usize,
    /// Timestamp query pools: made only for views that time their launches
    /// ([`AcceleratorView::set_profiling`](crate::AcceleratorView::set_profiling)), and
    /// reused by their later batches.
    pub query_pools: usize,
}
