//! Device buffers: storage buffers allocated with gpu-allocator, freed on drop.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use crate::accelerator::{lock, DeviceShared};
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
            let force = std::env::var("AMP_FORCE_STAGING")
                .map(|v| v == "1")
                .unwrap_or(false);
            STAGING_MODE.store(if force { 2 } else { 1 }, Ordering::Relaxed);
            force
        }
    }
}

/// What a device's memory offers the host: its memory types, and whether host memory can be
/// imported (`VK_EXT_external_memory_host`).
pub(crate) struct MemoryInfo {
    properties: vk::PhysicalDeviceMemoryProperties,
    /// `minImportedHostPointerAlignment` when the device supports importing host memory.
    pub(crate) host_import_alignment: Option<u64>,
    /// `minStorageBufferOffsetAlignment`: an imported slice is bound at its own address, so
    /// that address must be a multiple of it.
    storage_offset_alignment: u64,
    /// The extension's device functions, loaded on first import.
    host_import_fns: OnceLock<ash::ext::external_memory_host::Device>,
}

impl MemoryInfo {
    /// The extension [`MemoryInfo::query`] found, to enable at device creation.
    pub(crate) const HOST_IMPORT_EXTENSION: &'static std::ffi::CStr =
        ash::ext::external_memory_host::NAME;

    /// Queries `phys`. `host_import_extension` says whether the device lists
    /// [`HOST_IMPORT_EXTENSION`](Self::HOST_IMPORT_EXTENSION) (the caller enables it then).
    ///
    /// # Safety
    /// `phys` must be a physical device of `instance`.
    pub(crate) unsafe fn query(
        instance: &ash::Instance,
        phys: vk::PhysicalDevice,
        host_import_extension: bool,
    ) -> MemoryInfo {
        let properties = instance.get_physical_device_memory_properties(phys);
        let host_import_alignment = host_import_extension.then(|| {
            let mut host = vk::PhysicalDeviceExternalMemoryHostPropertiesEXT::default();
            let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut host);
            instance.get_physical_device_properties2(phys, &mut props2);
            host.min_imported_host_pointer_alignment.max(1)
        });
        let storage_offset_alignment = instance
            .get_physical_device_properties(phys)
            .limits
            .min_storage_buffer_offset_alignment
            .max(1);
        MemoryInfo {
            properties,
            host_import_alignment,
            storage_offset_alignment,
            host_import_fns: OnceLock::new(),
        }
    }

    /// The memory types in use (`memory_type_count` of them).
    fn types(&self) -> &[vk::MemoryType] {
        &self.properties.memory_types[..self.properties.memory_type_count as usize]
    }

    /// A host-visible memory type among `bits` (a `memoryTypeBits` mask), preferring a
    /// coherent one, and whether it is coherent.
    pub(crate) fn host_visible_type(&self, bits: u32) -> Option<(u32, bool)> {
        let visible = vk::MemoryPropertyFlags::HOST_VISIBLE;
        let coherent = visible | vk::MemoryPropertyFlags::HOST_COHERENT;
        let allowed = |i: &usize| bits & (1 << i) != 0;
        let find = |wanted: vk::MemoryPropertyFlags| {
            (0..self.types().len())
                .filter(allowed)
                .find(|&i| self.types()[i].property_flags.contains(wanted))
        };
        match find(coherent) {
            Some(i) => Some((i as u32, true)),
            None => find(visible).map(|i| (i as u32, false)),
        }
    }

    /// Whether some memory type is both device-local and host-visible and coherent: kernels
    /// and the host then share memory (integrated GPUs, lavapipe; C++ AMP's
    /// `supports_cpu_shared_memory`).
    pub(crate) fn shared_memory(&self) -> bool {
        let wanted = vk::MemoryPropertyFlags::DEVICE_LOCAL
            | vk::MemoryPropertyFlags::HOST_VISIBLE
            | vk::MemoryPropertyFlags::HOST_COHERENT;
        self.types()
            .iter()
            .any(|t| t.property_flags.contains(wanted))
    }
}

/// Counts the background transfers (`copy_async`) that use a buffer, so host access and
/// launches wait for them even when their future was leaked.
#[derive(Default)]
pub(crate) struct Busy {
    count: Mutex<u32>,
    idle: Condvar,
}

impl Busy {
    /// Marks one more transfer in flight; the guard ends it when dropped.
    pub(crate) fn begin(self: &Arc<Self>) -> BusyGuard {
        *lock(&self.count) += 1;
        BusyGuard(self.clone())
    }

    /// Blocks until no transfer uses the buffer.
    pub(crate) fn wait_idle(&self) {
        let mut n = lock(&self.count);
        while *n > 0 {
            n = self.idle.wait(n).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// [`wait_idle`](Self::wait_idle) for at most `timeout`; whether it became idle.
    pub(crate) fn wait_idle_for(&self, timeout: std::time::Duration) -> bool {
        let n = lock(&self.count);
        let (n, _) = self
            .idle
            .wait_timeout_while(n, timeout, |n| *n > 0)
            .unwrap_or_else(|e| e.into_inner());
        *n == 0
    }
}

/// One transfer in flight on a buffer (see [`Busy`]).
pub(crate) struct BusyGuard(Arc<Busy>);

impl Drop for BusyGuard {
    fn drop(&mut self) {
        let mut n = lock(&self.0.count);
        *n = n.saturating_sub(1);
        self.0.idle.notify_all();
    }
}

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
    device: Arc<DeviceShared>,
    raw: vk::Buffer,
    memory: Memory,
    size: u64,
    /// The memory is mapped and coherent: the host copies through the mapping.
    direct: bool,
    busy: Arc<Busy>,
}

impl Drop for Buffer {
    fn drop(&mut self) {
        self.wait_unused();
        // Before the handle is freed for reuse: recorded launches that bind it are stale now.
        crate::pipeline::buffer_destroyed();
        // SAFETY: every submission that used the buffer was waited for.
        unsafe { self.device.device.destroy_buffer(self.raw, None) };
        match std::mem::replace(&mut self.memory, Memory::None) {
            Memory::Allocated(a) => {
                if let Some(alloc) = lock(&self.device.allocator).as_mut() {
                    let _ = alloc.free(a);
                }
            }
            // SAFETY: the buffer bound to it was destroyed above.
            Memory::Imported(m) => unsafe { self.device.device.free_memory(m, None) },
            Memory::None => {}
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
        // SAFETY: the memory handle is only used to bind this buffer, while the allocation
        // lives.
        let (memory, offset) = (unsafe { allocation.memory() }, allocation.offset());
        let buffer = Buffer {
            device: device.clone(),
            raw,
            memory: Memory::Allocated(allocation),
            size,
            direct,
            busy: Arc::default(),
        };
        // SAFETY: the memory comes from the allocator with the buffer's requirements.
        unsafe { d.bind_buffer_memory(raw, memory, offset) }
            .map_err(Error::vk("vkBindBufferMemory"))?;
        Ok(buffer)
    }

    /// A device-local storage buffer of `size` bytes (contents undefined).
    pub(crate) fn storage(device: &Arc<DeviceShared>, size: u64) -> Result<Buffer, Error> {
        Buffer::storage_in(device, size, MemoryLocation::GpuOnly)
    }

    /// A storage buffer of `size` bytes (contents undefined) in `location`: device-local
    /// memory (`GpuOnly`), or host-visible memory the host reads (`GpuToCpu`) or writes
    /// (`CpuToGpu`) directly.
    pub(crate) fn storage_in(
        device: &Arc<DeviceShared>,
        size: u64,
        location: MemoryLocation,
    ) -> Result<Buffer, Error> {
        check_storage_size(device, size)?;
        let mut b = Buffer::with_location(
            device,
            size,
            vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST,
            location,
        )?;
        // Device-local memory is copied through staging buffers when the user asks to test
        // that path; memory asked for as host-visible keeps its mapping.
        if force_staging() && location == MemoryLocation::GpuOnly {
            b.direct = false;
        }
        Ok(b)
    }

    /// A host-visible transfer buffer of `size` bytes (contents undefined): `CpuToGpu` for
    /// uploads, `GpuToCpu` for downloads.
    pub(crate) fn staging(
        device: &Arc<DeviceShared>,
        size: u64,
        location: MemoryLocation,
    ) -> Result<Buffer, Error> {
        let mut b = Buffer::with_location(
            device,
            size.max(4),
            vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
            location,
        )?;
        if b.mapped().is_none() {
            return Err(Error::Allocation(
                "staging memory is not host-visible".into(),
            ));
        }
        b.direct = true;
        Ok(b)
    }

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
        device: &Arc<DeviceShared>,
        ptr: *const u8,
        len: usize,
    ) -> Option<(Buffer, usize)> {
        let align = device.memory.host_import_alignment? as usize;
        let addr = ptr as usize;
        if force_staging()
            || len == 0
            || check_storage_size(device, len as u64).is_err()
            || addr as u64 % device.memory.storage_offset_alignment != 0
        {
            return None;
        }
        let page_start = addr - addr % align;
        let page_end = (addr + len).div_ceil(align) * align;
        let d = &device.device;
        let handle = vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT;
        let fns = device.memory.host_import_fns.get_or_init(|| {
            ash::ext::external_memory_host::Device::new(&device.instance.instance, d)
        });
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
        let bits = requirements.memory_type_bits & host_props.memory_type_bits;
        let Some(type_index) = (0..32u32).find(|i| bits & (1 << i) != 0) else {
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
            busy: Arc::default(),
        };
        d.bind_buffer_memory(raw, memory, (bind_start - page_start) as u64)
            .ok()?;
        Some((buffer, base))
    }

    /// The Vulkan handle.
    pub(crate) fn raw(&self) -> vk::Buffer {
        self.raw
    }

    /// The device this buffer lives on.
    pub(crate) fn device(&self) -> &Arc<DeviceShared> {
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
    /// wait timed out, see `queue.rs`) may use the buffer: before the host touches its memory
    /// or frees it.
    fn wait_unused(&self) {
        self.busy.wait_idle();
        crate::queue::wait_for_abandoned_work();
    }

    /// The background-transfer counter of this buffer.
    pub(crate) fn busy(&self) -> &Arc<Busy> {
        &self.busy
    }

    fn mapped(&self) -> Option<*mut u8> {
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

    /// Copies `data` to the buffer at byte `at`.
    ///
    /// Takes `&self`: callers hold the borrow (of the array or view) that excludes other
    /// access to these bytes.
    pub(crate) fn write_at(&self, at: u64, data: &[u8]) -> Result<(), Error> {
        self.wait_unused();
        let len = data.len().min(self.size.saturating_sub(at) as usize);
        if len == 0 {
            return Ok(());
        }
        if let Some(p) = self.host_ptr() {
            // SAFETY: the mapping covers `size` bytes; no device work uses the buffer now
            // (every submission is waited for, and the caller's borrow excludes other host
            // access). Host writes are made visible to the device by the next queue submission.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p.add(at as usize), len) };
            return Ok(());
        }
        let staging = StagingPool::take(&self.device, len as u64, MemoryLocation::CpuToGpu)?;
        let p = staging
            .mapped()
            .ok_or_else(|| Error::Allocation("staging memory is not host-visible".into()))?;
        // SAFETY: the staging buffer is mapped, at least `len` bytes long and not in use.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, len) };
        let (src, dst) = (staging.raw, self.raw);
        self.device.submit(|d, s| {
            let region = vk::BufferCopy::default().dst_offset(at).size(len as u64);
            // SAFETY: both buffers are live and large enough.
            unsafe { d.cmd_copy_buffer(s.cmd, src, dst, &[region]) };
            Ok(())
        })
    }

    /// Copies `data` to the start of the buffer.
    pub(crate) fn write(&self, data: &[u8]) -> Result<(), Error> {
        self.write_at(0, data)
    }

    /// Copies the start of the buffer into `out`.
    pub(crate) fn read(&self, out: &mut [u8]) -> Result<(), Error> {
        self.read_at(0, out)
    }

    /// Copies the bytes from byte `at` into `out`.
    pub(crate) fn read_at(&self, at: u64, out: &mut [u8]) -> Result<(), Error> {
        self.wait_unused();
        let len = out.len().min(self.size.saturating_sub(at) as usize);
        if len == 0 {
            return Ok(());
        }
        if let Some(p) = self.host_ptr() {
            // SAFETY: the mapping covers `size` bytes; device writes were made visible to
            // the host by the barrier and fence wait ending every submission.
            unsafe { std::ptr::copy_nonoverlapping(p.add(at as usize), out.as_mut_ptr(), len) };
            return Ok(());
        }
        let staging = StagingPool::take(&self.device, len as u64, MemoryLocation::GpuToCpu)?;
        let p = staging
            .mapped()
            .ok_or_else(|| Error::Allocation("staging memory is not host-visible".into()))?;
        let (src, dst) = (self.raw, staging.raw);
        self.device.submit(|d, s| {
            let region = vk::BufferCopy::default().src_offset(at).size(len as u64);
            // SAFETY: both buffers are live and large enough.
            unsafe { d.cmd_copy_buffer(s.cmd, src, dst, &[region]) };
            Ok(())
        })?;
        // SAFETY: the copy finished and was made visible to the host.
        unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), len) };
        Ok(())
    }

    /// Fills the buffer with zero bytes.
    pub(crate) fn zero(&self) -> Result<(), Error> {
        if let Some(p) = self.host_ptr() {
            // SAFETY: as in `write_at`.
            unsafe { std::ptr::write_bytes(p, 0, self.size as usize) };
            return Ok(());
        }
        let dst = self.raw;
        self.device.submit(|d, s| {
            // SAFETY: live buffer with TRANSFER_DST usage.
            unsafe { d.cmd_fill_buffer(s.cmd, dst, 0, vk::WHOLE_SIZE, 0) };
            Ok(())
        })
    }

    /// Copies `size` bytes from byte `src_at` of `self` to byte `dst_at` of `dst` (same
    /// device), through the mappings when both are host-visible, else with `vkCmdCopyBuffer`.
    pub(crate) fn copy_to(
        &self,
        src_at: u64,
        dst: &Buffer,
        dst_at: u64,
        size: u64,
    ) -> Result<(), Error> {
        if src_at + size > self.size || dst_at + size > dst.size {
            return Err(Error::Allocation(format!(
                "buffer copy of {size} bytes out of range (internal error)"
            )));
        }
        if let (Some(s), Some(d)) = (self.host_ptr(), dst.host_ptr()) {
            // SAFETY: both ranges lie in their mappings; no device work uses either buffer;
            // `ptr::copy` allows the ranges to overlap (the same buffer).
            unsafe {
                std::ptr::copy(
                    s.add(src_at as usize),
                    d.add(dst_at as usize),
                    size as usize,
                )
            };
            return Ok(());
        }
        self.copy_on_device(src_at, dst, dst_at, size)
    }

    /// As [`copy_to`](Self::copy_to), always with `vkCmdCopyBuffer` (device work: the
    /// asynchronous copies use it).
    pub(crate) fn copy_on_device(
        &self,
        src_at: u64,
        dst: &Buffer,
        dst_at: u64,
        size: u64,
    ) -> Result<(), Error> {
        let (src_raw, dst_raw) = (self.raw, dst.raw);
        self.device.submit(|d, s| {
            let region = vk::BufferCopy::default()
                .src_offset(src_at)
                .dst_offset(dst_at)
                .size(size);
            // SAFETY: both buffers are live and the ranges lie in them.
            unsafe { d.cmd_copy_buffer(s.cmd, src_raw, dst_raw, &[region]) };
            Ok(())
        })
    }
}

/// Staging buffers kept for reuse, so transfers through them neither allocate nor page-fault on
/// first touch: at most [`StagingPool::KEEP`] per device and direction, up to
/// [`StagingPool::MAX_BYTES`] each. A taken buffer returns to the pool when dropped.
struct StagingPool;

static STAGING_POOL: Mutex<Vec<(MemoryLocation, Buffer)>> = Mutex::new(Vec::new());

impl StagingPool {
    const KEEP: usize = 2;
    const MAX_BYTES: u64 = 256 << 20;

    /// A mapped staging buffer of at least `size` bytes on `device` in `location`.
    fn take(
        device: &Arc<DeviceShared>,
        size: u64,
        location: MemoryLocation,
    ) -> Result<Pooled, Error> {
        // A staging buffer given back by a transfer whose wait timed out may still be in use.
        crate::queue::wait_for_abandoned_work();
        let reusable = |(l, b): &(MemoryLocation, Buffer)| {
            *l == location && Arc::ptr_eq(&b.device, device) && b.size >= size
        };
        let pooled = {
            let mut pool = lock(&STAGING_POOL);
            pool.iter()
                .position(reusable)
                .map(|i| pool.swap_remove(i).1)
        };
        let buffer = match pooled {
            Some(b) => b,
            None => Buffer::staging(device, size.next_power_of_two(), location)?,
        };
        Ok(Pooled(Some((location, buffer))))
    }
}

/// A staging buffer on loan from the pool.
struct Pooled(Option<(MemoryLocation, Buffer)>);

impl std::ops::Deref for Pooled {
    type Target = Buffer;
    fn deref(&self) -> &Buffer {
        &self.0.as_ref().expect("present until drop").1
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        let Some((location, buffer)) = self.0.take() else {
            return;
        };
        if buffer.size > StagingPool::MAX_BYTES {
            return;
        }
        let mut pool = lock(&STAGING_POOL);
        let same = |(l, b): &&(MemoryLocation, Buffer)| {
            *l == location && Arc::ptr_eq(&b.device, &buffer.device)
        };
        if pool.iter().filter(same).count() < StagingPool::KEEP {
            pool.push((location, buffer));
        }
    }
}

/// Checks `size` against the device's `maxStorageBufferRange`.
fn check_storage_size(device: &DeviceShared, size: u64) -> Result<(), Error> {
    let range = u64::from(device.limits.max_storage_buffer_range);
    if size > range {
        return Err(Error::ExtentTooLarge {
            what: "the buffer size in bytes (maxStorageBufferRange)",
            value: size,
            limit: range,
        });
    }
    Ok(())
}
