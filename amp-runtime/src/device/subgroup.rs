//! Subgroups: what a device's `VkPhysicalDeviceSubgroupProperties` offer compute kernels, and
//! the check that a kernel's module uses only operations the device has.
//!
//! Kernels that call `t.subgroup()` operations declare the SPIR-V capabilities of those
//! operations (`GroupNonUniform`, `GroupNonUniformVote`, ..). Vulkan 1.1 devices must support
//! the basic ones in compute shaders but may lack the rest, so the module's capabilities are
//! compared with the device's `supportedOperations` when its pipeline is built, and a missing
//! one is [`Error::MissingCapability`](crate::Error::MissingCapability), not undefined
//! behavior.

use ash::vk;

/// A device's subgroups, as compute kernels see them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Subgroups {
    /// Lanes per subgroup (`subgroupSize`).
    pub(crate) size: u32,
    /// The operations compute kernels may use (none where compute is not among
    /// `supportedStages`).
    pub(crate) operations: vk::SubgroupFeatureFlags,
}

/// `OpCapability`.
const OP_CAPABILITY: u32 = 17;

/// The SPIR-V capabilities of subgroup operations, the feature bit each needs and its
/// Vulkan name.
const CAPABILITIES: [(u32, vk::SubgroupFeatureFlags, &str); 5] = [
    (
        61,
        vk::SubgroupFeatureFlags::BASIC,
        "subgroup operations (VK_SUBGROUP_FEATURE_BASIC_BIT in compute)",
    ),
    (
        62,
        vk::SubgroupFeatureFlags::VOTE,
        "subgroup votes (VK_SUBGROUP_FEATURE_VOTE_BIT)",
    ),
    (
        63,
        vk::SubgroupFeatureFlags::ARITHMETIC,
        "subgroup arithmetic (VK_SUBGROUP_FEATURE_ARITHMETIC_BIT)",
    ),
    (
        64,
        vk::SubgroupFeatureFlags::BALLOT,
        "subgroup ballots (VK_SUBGROUP_FEATURE_BALLOT_BIT)",
    ),
    (
        65,
        vk::SubgroupFeatureFlags::SHUFFLE,
        "subgroup shuffles (VK_SUBGROUP_FEATURE_SHUFFLE_BIT)",
    ),
];

impl Subgroups {
    /// The subgroups of `phys` (a Vulkan 1.1 device).
    pub(crate) fn query(instance: &ash::Instance, phys: vk::PhysicalDevice) -> Subgroups {
        let mut sg = vk::PhysicalDeviceSubgroupProperties::default();
        let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut sg);
        // SAFETY: a plain query on a live instance of a Vulkan 1.1 device.
        unsafe { instance.get_physical_device_properties2(phys, &mut props2) };
        let compute = sg.supported_stages.contains(vk::ShaderStageFlags::COMPUTE);
        Subgroups {
            size: sg.subgroup_size,
            operations: if compute {
                sg.supported_operations
            } else {
                vk::SubgroupFeatureFlags::empty()
            },
        }
    }

    /// The first subgroup feature the module `words` declares a capability for that the
    /// device lacks, by its name.
    pub(crate) fn first_missing(self, words: &[u32]) -> Option<&'static str> {
        capabilities(words).find_map(|cap| {
            CAPABILITIES
                .iter()
                .find(|(c, ..)| *c == cap)
                .filter(|(_, feature, _)| !self.operations.contains(*feature))
                .map(|(.., name)| *name)
        })
    }
}

/// The capabilities a SPIR-V module declares (its `OpCapability` instructions, which come
/// first after the header).
fn capabilities(words: &[u32]) -> impl Iterator<Item = u32> + '_ {
    let mut at = 5;
    std::iter::from_fn(move || {
        let first = *words.get(at)?;
        let (len, op) = ((first >> 16) as usize, first & 0xffff);
        if op != OP_CAPABILITY || len < 2 {
            return None;
        }
        at += len;
        words.get(at - len + 1).copied()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(caps: &[u32]) -> Vec<u32> {
        let mut words = vec![0x0723_0203, 0x0001_0300, 0, 100, 0];
        for &c in caps {
            words.extend([(2 << 16) | OP_CAPABILITY, c]);
        }
        words.extend([(3 << 16) | 14, 0, 1]); // OpMemoryModel
        words
    }

    #[test]
    fn a_missing_operation_is_named_and_present_ones_pass() {
        let device = Subgroups {
            size: 8,
            operations: vk::SubgroupFeatureFlags::BASIC | vk::SubgroupFeatureFlags::VOTE,
        };
        assert_eq!(device.first_missing(&module(&[1, 61, 62])), None);
        assert_eq!(
            device.first_missing(&module(&[1, 61, 63])),
            Some("subgroup arithmetic (VK_SUBGROUP_FEATURE_ARITHMETIC_BIT)")
        );
        let none = Subgroups {
            size: 0,
            operations: vk::SubgroupFeatureFlags::empty(),
        };
        assert!(none.first_missing(&module(&[1, 61])).is_some());
        assert_eq!(none.first_missing(&module(&[1])), None);
    }
}
