//! Device buffers: storage buffers allocated with gpu-allocator, freed on drop.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use crate::accelerator::{lock, DeviceShared};
use crate::Error;

/// 0: not read yet, 1: direct mapped access allowed, 2: always use staging buffers.
static STAGING_MODE: AtomicU8 = AtomicU8::new(0);

/// Whether `AMP_FORCE_STAGING=1` asks to copy through staging buffers even when device memory
/// is host-visible (to test the path discrete GPUs take).
fn force_staging() -> bool {
    match STAGING_MODE.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            let force = std::env::var("AMP_FORCE_STAGING")
                .map(|v| v == "1")
                .unwrap_or(false);
            STAGING_MODE.store(if force { 2 } else { 1 }, Ordering::Relaxed);
            force
        }
    }
}

/// A buffer and its memory. Frees both on drop.
pub(crate) struct Buffer {
    device: Arc<DeviceShared>,
    raw: vk::Buffer,
    allocation: Option<Allocation>,
    size: u64,
    /// The memory is mapped and coherent: the host copies through the mapping.
    direct: bool,
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: every submission that used the buffer was waited for.
        unsafe { self.device.device.destroy_buffer(self.raw, None) };
        if let Some(a) = self.allocation.take() {
            if let Some(alloc) = lock(&self.device.allocator).as_mut() {
                let _ = alloc.free(a);
            }
        }
    }
}

impl Buffer {
    /// A buffer of `size` bytes (not initialised) in `location`.
    fn with_location(
        device: &Arc<DeviceShared>,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
    ) -> Result<Buffer, Error> {
        let d = &device.device;
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create info on a live device.
        let raw = unsafe { d.create_buffer(&info, None) }.map_err(Error::vk("vkCreateBuffer"))?;
        // SAFETY: `raw` is a live buffer.
        let requirements = unsafe { d.get_buffer_memory_requirements(raw) };
        let allocation = {
            let mut guard = lock(&device.allocator);
            let result = match guard.as_mut() {
                Some(alloc) => alloc
                    .allocate(&AllocationCreateDesc {
                        name: "amp buffer",
                        requirements,
                        location,
                        linear: true,
                        allocation_scheme: AllocationScheme::GpuAllocatorManaged,
                    })
                    .map_err(Error::from),
                None => Err(Error::Allocation("the device is shutting down".into())),
            };
            match result {
                Ok(a) => a,
                Err(e) => {
                    // SAFETY: not bound, not in use.
                    unsafe { d.destroy_buffer(raw, None) };
                    return Err(e);
                }
            }
        };
        let direct = allocation.mapped_ptr().is_some()
            && allocation
                .memory_properties()
                .contains(vk::MemoryPropertyFlags::HOST_COHERENT);
        let buffer = Buffer {
            device: device.clone(),
            raw,
            allocation: Some(allocation),
            size,
            direct,
        };
        let a = buffer.allocation.as_ref().expect("just set");
        // SAFETY: the memory comes from the allocator with the buffer's requirements.
        unsafe { d.bind_buffer_memory(raw, a.memory(), a.offset()) }
            .map_err(Error::vk("vkBindBufferMemory"))?;
        Ok(buffer)
    }

    /// A device-local storage buffer of `size` bytes (contents undefined).
    pub(crate) fn storage(device: &Arc<DeviceShared>, size: u64) -> Result<Buffer, Error> {
        let range = u64::from(device.limits.max_storage_buffer_range);
        if size > range {
            return Err(Error::ExtentTooLarge {
                what: "the buffer size in bytes (maxStorageBufferRange)",
                value: size,
                limit: range,
            });
        }
        let mut b = Buffer::with_location(
            device,
            size,
            vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuOnly,
        )?;
        if force_staging() {
            b.direct = false;
        }
        Ok(b)
    }

    /// A small storage buffer of `size` bytes in host-visible memory (contents undefined), for
    /// data the host writes before a launch and reads after it without copies.
    pub(crate) fn host_visible_storage(
        device: &Arc<DeviceShared>,
        size: u64,
    ) -> Result<Buffer, Error> {
        Buffer::with_location(
            device,
            size,
            vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )
    }

    /// The Vulkan handle.
    pub(crate) fn raw(&self) -> vk::Buffer {
        self.raw
    }

    /// The device this buffer lives on.
    pub(crate) fn device(&self) -> &Arc<DeviceShared> {
        &self.device
    }

    fn mapped(&self) -> Option<*mut u8> {
        self.allocation
            .as_ref()
            .and_then(|a| a.mapped_ptr())
            .map(|p| p.as_ptr().cast::<u8>())
    }

    /// Copies `data` to the start of the buffer.
    pub(crate) fn write(&mut self, data: &[u8]) -> Result<(), Error> {
        let len = data.len().min(self.size as usize);
        if self.direct {
            if let Some(p) = self.mapped() {
                // SAFETY: the mapping covers `size` bytes; no device work uses the buffer now
                // (every submission is waited for, and `&mut self` excludes other host access).
                // Host writes are made visible to the device by the next queue submission.
                unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, len) };
                return Ok(());
            }
        }
        let mut staging = Buffer::with_location(
            &self.device,
            len as u64,
            vk::BufferUsageFlags::TRANSFER_SRC,
            MemoryLocation::CpuToGpu,
        )?;
        let p = staging
            .mapped()
            .ok_or_else(|| Error::Allocation("staging memory is not host-visible".into()))?;
        // SAFETY: the staging buffer is mapped, `len` bytes long and not in use.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, len) };
        staging.direct = true;
        let (src, dst) = (staging.raw, self.raw);
        self.device.submit(|d, s| {
            let region = vk::BufferCopy::default().size(len as u64);
            // SAFETY: both buffers are live and large enough.
            unsafe { d.cmd_copy_buffer(s.cmd, src, dst, &[region]) };
            Ok(())
        })
    }

    /// Copies the start of the buffer into `out`.
    pub(crate) fn read(&self, out: &mut [u8]) -> Result<(), Error> {
        let len = out.len().min(self.size as usize);
        if self.direct {
            if let Some(p) = self.mapped() {
                // SAFETY: the mapping covers `size` bytes; device writes were made visible to
                // the host by the barrier and fence wait ending every submission.
                unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), len) };
                return Ok(());
            }
        }
        let staging = Buffer::with_location(
            &self.device,
            len as u64,
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )?;
        let p = staging
            .mapped()
            .ok_or_else(|| Error::Allocation("staging memory is not host-visible".into()))?;
        let (src, dst) = (self.raw, staging.raw);
        self.device.submit(|d, s| {
            let region = vk::BufferCopy::default().size(len as u64);
            // SAFETY: both buffers are live and large enough.
            unsafe { d.cmd_copy_buffer(s.cmd, src, dst, &[region]) };
            Ok(())
        })?;
        // SAFETY: the copy finished and was made visible to the host.
        unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), len) };
        Ok(())
    }

    /// Fills the buffer with zero bytes.
    pub(crate) fn zero(&mut self) -> Result<(), Error> {
        if self.direct {
            if let Some(p) = self.mapped() {
                // SAFETY: as in `write`.
                unsafe { std::ptr::write_bytes(p, 0, self.size as usize) };
                return Ok(());
            }
        }
        let dst = self.raw;
        self.device.submit(|d, s| {
            // SAFETY: live buffer with TRANSFER_DST usage.
            unsafe { d.cmd_fill_buffer(s.cmd, dst, 0, vk::WHOLE_SIZE, 0) };
            Ok(())
        })
    }

    /// A new buffer on the same device with a copy of this one's contents.
    pub(crate) fn try_clone(&self) -> Result<Buffer, Error> {
        let mut copy = Buffer::storage(&self.device, self.size)?;
        if self.direct && copy.direct {
            if let (Some(src), Some(dst)) = (self.mapped(), copy.mapped()) {
                // SAFETY: both mappings cover `size` bytes; neither buffer is in device use.
                unsafe { std::ptr::copy_nonoverlapping(src, dst, self.size as usize) };
                copy.direct = true;
                return Ok(copy);
            }
        }
        let (src, dst, size) = (self.raw, copy.raw, self.size);
        self.device.submit(|d, s| {
            let region = vk::BufferCopy::default().size(size);
            // SAFETY: both buffers are live and `size` bytes long.
            unsafe { d.cmd_copy_buffer(s.cmd, src, dst, &[region]) };
            Ok(())
        })?;
        Ok(copy)
    }
}
