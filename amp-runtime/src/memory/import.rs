//! Importing host memory as a device buffer (`VK_EXT_external_memory_host`): kernels then
//! read and write a host slice in place.

use std::sync::Arc;

use ash::vk;

use super::alloc::{check_storage_size, force_staging};
use super::{Buffer, Memory};
use crate::device::Device;

impl Buffer {
    /// A storage buffer over the host memory `[ptr, ptr + len)` itself, imported with
    /// `VK_EXT_external_memory_host`: kernels read and write the host data with no copy.
    /// Returns the buffer and the byte offset of `ptr` in it, or `None` when the device cannot
    /// import host memory, the user forced staging copies, `ptr` is not a multiple of
    /// `minStorageBufferOffsetAlignment`, or the import failed (the caller copies then).
    ///
    /// The imported memory spans the enclosing pages; the buffer starts at `ptr` rounded down
    /// to the buffer alignment and ends at `ptr + len`. Callers bind the descriptor range
    /// `[offset, offset + len)`, so with robust buffer access a kernel cannot touch a byte
    /// outside the slice.
    ///
    /// # Safety
    /// `[ptr, ptr + len)` must stay allocated (and, if the device writes it, exclusively
    /// borrowed) until the returned buffer is dropped; `ptr` must be 4-byte aligned.
    pub(crate) unsafe fn import_host(
        device: &Arc<Device>,
        ptr: *const u8,
        len: usize,
    ) -> Option<(Buffer, usize)> {
        let align = device.memory().host_import_alignment? as usize;
        let addr = ptr as usize;
        if force_staging()
            || len == 0
            || check_storage_size(device, len as u64).is_err()
            || !(addr as u64).is_multiple_of(device.memory().storage_offset_alignment)
        {
            return None;
        }
        let page_start = addr - addr % align;
        let page_end = (addr + len).div_ceil(align) * align;
        let d = device.vk();
        let handle = vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT;
        let fns = device.host_import_fns();
        let mut host_props = vk::MemoryHostPointerPropertiesEXT::default();
        let r = (fns.fp().get_memory_host_pointer_properties_ext)(
            d.handle(),
            handle,
            page_start as *const std::ffi::c_void,
            &mut host_props,
        );
        if r != vk::Result::SUCCESS {
            return None;
        }
        // The buffer: from the data rounded down to the buffer alignment, to its end.
        let create = |size: u64| {
            let mut external = vk::ExternalMemoryBufferCreateInfo::default().handle_types(handle);
            let info = vk::BufferCreateInfo::default()
                .size(size)
                .usage(
                    vk::BufferUsageFlags::STORAGE_BUFFER
                        | vk::BufferUsageFlags::TRANSFER_SRC
                        | vk::BufferUsageFlags::TRANSFER_DST,
                )
                .sharing_mode(vk::SharingMode::EXCLUSIVE)
                .push_next(&mut external);
            // SAFETY: a valid create info on this device.
            unsafe { d.create_buffer(&info, None) }.ok()
        };
        let raw = create(len as u64)?;
        let requirements = d.get_buffer_memory_requirements(raw);
        d.destroy_buffer(raw, None);
        let buffer_align = requirements.alignment.max(1) as usize;
        let bind_start = addr - (addr - page_start) % buffer_align;
        let base = addr - bind_start;
        let size = (base + len) as u64;
        let raw = create(size)?;
        let requirements = d.get_buffer_memory_requirements(raw);
        // Coherent memory only: the host writes the slice and kernels read it (and back)
        // with no flush or invalidation in between.
        let bits = requirements.memory_type_bits & host_props.memory_type_bits;
        let Some(type_index) = device.memory().host_coherent_type(bits) else {
            d.destroy_buffer(raw, None);
            return None;
        };
        let mut import = vk::ImportMemoryHostPointerInfoEXT::default()
            .handle_type(handle)
            .host_pointer(page_start as *mut std::ffi::c_void);
        let alloc_info = vk::MemoryAllocateInfo::default()
            .allocation_size((page_end - page_start) as u64)
            .memory_type_index(type_index)
            .push_next(&mut import);
        // Importing pages another live import covers (two small `Vec`s on one page, or one
        // slice viewed by two families) is allowed, but a driver may refuse it: the slice is
        // copied then.
        let memory = match d.allocate_memory(&alloc_info, None) {
            Ok(m) => m,
            Err(_) => {
                d.destroy_buffer(raw, None);
                return None;
            }
        };
        let buffer = Buffer {
            device: device.clone(),
            raw,
            memory: Memory::Imported(memory),
            size,
            direct: false,
            shadow: None,
            busy: Arc::default(),
            pending: Arc::default(),
        };
        d.bind_buffer_memory(raw, memory, (bind_start - page_start) as u64)
            .ok()?;
        Some((buffer, base))
    }
}
