//! Compute pipelines and the per-device pipeline cache.

use std::collections::HashMap;
use std::ffi::CString;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ash::vk;

use crate::accelerator::{lock, DeviceShared, Submitter};
use crate::counts::LIVE_PIPELINES;
use crate::kernel::{KernelInfo, ParamKind};
use crate::launch::Specialization;
use crate::Error;

/// The per-device pipeline cache: pipelines by the address of their kernel's SPIR-V words,
/// then by kernel and specialization.
///
/// Looked up on every launch, so a lookup neither allocates nor hashes bytes: the address is
/// hashed as one word, and the few pipelines of one kernel (one per specialization) are
/// compared in place.
#[derive(Default)]
pub(crate) struct PipelineCache {
    by_spirv: HashMap<usize, Vec<CachedPipeline>, BuildHasherDefault<AddressHasher>>,
}

struct CachedPipeline {
    hash: u64,
    name: &'static str,
    spirv_len: usize,
    /// The specialization's bytes (workgroup size of tiled kernels, the call's constants).
    spec: Vec<u8>,
    pipeline: Arc<Pipeline>,
}

impl PipelineCache {
    fn get(&self, info: &KernelInfo, spec: &[u8]) -> Option<&Arc<Pipeline>> {
        self.by_spirv
            .get(&(info.spirv.as_ptr() as usize))?
            .iter()
            .find(|c| {
                c.hash == info.hash
                    && c.name == info.name
                    && c.spirv_len == info.spirv.len()
                    && c.spec == spec
            })
            .map(|c| &c.pipeline)
    }

    fn insert(&mut self, info: &'static KernelInfo, spec: &[u8], pipeline: Arc<Pipeline>) {
        self.by_spirv
            .entry(info.spirv.as_ptr() as usize)
            .or_default()
            .push(CachedPipeline {
                hash: info.hash,
                name: info.name,
                spirv_len: info.spirv.len(),
                spec: spec.to_vec(),
                pipeline,
            });
    }

    /// Empties the cache, returning every pipeline (for destruction with the device).
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = Arc<Pipeline>> + '_ {
        self.by_spirv
            .drain()
            .flat_map(|(_, list)| list.into_iter().map(|c| c.pipeline))
    }
}

/// Hashes an address (the only key of [`PipelineCache`]): a multiply spreads its bits, which
/// is all a pointer needs (SipHash is built for untrusted keys and costs more per launch).
#[derive(Default)]
struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// Buffers destroyed so far in the process: part of every [`LaunchKey`], so a recorded launch
/// is never submitted again once a buffer has been destroyed (its handle, bound in the
/// recording, may since name a new buffer).
static BUFFERS_DESTROYED: AtomicU64 = AtomicU64::new(0);

/// Notes that a buffer is about to be destroyed (called before its handle is freed).
pub(crate) fn buffer_destroyed() {
    BUFFERS_DESTROYED.fetch_add(1, Ordering::SeqCst);
}

/// Everything a launch records: pipeline, bound buffers, push constants and workgroup grid.
/// When the command buffer of a submitter holds a launch with an equal key, submitting it again
/// does the same work, so the launch skips recording (and the descriptor set update).
pub(crate) struct LaunchKey<'a> {
    pipeline: u64,
    buffers_destroyed: u64,
    groups: [u32; 3],
    bindings: &'a [(u32, vk::DescriptorBufferInfo)],
    push: &'a [u8],
}

/// An owned [`LaunchKey`]: what a submitter's command buffer holds.
pub(crate) struct RecordedLaunch {
    pipeline: u64,
    buffers_destroyed: u64,
    groups: [u32; 3],
    bindings: Vec<(u32, vk::Buffer, vk::DeviceSize, vk::DeviceSize)>,
    push: Vec<u8>,
}

impl LaunchKey<'_> {
    /// Whether `recorded` is this launch.
    pub(crate) fn matches(&self, recorded: &RecordedLaunch) -> bool {
        recorded.pipeline == self.pipeline
            && recorded.buffers_destroyed == self.buffers_destroyed
            && recorded.groups == self.groups
            && recorded.push == self.push
            && recorded.bindings.len() == self.bindings.len()
            && recorded.bindings.iter().zip(self.bindings).all(
                |(&(b, buffer, offset, range), (binding, info))| {
                    b == *binding
                        && buffer == info.buffer
                        && offset == info.offset
                        && range == info.range
                },
            )
    }

    /// The owned form, stored with the recording.
    pub(crate) fn to_recorded(&self) -> RecordedLaunch {
        RecordedLaunch {
            pipeline: self.pipeline,
            buffers_destroyed: self.buffers_destroyed,
            groups: self.groups,
            bindings: self
                .bindings
                .iter()
                .map(|(b, info)| (*b, info.buffer, info.offset, info.range))
                .collect(),
            push: self.push.to_vec(),
        }
    }
}

/// Ids of created pipelines: a recorded launch names its pipeline by id, since a destroyed
/// pipeline's handle may come back for a new one.
static NEXT_PIPELINE_ID: AtomicU64 = AtomicU64::new(1);

const SPIRV_MAGIC: u32 = 0x0723_0203;

/// A compute pipeline and the objects it was built from. Destroyed explicitly by its owner
/// (the device for cached pipelines, a [`RawKernel`](crate::RawKernel) for its own).
pub(crate) struct Pipeline {
    module: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    /// Unique among the process's pipelines (see [`LaunchKey`]).
    id: u64,
    /// Number of storage-buffer bindings in set 0.
    pub(crate) bindings: u32,
    /// Bytes of push constants.
    pub(crate) push_constant_size: u32,
}

impl Pipeline {
    /// Builds a pipeline for `spirv` with storage buffers at `bindings` in set 0, a
    /// push-constant block of `push_constant_size` bytes and the specialization `spec`.
    pub(crate) fn create(
        device: &DeviceShared,
        kernel: &str,
        spirv: &[u32],
        entry_point: &str,
        bindings: &[u32],
        push_constant_size: u32,
        spec: Option<&Specialization>,
    ) -> Result<Pipeline, Error> {
        let invalid = |reason: String| Error::InvalidKernel {
            kernel: kernel.to_owned(),
            reason,
        };
        if spirv.len() < 5 || spirv[0] != SPIRV_MAGIC {
            return Err(invalid(
                "the module is not SPIR-V (bad magic number)".into(),
            ));
        }
        if push_constant_size % 4 != 0 {
            return Err(invalid(format!(
                "push-constant size {push_constant_size} is not a multiple of 4"
            )));
        }
        let limit = device.limits.max_push_constants_size;
        if push_constant_size > limit {
            return Err(Error::PushConstantsTooLarge {
                kernel: kernel.to_owned(),
                size: push_constant_size,
                limit,
            });
        }
        if let Some(feature) = device.atomic_float32.first_missing(spirv) {
            return Err(Error::MissingCapability {
                kernel: kernel.to_owned(),
                capability: feature.name(),
                device: device.name.clone(),
            });
        }
        let entry = CString::new(entry_point)
            .map_err(|_| invalid("entry point contains a NUL byte".into()))?;
        let d = &device.device;
        let mut p = Pipeline {
            module: vk::ShaderModule::null(),
            set_layout: vk::DescriptorSetLayout::null(),
            layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
            id: NEXT_PIPELINE_ID.fetch_add(1, Ordering::Relaxed),
            bindings: bindings.len() as u32,
            push_constant_size,
        };
        // SAFETY: object creation on a live device; on error the partially built pipeline is
        // destroyed (destroying null handles is a no-op).
        let result = unsafe {
            (|| -> Result<(), Error> {
                let spirv = float_controls_for(spirv, device.preserve_float_specials);
                p.module = d
                    .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&spirv), None)
                    .map_err(Error::vk("vkCreateShaderModule"))?;
                let layout_bindings: Vec<_> = bindings
                    .iter()
                    .map(|&b| {
                        vk::DescriptorSetLayoutBinding::default()
                            .binding(b)
                            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                            .descriptor_count(1)
                            .stage_flags(vk::ShaderStageFlags::COMPUTE)
                    })
                    .collect();
                p.set_layout = d
                    .create_descriptor_set_layout(
                        &vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings),
                        None,
                    )
                    .map_err(Error::vk("vkCreateDescriptorSetLayout"))?;
                let ranges = [vk::PushConstantRange {
                    stage_flags: vk::ShaderStageFlags::COMPUTE,
                    offset: 0,
                    size: push_constant_size,
                }];
                let set_layouts = [p.set_layout];
                let mut info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
                if push_constant_size > 0 {
                    info = info.push_constant_ranges(&ranges);
                }
                p.layout = d
                    .create_pipeline_layout(&info, None)
                    .map_err(Error::vk("vkCreatePipelineLayout"))?;
                let spec_info = spec.filter(|s| !s.entries.is_empty()).map(|s| {
                    vk::SpecializationInfo::default()
                        .map_entries(&s.entries)
                        .data(&s.data)
                });
                let mut stage = vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::COMPUTE)
                    .module(p.module)
                    .name(&entry);
                if let Some(info) = &spec_info {
                    stage = stage.specialization_info(info);
                }
                let create = vk::ComputePipelineCreateInfo::default()
                    .stage(stage)
                    .layout(p.layout);
                p.pipeline = d
                    .create_compute_pipelines(vk::PipelineCache::null(), &[create], None)
                    .map_err(|(_, r)| Error::vk("vkCreateComputePipelines")(r))?[0];
                Ok(())
            })()
        };
        match result {
            Ok(()) => {
                LIVE_PIPELINES.created();
                Ok(p)
            }
            Err(e) => {
                // SAFETY: nothing uses the partial pipeline.
                unsafe { p.destroy(d) };
                Err(e)
            }
        }
    }

    /// Destroys the Vulkan objects.
    ///
    /// # Safety
    /// No pending command buffer may use the pipeline; it must not be used afterwards.
    pub(crate) unsafe fn destroy(&self, d: &ash::Device) {
        if self.pipeline != vk::Pipeline::null() {
            LIVE_PIPELINES.destroyed();
        }
        // SAFETY: per the function's contract.
        unsafe {
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            d.destroy_shader_module(self.module, None);
        }
    }

    /// Runs one dispatch of this pipeline with `submitter` (an accelerator view's) and waits
    /// for it: records it, or submits the command buffer again when it already holds exactly
    /// this launch (see [`LaunchKey`]).
    ///
    /// `buffers` pairs binding numbers with buffer ranges (buffers the caller keeps alive);
    /// `push` is the push-constant block.
    pub(crate) fn run(
        &self,
        device: &DeviceShared,
        submitter: &Mutex<Submitter>,
        buffers: &[(u32, vk::DescriptorBufferInfo)],
        push: &[u8],
        groups: [u32; 3],
    ) -> Result<(), Error> {
        let key = LaunchKey {
            pipeline: self.id,
            // Read after the buffers were prepared: a buffer destroyed before any of them was
            // created is counted (see `buffer_destroyed`).
            buffers_destroyed: BUFFERS_DESTROYED.load(Ordering::SeqCst),
            groups,
            bindings: buffers,
            push,
        };
        device.submit_launch_on(submitter, &key, |d, s: &mut Submitter| {
            // SAFETY: every handle is live; the command buffer is recording and the descriptor
            // pool's previous set is no longer in use.
            unsafe { self.record(device, d, s, buffers, push, groups) }
        })
    }

    /// Records the dispatch: descriptor set, pipeline, push constants, grid.
    ///
    /// # Safety
    /// `s.cmd` is recording; the descriptor pool's sets are not in use by pending work.
    unsafe fn record(
        &self,
        device: &DeviceShared,
        d: &ash::Device,
        s: &mut Submitter,
        buffers: &[(u32, vk::DescriptorBufferInfo)],
        push: &[u8],
        groups: [u32; 3],
    ) -> Result<(), Error> {
        // SAFETY: per the function's contract.
        unsafe {
            if !buffers.is_empty() {
                self.bind_buffers(device, d, s, buffers)?;
            }
            d.cmd_bind_pipeline(s.cmd, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            if !push.is_empty() {
                d.cmd_push_constants(s.cmd, self.layout, vk::ShaderStageFlags::COMPUTE, 0, push);
            }
            d.cmd_dispatch(s.cmd, groups[0], groups[1], groups[2]);
        }
        Ok(())
    }

    /// Allocates the launch's descriptor set from the submitter's pool, writes `buffers` into
    /// it and binds it.
    ///
    /// # Safety
    /// As for [`Self::record`].
    unsafe fn bind_buffers(
        &self,
        device: &DeviceShared,
        d: &ash::Device,
        s: &mut Submitter,
        buffers: &[(u32, vk::DescriptorBufferInfo)],
    ) -> Result<(), Error> {
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> =
            buffers.iter().map(|&(_, info)| [info]).collect();
        // SAFETY: per the function's contract.
        unsafe {
            device.reset_descriptor_pool(s, buffers.len() as u32)?;
            let layouts = [self.set_layout];
            let set = d
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(s.descriptor_pool)
                        .set_layouts(&layouts),
                )
                .map_err(Error::vk("vkAllocateDescriptorSets"))?[0];
            let writes: Vec<_> = buffers
                .iter()
                .zip(&infos)
                .map(|(&(binding, _), info)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(set)
                        .dst_binding(binding)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(info)
                })
                .collect();
            d.update_descriptor_sets(&writes, &[]);
            d.cmd_bind_descriptor_sets(
                s.cmd,
                vk::PipelineBindPoint::COMPUTE,
                self.layout,
                0,
                &[set],
                &[],
            );
        }
        Ok(())
    }
}

/// The cached pipeline for `info` specialized with `spec` on `device`, built on first use.
pub(crate) fn cached(
    device: &Arc<DeviceShared>,
    info: &'static KernelInfo,
    spec: &Specialization,
) -> Result<Arc<Pipeline>, Error> {
    let mut cache = lock(&device.pipelines);
    if let Some(p) = cache.get(info, &spec.data) {
        return Ok(p.clone());
    }
    let bindings: Vec<u32> = info
        .params
        .iter()
        .filter_map(|p| match p.kind {
            ParamKind::Buffer { binding, .. } => Some(binding),
            ParamKind::Scalar { .. } | ParamKind::Value { .. } => None,
        })
        .chain(info.oob_report_binding)
        .collect();
    let p = Arc::new(Pipeline::create(
        device,
        info.name,
        info.spirv,
        info.entry_point,
        &bindings,
        info.push_constant_size,
        Some(spec),
    )?);
    cache.insert(info, &spec.data, p.clone());
    Ok(p)
}

/// The module as this device can load it: kernels ask for `SignedZeroInfNanPreserve` (Rust's
/// float semantics); on a device that cannot keep NaN, infinities and signed zeros for a width,
/// that request is dropped (and with it, when no width is left, the capability and extension),
/// so the kernel still runs, with the driver free to fold `x * 0.0` and the like.
fn float_controls_for(words: &[u32], preserve: [bool; 2]) -> std::borrow::Cow<'_, [u32]> {
    const OP_EXTENSION: u32 = 10;
    const OP_EXECUTION_MODE: u32 = 16;
    const OP_CAPABILITY: u32 = 17;
    const CAPABILITY_PRESERVE: u32 = 4466;
    const MODE_PRESERVE: u32 = 4461;
    let supported = |width: u32| match width {
        32 => preserve[0],
        64 => preserve[1],
        _ => false,
    };
    let mut out = Vec::with_capacity(words.len());
    out.extend_from_slice(&words[..words.len().min(5)]);
    let mut dropped = false;
    let mut kept = false;
    let mut at = 5;
    while at < words.len() {
        let count = ((words[at] >> 16) as usize).max(1);
        let inst = &words[at..(at + count).min(words.len())];
        at += count;
        if inst[0] & 0xffff == OP_EXECUTION_MODE && inst.get(2) == Some(&MODE_PRESERVE) {
            if inst.get(3).is_some_and(|&w| supported(w)) {
                kept = true;
            } else {
                dropped = true;
                continue;
            }
        }
        out.extend_from_slice(inst);
    }
    if !dropped {
        return std::borrow::Cow::Borrowed(words);
    }
    if !kept {
        out = strip_float_controls_declarations(
            &out,
            OP_CAPABILITY,
            CAPABILITY_PRESERVE,
            OP_EXTENSION,
        );
    }
    std::borrow::Cow::Owned(out)
}

fn strip_float_controls_declarations(
    words: &[u32],
    op_capability: u32,
    capability: u32,
    op_extension: u32,
) -> Vec<u32> {
    let name: Vec<u32> = b"SPV_KHR_float_controls\0\0"
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut out = Vec::with_capacity(words.len());
    out.extend_from_slice(&words[..words.len().min(5)]);
    let mut at = 5;
    while at < words.len() {
        let count = ((words[at] >> 16) as usize).max(1);
        let inst = &words[at..(at + count).min(words.len())];
        at += count;
        let op = inst[0] & 0xffff;
        let is_capability = op == op_capability && inst.get(1) == Some(&capability);
        let is_extension = op == op_extension && inst[1..] == name[..];
        if !is_capability && !is_extension {
            out.extend_from_slice(inst);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::float_controls_for;

    /// A module header plus `OpCapability SignedZeroInfNanPreserve`,
    /// `OpExtension "SPV_KHR_float_controls"` and `OpExecutionMode %1 SignedZeroInfNanPreserve 32`.
    fn module() -> Vec<u32> {
        let mut w = vec![0x0723_0203, 0x0001_0300, 0, 10, 0];
        w.extend([(2 << 16) | 17, 4466]);
        let name: Vec<u32> = b"SPV_KHR_float_controls\0\0"
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        w.push(((1 + name.len() as u32) << 16) | 10);
        w.extend(&name);
        w.extend([(4 << 16) | 16, 1, 4461, 32]);
        w
    }

    #[test]
    fn kept_where_supported() {
        let m = module();
        assert_eq!(&*float_controls_for(&m, [true, false]), &m[..]);
    }

    #[test]
    fn stripped_where_unsupported() {
        let m = module();
        assert_eq!(&*float_controls_for(&m, [false, true]), &m[..5]);
    }
}
