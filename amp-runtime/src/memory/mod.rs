//! The memory layer: device buffers ([`Buffer`]) allocated with gpu-allocator or imported
//! from host memory, freed on drop; host-device transfers through mappings or staging
//! buffers, and the per-device pool of staging buffers.
//!
//! Builds on `device`; `data` (arrays and views) builds on it.

mod alloc;
mod import;
mod staging;
mod transfer;

use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::Allocation;

pub(crate) use alloc::force_staging;

use crate::device::Device;
use crate::sync::Busy;

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
    busy: Arc<Busy>,
}

/// A mapped buffer's Vulkan handle and allocation, kept apart from a [`Buffer`] (which holds
/// its device alive) by a pool on that device: see [`Buffer::park`].
pub(super) struct Parked {
    raw: vk::Buffer,
    allocation: Allocation,
    size: u64,
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
        self.wait_unused();
        // Before the handle is freed for reuse: recorded launches that bind it are stale now.
        self.device.note_buffer_destroyed();
        // SAFETY: every submission that used the buffer was waited for.
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
    /// reuses them; `Err` gives back a buffer that has no allocation of its own (imported).
    /// Its device work must be over, as for a drop.
    pub(super) fn park(self) -> Result<Parked, Buffer> {
        if !matches!(self.memory, Memory::Allocated(_)) {
            return Err(self);
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
        };
        // The Arcs are the only fields left owning anything; the handle lives on in `parked`.
        // SAFETY: `buffer` is never used again, and its drop does not run.
        unsafe {
            std::ptr::drop_in_place(&mut buffer.device);
            std::ptr::drop_in_place(&mut buffer.busy);
        }
        Ok(parked)
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
            busy: Arc::default(),
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

    /// Blocks until no background transfer and no abandoned device work (a submission whose
    /// wait timed out, see [`Device::wait_for_abandoned_work`]) may use the buffer: before the
    /// host touches its memory or frees it.
    pub(super) fn wait_unused(&self) {
        self.busy.wait_idle();
        self.device.wait_for_abandoned_work();
    }

    /// The background-transfer counter of this buffer.
    pub(crate) fn busy(&self) -> &Arc<Busy> {
        &self.busy
    }

    pub(super) fn mapped(&self) -> Option<*mut u8> {
        match &self.memory {
            Memory::Allocated(a) => a.mapped_ptr().map(|p| p.as_ptr().cast::<u8>()),
            _ => None,
        }
    }

    /// The host address of the buffer's memory when the host may read and write it directly
    /// (mapped and coherent, and not forced to staging copies).
    pub(crate) fn host_ptr(&self) -> Option<*mut u8> {
        if self.direct {
            self.wait_unused();
            self.mapped()
        } else {
            None
        }
    }
}
