//! The memory layer: device buffers ([`Buffer`]) allocated with gpu-allocator or imported
//! from host memory, freed on drop; host-device transfers through mappings or staging
//! buffers, and the per-device pool of staging buffers.
//!
//! Builds on `device`; `data` (arrays and views) builds on it.

mod alloc;
mod host;
mod host_blocks;
mod import;
mod shadow;
mod staging;
mod transfer;

use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::Allocation;

pub(crate) use alloc::force_staging;
pub(crate) use host::{Fill, HostMemory};
pub(crate) use staging::Pooled;

use crate::device::{Device, Pending, Queue};
use crate::sync::Busy;
use crate::Error;
use shadow::Shadow;

/// Where a buffer's memory comes from.
enum Memory {
    /// A sub-allocation of gpu-allocator.
    Allocated(Allocation),
    /// Host memory imported with `VK_EXT_external_memory_host` (owned by a borrowed slice).
    Imported(vk::DeviceMemory),
    /// Already freed (during drop).
    None,
}

/// A buffer and its memory. Frees both on drop. (`pub` in a private module: it appears in
/// the sealed traits of `copy`.)
pub struct Buffer {
    device: Arc<Device>,
    raw: vk::Buffer,
    memory: Memory,
    size: u64,
    /// The memory is mapped and coherent: the host copies through the mapping.
    direct: bool,
    /// On the simulated discrete GPU, the host's copy of a mapping it uses (see `shadow.rs`);
    /// only a `direct` buffer has one.
    shadow: Option<Shadow>,
    busy: Arc<Busy>,
    /// The batches that use the buffer and their unreported errors.
    pending: Arc<Pending>,
}

/// A mapped buffer's Vulkan handle and allocation, kept apart from a [`Buffer`] (which holds
/// its device alive) by a pool on that device: see [`Buffer::park`].
pub(super) struct Parked {
    raw: vk::Buffer,
    allocation: Allocation,
    size: u64,
    /// The simulated discrete GPU's host copy of the mapping, kept with it.
    shadow: Option<Shadow>,
}

impl Parked {
    /// Size in bytes.
    pub(super) fn size(&self) -> u64 {
        self.size
    }

    /// Frees the handle and the allocation.
    ///
    /// # Safety
    /// No device work may use the buffer.
    pub(super) unsafe fn destroy(self, device: &Device) {
        // SAFETY: per the function's contract.
        unsafe { device.vk().destroy_buffer(self.raw, None) };
        if let Some(alloc) = device.allocator().as_mut() {
            let _ = alloc.free(self.allocation);
        }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // Batches that use the buffer hold it (an `Arc`), so they have finished by now; only
        // a transfer whose wait timed out can still run (it holds its staging buffer, not
        // this one).
        self.busy.wait_idle();
        let _ = self.pending.wait(&self.device, None, true, false);
        // SAFETY: no device work uses the buffer any more.
        unsafe { self.device.vk().destroy_buffer(self.raw, None) };
        match std::mem::replace(&mut self.memory, Memory::None) {
            Memory::Allocated(a) => {
                if let Some(alloc) = self.device.allocator().as_mut() {
                    let _ = alloc.free(a);
                }
            }
            // SAFETY: the buffer bound to it was destroyed above.
            Memory::Imported(m) => unsafe { self.device.vk().free_memory(m, None) },
            Memory::None => {}
        }
    }
}

impl Buffer {
    /// The buffer's handle and allocation, handed over instead of freed, for a pool that
    /// reuses them; `None` (the buffer dropped) for a buffer that has no allocation of its own
    /// (imported). Its device work must be over, as for a drop.
    pub(super) fn park(self) -> Option<Parked> {
        if !matches!(self.memory, Memory::Allocated(_)) {
            return None;
        }
        let mut buffer = std::mem::ManuallyDrop::new(self);
        let Memory::Allocated(allocation) = std::mem::replace(&mut buffer.memory, Memory::None)
        else {
            unreachable!("checked above")
        };
        let parked = Parked {
            raw: buffer.raw,
            allocation,
            size: buffer.size,
            shadow: buffer.shadow.take(),
        };
        // The Arcs are the only fields left owning anything (the shadow was taken); the
        // handle lives on in `parked`.
        // SAFETY: `buffer` is never used again, and its drop does not run.
        unsafe {
            std::ptr::drop_in_place(&mut buffer.device);
            std::ptr::drop_in_place(&mut buffer.busy);
            std::ptr::drop_in_place(&mut buffer.pending);
        }
        Some(parked)
    }

    /// A buffer on `device` from parts [`park`](Self::park) kept (mapped, as every staging
    /// allocation is).
    pub(super) fn unpark(device: &Arc<Device>, parked: Parked) -> Buffer {
        Buffer {
            device: device.clone(),
            raw: parked.raw,
            memory: Memory::Allocated(parked.allocation),
            size: parked.size,
            direct: true,
            // A buffer on a new loan starts poisoned again (its bytes are undefined).
            shadow: parked.shadow.map(Shadow::poisoned),
            busy: Arc::default(),
            pending: Arc::default(),
        }
    }

    /// The Vulkan handle.
    pub(crate) fn raw(&self) -> vk::Buffer {
        self.raw
    }

    /// The device this buffer lives on.
    pub(crate) fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// The whole buffer as a descriptor range.
    pub(crate) fn whole(&self) -> vk::DescriptorBufferInfo {
        vk::DescriptorBufferInfo {
            buffer: self.raw,
            offset: 0,
            range: vk::WHOLE_SIZE,
        }
    }

    /// Size in bytes.
    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// Blocks until no background transfer and no device work uses the buffer (submitting
    /// the work recorded but not yet submitted), before the host touches its memory: at most
    /// the timeout of each view whose work uses it. Returns the first unreported device
    /// error of that work (an out-of-bounds access of a kernel, a lost device).
    pub(crate) fn wait_idle(&self) -> Result<(), Error> {
        self.busy.wait_idle();
        self.pending.wait(&self.device, None, false, true)
    }

    /// As [`wait_idle`](Self::wait_idle) for device work only (not background transfers:
    /// the transfers themselves use this).
    pub(crate) fn wait_device_work(&self) -> Result<(), Error> {
        self.pending.wait(&self.device, None, false, true)
    }

    /// As [`wait_idle`](Self::wait_idle), without a limit and leaving errors to be reported
    /// by others (for drops).
    pub(crate) fn settle(&self) {
        self.busy.wait_idle();
        let _ = self.pending.wait(&self.device, None, true, false);
    }

    /// Before a launch on `queue` uses the buffer: waits for the work of other views that
    /// uses it (work on `queue` itself is ordered by the queue), leaving errors unreported.
    pub(crate) fn wait_for_other_views(&self, queue: &Arc<Queue>) -> Result<(), Error> {
        self.busy.wait_idle();
        self.flush_host_writes();
        self.pending.wait(&self.device, Some(queue), false, false)
    }

    /// The batches that use the buffer.
    pub(crate) fn pending(&self) -> &Arc<Pending> {
        &self.pending
    }

    /// The background-transfer counter of this buffer.
    pub(crate) fn busy(&self) -> &Arc<Busy> {
        &self.busy
    }

    /// The device memory's own mapping.
    fn mapping(&self) -> Option<*mut u8> {
        match &self.memory {
            Memory::Allocated(a) => a.mapped_ptr().map(|p| p.as_ptr().cast::<u8>()),
            _ => None,
        }
    }

    /// Where the host reads and writes the mapped memory: the mapping, or its shadow on the
    /// simulated discrete GPU (then [`flush`](Self::flush) and
    /// [`invalidate`](Self::invalidate) move the bytes).
    pub(super) fn mapped(&self) -> Option<*mut u8> {
        let mapping = self.mapping()?;
        Some(self.shadow.as_ref().map_or(mapping, Shadow::ptr))
    }

    /// Makes the host's writes to bytes `[at, at + len)` of the mapping visible to the device
    /// (a no-op on coherent memory, which is all gpu-allocator hands out; the simulated
    /// discrete GPU copies its shadow). The caller has waited for the device's work on the
    /// buffer and holds the borrow that excludes other host access.
    pub(super) fn flush(&self, at: u64, len: u64) {
        if let (Some(shadow), Some(mapping)) = (&self.shadow, self.mapping()) {
            // SAFETY: per the function's contract nothing else touches either copy.
            unsafe { shadow.flush(mapping, at as usize, len as usize) };
        }
    }

    /// Makes the device's writes to bytes `[at, at + len)` visible to the host: the other
    /// direction of [`flush`](Self::flush), with its contract.
    pub(super) fn invalidate(&self, at: u64, len: u64) {
        if let (Some(shadow), Some(mapping)) = (&self.shadow, self.mapping()) {
            // SAFETY: per the function's contract nothing else touches either copy.
            unsafe { shadow.invalidate(mapping, at as usize, len as usize) };
        }
    }

    /// Before device work that uses the buffer is recorded: flushes host writes made through
    /// a slice [`host_ptr`](Self::host_ptr) handed out.
    pub(crate) fn flush_host_writes(&self) {
        if let (Some(shadow), Some(mapping)) = (&self.shadow, self.mapping()) {
            // SAFETY: host access through the handed-out slice has ended (its borrow of the
            // array is needed by the launch or copy that calls this).
            unsafe { shadow.flush_if_dirty(mapping) };
        }
    }

    /// The host address of the buffer's memory when the host may read and write it directly
    /// (mapped and coherent, and not forced to staging copies), for a slice the caller hands
    /// out. Waits for the device work that uses the buffer first (see
    /// [`wait_idle`](Self::wait_idle)) and makes its writes visible; host writes through the
    /// address are flushed before the next device work ([`flush_host_writes`](Self::flush_host_writes)).
    pub(crate) fn host_ptr(&self) -> Result<Option<*mut u8>, Error> {
        if !self.direct {
            return Ok(None);
        }
        self.wait_idle()?;
        self.flush_host_writes();
        self.invalidate(0, self.size);
        if let Some(shadow) = &self.shadow {
            shadow.mark_dirty();
        }
        Ok(self.mapped())
    }

    /// Where the host reads and writes the memory directly, for the transfers of this layer,
    /// which flush and invalidate what they touch; the caller has waited for the buffer's
    /// device work.
    fn direct_ptr(&self) -> Option<*mut u8> {
        if self.direct {
            self.flush_host_writes();
            self.mapped()
        } else {
            None
        }
    }

    /// Whether the host reads and writes the memory directly (see [`host_ptr`](Self::host_ptr)).
    pub(crate) fn is_direct(&self) -> bool {
        self.direct && self.mapped().is_some()
    }
}
