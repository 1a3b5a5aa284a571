//! What a device's memory offers the host ([`MemoryInfo`]): its memory types and whether
//! host memory can be imported. Queried when the device is opened.

use std::sync::OnceLock;

use ash::vk;

/// What a device's memory offers the host: its memory types, and whether host memory can be
/// imported (`VK_EXT_external_memory_host`).
pub(crate) struct MemoryInfo {
    properties: vk::PhysicalDeviceMemoryProperties,
    /// `minImportedHostPointerAlignment` when the device supports importing host memory.
    pub(crate) host_import_alignment: Option<u64>,
    /// `minStorageBufferOffsetAlignment`: an imported slice is bound at its own address, so
    /// that address must be a multiple of it.
    pub(crate) storage_offset_alignment: u64,
    /// The extension's device functions, loaded on first import.
    pub(super) host_import_fns: OnceLock<ash::ext::external_memory_host::Device>,
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
