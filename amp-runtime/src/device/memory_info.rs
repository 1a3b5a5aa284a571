//! What a device's memory offers the host ([`MemoryInfo`]): its memory types and whether
//! host memory can be imported. Queried when the device is opened.

use std::sync::OnceLock;

use ash::vk;

use super::discrete::{simulate_discrete, storage_offset_alignment};
use super::DeviceType;

/// What a device's memory offers the host: its memory types, and whether host memory can be
/// imported (`VK_EXT_external_memory_host`).
pub(crate) struct MemoryInfo {
    properties: vk::PhysicalDeviceMemoryProperties,
    /// Whether kernels and the host share memory ([`cpu_shared`]).
    cpu_shared: bool,
    /// `minImportedHostPointerAlignment` when the device supports importing host memory.
    pub(crate) host_import_alignment: Option<u64>,
    /// `minStorageBufferOffsetAlignment`: an imported slice is bound at its own address, so
    /// that address must be a multiple of it.
    pub(crate) storage_offset_alignment: u64,
    /// The simulated discrete GPU (`AMP_SIMULATE_DISCRETE=1`, see `discrete.rs`): every
    /// mapping is treated as non-coherent.
    pub(crate) simulated: bool,
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
        device_type: DeviceType,
        host_import_extension: bool,
    ) -> MemoryInfo {
        let properties = instance.get_physical_device_memory_properties(phys);
        let simulated = simulate_discrete();
        let placement =
            Placement::decide(device_type, &properties, host_import_extension, simulated);
        let host_import_alignment = placement.import_host.then(|| {
            let mut host = vk::PhysicalDeviceExternalMemoryHostPropertiesEXT::default();
            let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut host);
            instance.get_physical_device_properties2(phys, &mut props2);
            host.min_imported_host_pointer_alignment.max(1)
        });
        let limits = instance.get_physical_device_properties(phys).limits;
        MemoryInfo {
            cpu_shared: placement.cpu_shared,
            properties,
            host_import_alignment,
            storage_offset_alignment: storage_offset_alignment(
                limits.min_storage_buffer_offset_alignment.max(1),
                simulated,
            ),
            simulated,
            host_import_fns: OnceLock::new(),
        }
    }

    /// The memory types in use (`memory_type_count` of them).
    fn types(&self) -> &[vk::MemoryType] {
        &self.properties.memory_types[..self.properties.memory_type_count as usize]
    }

    /// A host-visible and host-coherent memory type among `bits`: the only kind host memory is
    /// imported into (the host writes an imported slice and kernels read it with no flush).
    pub(crate) fn host_coherent_type(&self, bits: u32) -> Option<u32> {
        let coherent =
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        (0..self.types().len())
            .filter(|i| bits & (1 << i) != 0)
            .find(|&i| self.types()[i].property_flags.contains(coherent))
            .map(|i| i as u32)
    }

    /// Whether kernels and the host share memory ([`cpu_shared`]; C++ AMP's
    /// `supports_cpu_shared_memory`).
    pub(crate) fn shared_memory(&self) -> bool {
        self.cpu_shared
    }

    /// Bytes of device-local memory: the sum of the device-local heaps.
    pub(crate) fn device_local_bytes(&self) -> u64 {
        let p = &self.properties;
        p.memory_heaps[..p.memory_heap_count as usize]
            .iter()
            .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
            .map(|h| h.size)
            .sum()
    }
}

/// Where a device's data lives, decided from the device when it is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Placement {
    /// Kernels and the host share memory ([`cpu_shared`]): `AccessType::Auto` arrays are
    /// host-visible and zero-copy. Otherwise arrays live in device memory and transfers go
    /// through staging buffers.
    pub(crate) cpu_shared: bool,
    /// Views of host slices are imported and used in place (`VK_EXT_external_memory_host`)
    /// rather than copied: only where memory is shared, since a discrete GPU would read the
    /// imported slice over the bus at every access.
    pub(crate) import_host: bool,
}

impl Placement {
    /// The placement on a device of `device_type` with memory `props`, which lists the host
    /// import extension or not, possibly simulating a discrete GPU (`discrete.rs`).
    pub(crate) fn decide(
        device_type: DeviceType,
        props: &vk::PhysicalDeviceMemoryProperties,
        host_import_extension: bool,
        simulate_discrete: bool,
    ) -> Placement {
        let cpu_shared = !simulate_discrete && cpu_shared(device_type, props);
        Placement {
            cpu_shared,
            import_host: cpu_shared && host_import_extension,
        }
    }
}

/// Whether kernels and the host share memory on a device of `device_type` with these memory
/// types: it is not a discrete GPU, and some memory type is device-local, host-visible and
/// host-coherent (integrated GPUs, lavapipe). Then arrays the host can read are zero-copy and
/// views of host slices are used in place.
///
/// A discrete GPU never shares, although its drivers expose device-local memory the host can
/// map (NVIDIA's and AMD's 256 MiB BAR window, or all of VRAM with resizable BAR): the host
/// reaches it over the bus, uncached, and host memory that kernels read in place crosses the
/// bus at every access. Its arrays live in plain device memory and transfers go through
/// staging buffers, as C++ AMP copies an `array_view`'s data to a discrete GPU.
pub(crate) fn cpu_shared(
    device_type: DeviceType,
    props: &vk::PhysicalDeviceMemoryProperties,
) -> bool {
    let wanted = vk::MemoryPropertyFlags::DEVICE_LOCAL
        | vk::MemoryPropertyFlags::HOST_VISIBLE
        | vk::MemoryPropertyFlags::HOST_COHERENT;
    device_type != DeviceType::DiscreteGpu
        && props.memory_types[..props.memory_type_count as usize]
            .iter()
            .any(|t| t.property_flags.contains(wanted))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DL: vk::MemoryPropertyFlags = vk::MemoryPropertyFlags::DEVICE_LOCAL;
    const HV: vk::MemoryPropertyFlags = vk::MemoryPropertyFlags::HOST_VISIBLE;
    const HC: vk::MemoryPropertyFlags = vk::MemoryPropertyFlags::HOST_COHERENT;
    const CACHED: vk::MemoryPropertyFlags = vk::MemoryPropertyFlags::HOST_CACHED;

    /// Memory properties of `heaps` (bytes, device-local?) and `types` (flags, heap).
    fn props(
        heaps: &[(u64, bool)],
        types: &[(vk::MemoryPropertyFlags, u32)],
    ) -> vk::PhysicalDeviceMemoryProperties {
        let mut p = vk::PhysicalDeviceMemoryProperties {
            memory_type_count: types.len() as u32,
            memory_heap_count: heaps.len() as u32,
            ..Default::default()
        };
        for (i, &(size, local)) in heaps.iter().enumerate() {
            p.memory_heaps[i] = vk::MemoryHeap {
                size,
                flags: if local {
                    vk::MemoryHeapFlags::DEVICE_LOCAL
                } else {
                    vk::MemoryHeapFlags::empty()
                },
            };
        }
        for (i, &(flags, heap)) in types.iter().enumerate() {
            p.memory_types[i] = vk::MemoryType {
                property_flags: flags,
                heap_index: heap,
            };
        }
        p
    }

    const GIB: u64 = 1 << 30;

    /// An H100 as NVIDIA's driver lists it: VRAM, system memory, the 256 MiB BAR window.
    fn nvidia_h100() -> vk::PhysicalDeviceMemoryProperties {
        props(
            &[(80 * GIB, true), (64 * GIB, false), (256 << 20, true)],
            &[
                (vk::MemoryPropertyFlags::empty(), 1),
                (DL, 0),
                (HV | HC, 1),
                (HV | HC | CACHED, 1),
                (DL | HV | HC, 2),
            ],
        )
    }

    /// An AMD GPU with all of VRAM host-visible (resizable BAR / Smart Access Memory).
    fn amd_resizable_bar() -> vk::PhysicalDeviceMemoryProperties {
        props(
            &[(16 * GIB, true), (32 * GIB, false)],
            &[
                (DL, 0),
                (HV | HC, 1),
                (DL | HV | HC, 0),
                (HV | HC | CACHED, 1),
            ],
        )
    }

    /// Mesa's lavapipe: one memory type, device-local and host-coherent.
    fn lavapipe() -> vk::PhysicalDeviceMemoryProperties {
        props(&[(2 * GIB, true)], &[(DL | HV | HC | CACHED, 0)])
    }

    #[test]
    fn nvidia_discrete_with_its_bar_window_does_not_share() {
        assert!(!cpu_shared(DeviceType::DiscreteGpu, &nvidia_h100()));
    }

    #[test]
    fn amd_discrete_with_resizable_bar_does_not_share() {
        assert!(!cpu_shared(DeviceType::DiscreteGpu, &amd_resizable_bar()));
    }

    #[test]
    fn integrated_gpus_and_cpu_devices_share() {
        let intel = props(
            &[(8 * GIB, true)],
            &[(DL, 0), (DL | HV | HC, 0), (DL | HV | HC | CACHED, 0)],
        );
        assert!(cpu_shared(DeviceType::IntegratedGpu, &intel));
        assert!(cpu_shared(DeviceType::Cpu, &lavapipe()));
    }

    #[test]
    fn placement_keeps_discrete_data_on_the_device_and_imports_only_shared_memory() {
        let lavapipe = lavapipe();
        let device_memory = Placement {
            cpu_shared: false,
            import_host: false,
        };
        for table in [&nvidia_h100(), &amd_resizable_bar()] {
            for import in [false, true] {
                let p = Placement::decide(DeviceType::DiscreteGpu, table, import, false);
                assert_eq!(p, device_memory);
            }
        }
        assert_eq!(
            Placement::decide(DeviceType::Cpu, &lavapipe, true, false),
            Placement {
                cpu_shared: true,
                import_host: true
            }
        );
        assert_eq!(
            Placement::decide(DeviceType::Cpu, &lavapipe, false, false),
            Placement {
                cpu_shared: true,
                import_host: false
            }
        );
        // The simulated discrete GPU: lavapipe placed as an NVIDIA GPU is.
        assert_eq!(
            Placement::decide(DeviceType::Cpu, &lavapipe, true, true),
            device_memory
        );
    }

    #[test]
    fn a_device_without_host_visible_device_memory_does_not_share() {
        let p = props(
            &[(4 * GIB, true), (8 * GIB, false)],
            &[(DL, 0), (HV | HC, 1)],
        );
        assert!(!cpu_shared(DeviceType::IntegratedGpu, &p));
        assert!(!cpu_shared(DeviceType::VirtualGpu, &p));
    }
}
