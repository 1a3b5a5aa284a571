//! `f32` atomics: the device features of `VK_EXT_shader_atomic_float` and the check that a
//! kernel's module uses only those the device has.
//!
//! Kernels compiled by amp-rs use `OpAtomicFAddEXT` (`atomic_fetch_add` on `f32`) and
//! `OpAtomicExchange` on `f32` (`atomic_exchange`). Vulkan allows each only where the device
//! enables the matching feature, per memory (storage buffers or workgroup memory), so the module
//! is scanned for them when its pipeline is built and a missing feature is reported as
//! [`Error::MissingCapability`](crate::Error::MissingCapability) instead of undefined behavior.

use std::collections::{HashMap, HashSet};

use ash::vk;

/// A feature of `VkPhysicalDeviceShaderAtomicFloatFeaturesEXT` that a kernel can need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FloatAtomicFeature {
    /// `f32` load, store and exchange atomics on storage buffers (views and arrays).
    BufferAtomics,
    /// `f32` add atomics on storage buffers.
    BufferAdd,
    /// `f32` load, store and exchange atomics on workgroup (`tile_static`) memory.
    SharedAtomics,
    /// `f32` add atomics on workgroup memory.
    SharedAdd,
}

impl FloatAtomicFeature {
    /// The Vulkan name of the feature.
    pub(crate) fn name(self) -> &'static str {
        match self {
            FloatAtomicFeature::BufferAtomics => "shaderBufferFloat32Atomics",
            FloatAtomicFeature::BufferAdd => "shaderBufferFloat32AtomicAdd",
            FloatAtomicFeature::SharedAtomics => "shaderSharedFloat32Atomics",
            FloatAtomicFeature::SharedAdd => "shaderSharedFloat32AtomicAdd",
        }
    }
}

/// The 32-bit float atomic features a device has (all enabled at device creation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct AtomicFloat32 {
    pub(crate) buffer_atomics: bool,
    pub(crate) buffer_add: bool,
    pub(crate) shared_atomics: bool,
    pub(crate) shared_add: bool,
}

impl AtomicFloat32 {
    /// The device extension that provides the features.
    pub(crate) const EXTENSION: &'static std::ffi::CStr = ash::ext::shader_atomic_float::NAME;

    /// The features `phys` supports; none when it lacks the extension.
    pub(crate) fn query(
        instance: &ash::Instance,
        phys: vk::PhysicalDevice,
        has_extension: bool,
    ) -> AtomicFloat32 {
        if !has_extension {
            return AtomicFloat32::default();
        }
        let mut f = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default();
        let mut features2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut f);
        // SAFETY: a plain query on a live instance of a Vulkan 1.1 device.
        unsafe { instance.get_physical_device_features2(phys, &mut features2) };
        AtomicFloat32 {
            buffer_atomics: f.shader_buffer_float32_atomics == vk::TRUE,
            buffer_add: f.shader_buffer_float32_atomic_add == vk::TRUE,
            shared_atomics: f.shader_shared_float32_atomics == vk::TRUE,
            shared_add: f.shader_shared_float32_atomic_add == vk::TRUE,
        }
    }

    /// Whether any feature is supported (then the extension is enabled).
    pub(crate) fn any(self) -> bool {
        self.buffer_atomics || self.buffer_add || self.shared_atomics || self.shared_add
    }

    /// The structure that enables these features at device creation.
    pub(crate) fn enable(self) -> vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT<'static> {
        vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default()
            .shader_buffer_float32_atomics(self.buffer_atomics)
            .shader_buffer_float32_atomic_add(self.buffer_add)
            .shader_shared_float32_atomics(self.shared_atomics)
            .shader_shared_float32_atomic_add(self.shared_add)
    }

    /// Whether the device has `feature`.
    pub(crate) fn has(self, feature: FloatAtomicFeature) -> bool {
        match feature {
            FloatAtomicFeature::BufferAtomics => self.buffer_atomics,
            FloatAtomicFeature::BufferAdd => self.buffer_add,
            FloatAtomicFeature::SharedAtomics => self.shared_atomics,
            FloatAtomicFeature::SharedAdd => self.shared_add,
        }
    }

    /// The first feature the module `words` needs that the device lacks.
    pub(crate) fn first_missing(self, words: &[u32]) -> Option<FloatAtomicFeature> {
        features_used(words).into_iter().find(|&f| !self.has(f))
    }
}

/// SPIR-V opcodes and storage classes the scan looks at.
mod op {
    pub const TYPE_FLOAT: u32 = 22;
    pub const TYPE_POINTER: u32 = 32;
    pub const VARIABLE: u32 = 59;
    pub const ACCESS_CHAIN: u32 = 65;
    pub const IN_BOUNDS_ACCESS_CHAIN: u32 = 66;
    pub const PTR_ACCESS_CHAIN: u32 = 67;
    pub const COPY_OBJECT: u32 = 83;
    pub const SELECT: u32 = 169;
    pub const ATOMIC_LOAD: u32 = 227;
    pub const ATOMIC_STORE: u32 = 228;
    pub const ATOMIC_EXCHANGE: u32 = 229;
    pub const PHI: u32 = 245;
    pub const ATOMIC_FADD_EXT: u32 = 6035;
    pub const STORAGE_UNIFORM: u32 = 2;
    pub const STORAGE_WORKGROUP: u32 = 4;
    pub const STORAGE_BUFFER: u32 = 12;
}

/// The float-atomic features a module uses: every atomic on a pointer to a 32-bit float,
/// classified by operation (add or load/store/exchange) and by the pointer's storage class.
///
/// Pointers are traced through the instructions that make them (variables, access chains,
/// copies, selects and phis), whose result type is the pointer type.
pub(crate) fn features_used(words: &[u32]) -> Vec<FloatAtomicFeature> {
    let mut float32 = HashSet::new();
    // Pointer type id -> (storage class, pointee type id).
    let mut pointer_types: HashMap<u32, (u32, u32)> = HashMap::new();
    // Pointer value id -> its pointer type id.
    let mut pointers: HashMap<u32, u32> = HashMap::new();
    let mut used = Vec::new();
    for inst in instructions(words) {
        let word = |i: usize| inst.get(i).copied().unwrap_or(0);
        match inst[0] & 0xffff {
            op::TYPE_FLOAT if word(2) == 32 => {
                float32.insert(word(1));
            }
            op::TYPE_POINTER => {
                pointer_types.insert(word(1), (word(2), word(3)));
            }
            op::VARIABLE
            | op::ACCESS_CHAIN
            | op::IN_BOUNDS_ACCESS_CHAIN
            | op::PTR_ACCESS_CHAIN
            | op::COPY_OBJECT
            | op::SELECT
            | op::PHI
                if pointer_types.contains_key(&word(1)) =>
            {
                pointers.insert(word(2), word(1));
            }
            code @ (op::ATOMIC_LOAD
            | op::ATOMIC_EXCHANGE
            | op::ATOMIC_FADD_EXT
            | op::ATOMIC_STORE) => {
                let pointer = if code == op::ATOMIC_STORE {
                    word(1)
                } else {
                    word(3)
                };
                let target = pointers.get(&pointer).and_then(|t| pointer_types.get(t));
                let Some(&(storage, pointee)) = target else {
                    continue;
                };
                if !float32.contains(&pointee) {
                    continue;
                }
                let add = code == op::ATOMIC_FADD_EXT;
                let feature = match (storage, add) {
                    (op::STORAGE_WORKGROUP, true) => FloatAtomicFeature::SharedAdd,
                    (op::STORAGE_WORKGROUP, false) => FloatAtomicFeature::SharedAtomics,
                    (op::STORAGE_BUFFER | op::STORAGE_UNIFORM, true) => {
                        FloatAtomicFeature::BufferAdd
                    }
                    (op::STORAGE_BUFFER | op::STORAGE_UNIFORM, false) => {
                        FloatAtomicFeature::BufferAtomics
                    }
                    _ => continue,
                };
                if !used.contains(&feature) {
                    used.push(feature);
                }
            }
            _ => {}
        }
    }
    used
}

/// The instructions of a module after its 5-word header.
fn instructions(words: &[u32]) -> impl Iterator<Item = &[u32]> {
    let mut at = words.len().min(5);
    std::iter::from_fn(move || {
        if at >= words.len() {
            return None;
        }
        let count = ((words[at] >> 16) as usize).max(1);
        let inst = &words[at..(at + count).min(words.len())];
        at += count;
        Some(inst)
    })
}

#[cfg(test)]
mod tests {
    use super::{features_used, AtomicFloat32, FloatAtomicFeature};

    fn inst(op: u32, operands: &[u32]) -> Vec<u32> {
        let mut w = vec![((1 + operands.len() as u32) << 16) | op];
        w.extend_from_slice(operands);
        w
    }

    /// A module fragment: `%f = OpTypeFloat 32`, pointers to it in storage-buffer (`%pb`) and
    /// workgroup (`%pw`) memory, an access chain into each and the given atomics.
    fn module(atomics: &[(u32, bool)]) -> Vec<u32> {
        let (f, pb, pw, vb, vw, cb, cw) = (1, 2, 3, 4, 5, 6, 7);
        let mut w = vec![0x0723_0203, 0x0001_0300, 0, 100, 0];
        w.extend(inst(22, &[f, 32]));
        w.extend(inst(32, &[pb, 12, f]));
        w.extend(inst(32, &[pw, 4, f]));
        w.extend(inst(59, &[pb, vb, 12]));
        w.extend(inst(59, &[pw, vw, 4]));
        w.extend(inst(65, &[pb, cb, vb]));
        w.extend(inst(65, &[pw, cw, vw]));
        for (i, &(op, shared)) in atomics.iter().enumerate() {
            let ptr = if shared { cw } else { cb };
            w.extend(inst(op, &[f, 50 + i as u32, ptr, 90, 91, 92]));
        }
        w
    }

    #[test]
    fn no_atomics_need_nothing() {
        assert!(features_used(&module(&[])).is_empty());
    }

    #[test]
    fn add_and_exchange_per_memory() {
        use FloatAtomicFeature::*;
        assert_eq!(features_used(&module(&[(6035, false)])), [BufferAdd]);
        assert_eq!(features_used(&module(&[(6035, true)])), [SharedAdd]);
        assert_eq!(
            features_used(&module(&[(229, false), (229, true), (229, false)])),
            [BufferAtomics, SharedAtomics]
        );
    }

    #[test]
    fn the_first_missing_feature_is_reported() {
        let m = module(&[(229, false), (6035, true)]);
        let device = AtomicFloat32 {
            buffer_atomics: true,
            ..AtomicFloat32::default()
        };
        assert_eq!(
            device.first_missing(&m),
            Some(FloatAtomicFeature::SharedAdd)
        );
        assert_eq!(
            FloatAtomicFeature::SharedAdd.name(),
            "shaderSharedFloat32AtomicAdd"
        );
    }
}
