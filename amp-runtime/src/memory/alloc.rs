//! Allocating device buffers: storage buffers in device-local or host-visible memory, and
//! staging buffers.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::{AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use super::shadow::Shadow;
use super::{Buffer, Memory};
use crate::device::Device;
use crate::Error;

/// 0: not read yet, 1: direct mapped access allowed, 2: always use staging buffers.
static STAGING_MODE: AtomicU8 = AtomicU8::new(0);

/// Whether `AMP_FORCE_STAGING=1` asks to copy through staging buffers even when device memory
/// is host-visible (to test the path discrete GPUs take).
pub(crate) fn force_staging() -> bool {
    match STAGING_MODE.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            let force = crate::config::validated_flag("AMP_FORCE_STAGING");
            STAGING_MODE.store(if force { 2 } else { 1 }, Ordering::Relaxed);
            force
        }
    }
}

impl Buffer {
    /// A buffer of `size` bytes (not initialised) in `location`.
    pub(super) fn with_location(
        device: &Arc<Device>,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
    ) -> Result<Buffer, Error> {
        crate::fault::check(crate::fault::BUFFER_ALLOC, || Error::OutOfDeviceMemory)?;
        let d = device.vk();
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create info on a live device.
        let raw = unsafe { d.create_buffer(&info, None) }.map_err(Error::vk("vkCreateBuffer"))?;
        // SAFETY: `raw` is a live buffer.
        let requirements = unsafe { d.get_buffer_memory_requirements(raw) };
        let allocation = {
            let mut guard = device.allocator();
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
        // The host never uses the mapping of memory asked for as device-local when it copies
        // through staging buffers anyway (a discrete GPU, simulated or forced).
        let hidden = location == MemoryLocation::GpuOnly
            && (force_staging() || !device.memory().shared_memory());
        let direct = !hidden
            && allocation.mapped_ptr().is_some()
            && allocation
                .memory_properties()
                .contains(vk::MemoryPropertyFlags::HOST_COHERENT);
        // SAFETY: the memory handle is only used to bind this buffer, while the allocation
        // lives.
        let (memory, offset) = (unsafe { allocation.memory() }, allocation.offset());
        let buffer = Buffer {
            device: device.clone(),
            raw,
            memory: Memory::Allocated(allocation),
            size,
            direct,
            shadow: (direct && device.memory().simulated).then(|| Shadow::new(size as usize)),
            busy: Arc::default(),
            pending: Arc::default(),
        };
        // SAFETY: the memory comes from the allocator with the buffer's requirements.
        unsafe { d.bind_buffer_memory(raw, memory, offset) }
            .map_err(Error::vk("vkBindBufferMemory"))?;
        Ok(buffer)
    }

    /// A device-local storage buffer of `size` bytes (contents undefined).
    pub(crate) fn storage(device: &Arc<Device>, size: u64) -> Result<Buffer, Error> {
        Buffer::storage_in(device, size, MemoryLocation::GpuOnly)
    }

    /// A storage buffer of `size` bytes (contents undefined) in `location`: device-local
    /// memory (`GpuOnly`), or host-visible memory the host reads (`GpuToCpu`) or writes
    /// (`CpuToGpu`) directly.
    pub(crate) fn storage_in(
        device: &Arc<Device>,
        size: u64,
        location: MemoryLocation,
    ) -> Result<Buffer, Error> {
        check_storage_size(device, size)?;
        // Vulkan has no empty buffers; an empty array or view binds a 4-byte one that no
        // checked access reaches (its extent, not the buffer, bounds every index).
        Buffer::with_location(
            device,
            size.max(4),
            vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST,
            location,
        )
    }

    /// A host-visible transfer buffer of `size` bytes (contents undefined): `CpuToGpu` for
    /// uploads, `GpuToCpu` for downloads.
    pub(crate) fn staging(
        device: &Arc<Device>,
        size: u64,
        location: MemoryLocation,
    ) -> Result<Buffer, Error> {
        let b = Buffer::with_location(
            device,
            size.max(4),
            vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
            location,
        )?;
        if !b.direct {
            return Err(Error::Allocation(
                "staging memory is not host-visible and coherent".into(),
            ));
        }
        Ok(b)
    }
}

/// Checks `size` against the device's `maxStorageBufferRange`.
pub(super) fn check_storage_size(device: &Device, size: u64) -> Result<(), Error> {
    let range = u64::from(device.limits().max_storage_buffer_range);
    if size > range {
        return Err(Error::ExtentTooLarge {
            what: "the buffer size in bytes (maxStorageBufferRange)",
            value: size,
            limit: range,
        });
    }
    Ok(())
}
