//! 8- and 16-bit storage (`storageBuffer8BitAccess`, `storageBuffer16BitAccess`): kernels with
//! views or arrays of `i8`, `u8`, `i16` or `u16` have a second module that reads and writes
//! those elements directly ([`KernelInfo::spirv_narrow_storage`]); the runtime launches it on
//! devices with the features the kernel's buffers need, and the module with the elements
//! packed into 32-bit words (atomic stores) everywhere else.

use ash::vk;

use crate::kernel::{ElemType, KernelInfo, ParamKind};

/// The 8- and 16-bit storage features a device has (and the runtime enabled).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct NarrowStorage {
    /// `storageBuffer8BitAccess` (`VK_KHR_8bit_storage`, core in Vulkan 1.2).
    pub(crate) bits8: bool,
    /// `storageBuffer16BitAccess` (core in Vulkan 1.1).
    pub(crate) bits16: bool,
}

impl NarrowStorage {
    /// The device extension of 8-bit storage (Vulkan 1.1 devices).
    pub(crate) const EXTENSION_8BIT: &'static std::ffi::CStr = ash::khr::_8bit_storage::NAME;

    /// The features `phys` supports; 8-bit storage only with `has_8bit_extension` (or Vulkan
    /// 1.2, where it is core and the extension is still listed by every driver we know).
    pub(crate) fn query(
        instance: &ash::Instance,
        phys: vk::PhysicalDevice,
        has_8bit_extension: bool,
    ) -> NarrowStorage {
        let mut s8 = vk::PhysicalDevice8BitStorageFeatures::default();
        let mut s16 = vk::PhysicalDevice16BitStorageFeatures::default();
        let mut features2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut s16);
        if has_8bit_extension {
            features2 = features2.push_next(&mut s8);
        }
        // SAFETY: a plain query on a live instance of a Vulkan 1.1 device; the 8-bit structure
        // is chained only where the device has its extension.
        unsafe { instance.get_physical_device_features2(phys, &mut features2) };
        NarrowStorage {
            bits8: has_8bit_extension && s8.storage_buffer8_bit_access == vk::TRUE,
            bits16: s16.storage_buffer16_bit_access == vk::TRUE,
        }
    }

    /// The structures that enable these features at device creation.
    pub(crate) fn enable(
        self,
    ) -> (
        vk::PhysicalDevice8BitStorageFeatures<'static>,
        vk::PhysicalDevice16BitStorageFeatures<'static>,
    ) {
        (
            vk::PhysicalDevice8BitStorageFeatures::default().storage_buffer8_bit_access(self.bits8),
            vk::PhysicalDevice16BitStorageFeatures::default()
                .storage_buffer16_bit_access(self.bits16),
        )
    }

    /// The module of `info` to launch here: the one with 8- and 16-bit storage where the kernel
    /// has it and the device has every width its buffers need (and `AMP_PACKED_SMALL_INTS` is
    /// off), else the one with packed words.
    pub(crate) fn module(self, info: &KernelInfo, packed_forced: bool) -> &'static [u32] {
        if info.spirv_narrow_storage.is_empty() || packed_forced {
            return info.spirv;
        }
        let (mut needs8, mut needs16) = (false, false);
        for p in info.params {
            if let ParamKind::Buffer {
                elem: ElemType::Scalar(s),
                ..
            } = p.kind
            {
                if s.is_packed() {
                    match s.size() {
                        1 => needs8 = true,
                        _ => needs16 = true,
                    }
                }
            }
        }
        if (needs8 && !self.bits8) || (needs16 && !self.bits16) {
            info.spirv
        } else {
            info.spirv_narrow_storage
        }
    }
}
