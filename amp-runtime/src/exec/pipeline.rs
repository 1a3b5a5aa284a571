//! Compute pipelines: building one from SPIR-V ([`Pipeline::create`]), its
//! [`Specialization`], and recording and running one dispatch of it.

use std::ffi::CString;

use ash::vk;

use super::float_controls::float_controls_for;
use crate::device::{Device, Recording, LIVE_PIPELINES};
use crate::Error;

/// The specialization of a pipeline: map entries and their data (host byte order).
#[derive(Default)]
pub(crate) struct Specialization {
    pub(crate) entries: Vec<vk::SpecializationMapEntry>,
    pub(crate) data: Vec<u8>,
}

impl Specialization {
    /// Adds constant `id` with the value `words` (1 or 2 words, low word first).
    pub(super) fn push(&mut self, id: u32, words: &[u32]) {
        let offset = self.data.len() as u32;
        match *words {
            [w] => self.data.extend_from_slice(&w.to_ne_bytes()),
            [lo, hi] => self
                .data
                .extend_from_slice(&(u64::from(lo) | (u64::from(hi) << 32)).to_ne_bytes()),
            _ => unreachable!("a specialization constant is 1 or 2 words"),
        }
        self.entries.push(vk::SpecializationMapEntry {
            constant_id: id,
            offset,
            size: 4 * words.len(),
        });
    }
}

const SPIRV_MAGIC: u32 = 0x0723_0203;

/// An image or sampler bound at launch.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ImageDescriptor {
    /// A texture view kernels read and sample.
    Sampled(vk::ImageView),
    /// A texture view kernels write.
    Storage(vk::ImageView),
    /// A sampler.
    Sampler(vk::Sampler),
}

impl ImageDescriptor {
    fn descriptor_type(&self) -> vk::DescriptorType {
        match self {
            ImageDescriptor::Sampled(_) => vk::DescriptorType::SAMPLED_IMAGE,
            ImageDescriptor::Storage(_) => vk::DescriptorType::STORAGE_IMAGE,
            ImageDescriptor::Sampler(_) => vk::DescriptorType::SAMPLER,
        }
    }
}

/// A compute pipeline and the objects it was built from. Destroyed explicitly by its owner
/// (the device for cached pipelines, a [`RawKernel`](crate::RawKernel) for its own).
pub(crate) struct Pipeline {
    module: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    /// Number of bindings in set 0.
    pub(crate) bindings: u32,
    /// Bytes of push constants.
    pub(crate) push_constant_size: u32,
}

impl Pipeline {
    /// Builds a pipeline for `spirv` with `bindings` (number and descriptor type) in set 0, a
    /// push-constant block of `push_constant_size` bytes and the specialization `spec`.
    /// `checks_its_accesses`: the kernel bounds-checks every access of its views, so it runs
    /// without robust buffer access where the device allows that per pipeline (the device's
    /// robustness is for kernels that do not check, and costs a comparison per access).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn create(
        device: &Device,
        kernel: &str,
        spirv: &[u32],
        entry_point: &str,
        bindings: &[(u32, vk::DescriptorType)],
        push_constant_size: u32,
        spec: Option<&Specialization>,
        checks_its_accesses: bool,
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
        if !push_constant_size.is_multiple_of(4) {
            return Err(invalid(format!(
                "push-constant size {push_constant_size} is not a multiple of 4"
            )));
        }
        let limit = device.limits().max_push_constants_size;
        if push_constant_size > limit {
            return Err(Error::PushConstantsTooLarge {
                kernel: kernel.to_owned(),
                size: push_constant_size,
                limit,
            });
        }
        if let Some(feature) = device.atomic_float32().first_missing(spirv) {
            return Err(Error::MissingCapability {
                kernel: kernel.to_owned(),
                capability: feature.name(),
                device: device.name().to_owned(),
            });
        }
        if let Some(feature) = device.missing_subgroup_feature(spirv) {
            return Err(Error::MissingCapability {
                kernel: kernel.to_owned(),
                capability: feature,
                device: device.name().to_owned(),
            });
        }
        let entry = CString::new(entry_point)
            .map_err(|_| invalid("entry point contains a NUL byte".into()))?;
        let d = device.vk();
        let mut p = Pipeline {
            module: vk::ShaderModule::null(),
            set_layout: vk::DescriptorSetLayout::null(),
            layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
            bindings: bindings.len() as u32,
            push_constant_size,
        };
        // SAFETY: object creation on a live device; on error the partially built pipeline is
        // destroyed (destroying null handles is a no-op).
        let result = unsafe {
            (|| -> Result<(), Error> {
                let spirv = float_controls_for(spirv, device.float_controls());
                p.module = d
                    .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&spirv), None)
                    .map_err(Error::vk("vkCreateShaderModule"))?;
                let layout_bindings: Vec<_> = bindings
                    .iter()
                    .map(|&(b, ty)| {
                        vk::DescriptorSetLayoutBinding::default()
                            .binding(b)
                            .descriptor_type(ty)
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
                let mut unchecked_by_device = vk::PipelineRobustnessCreateInfoEXT::default()
                    .storage_buffers(vk::PipelineRobustnessBufferBehaviorEXT::DISABLED)
                    .uniform_buffers(vk::PipelineRobustnessBufferBehaviorEXT::DEVICE_DEFAULT)
                    .vertex_inputs(vk::PipelineRobustnessBufferBehaviorEXT::DEVICE_DEFAULT)
                    .images(vk::PipelineRobustnessImageBehaviorEXT::DEVICE_DEFAULT);
                let mut create = vk::ComputePipelineCreateInfo::default()
                    .stage(stage)
                    .layout(p.layout);
                if device.robust_access_off(checks_its_accesses) {
                    create = create.push_next(&mut unchecked_by_device);
                }
                p.pipeline = d
                    .create_compute_pipelines(device.pipeline_cache(), &[create], None)
                    .map_err(|(_, r)| Error::vk("vkCreateComputePipelines")(r))?[0];
                device.pipeline_created();
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

    /// Records one dispatch: descriptor set, pipeline, push constants, grid.
    ///
    /// `buffers` pairs binding numbers with buffer ranges and `images` with image views and
    /// samplers (all of which the batch keeps alive); `push` is the push-constant block.
    pub(crate) fn record(
        &self,
        rec: &mut Recording<'_>,
        buffers: &[(u32, vk::DescriptorBufferInfo)],
        images: &[(u32, ImageDescriptor)],
        push: &[u8],
        groups: [u32; 3],
    ) -> Result<(), Error> {
        if !buffers.is_empty() || !images.is_empty() {
            self.bind(rec, buffers, images)?;
        }
        let bound = rec.bind_pipeline_once(self.pipeline);
        // A chain of launches of one plan pushes its block once per batch.
        let push_now = !push.is_empty() && rec.push_once(push);
        let (d, cmd) = (rec.vk(), rec.cmd());
        // SAFETY: every handle is live and the command buffer is recording.
        unsafe {
            if !bound {
                d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            }
            if push_now {
                d.cmd_push_constants(cmd, self.layout, vk::ShaderStageFlags::COMPUTE, 0, push);
            }
            d.cmd_dispatch(cmd, groups[0], groups[1], groups[2]);
        }
        Ok(())
    }

    /// Binds the launch's descriptor set: `buffers` and `images` written into a set from the
    /// batch's pool. A set of this batch written with the same buffers and no images (a chain
    /// of launches alternating between a few arrays) is bound again rather than written anew;
    /// sets with images are not reused (their launches are few and their keys larger).
    fn bind(
        &self,
        rec: &mut Recording<'_>,
        buffers: &[(u32, vk::DescriptorBufferInfo)],
        images: &[(u32, ImageDescriptor)],
    ) -> Result<(), Error> {
        let cached = if images.is_empty() {
            rec.written_set(self.set_layout, buffers)
        } else {
            None
        };
        let set = match cached {
            Some(set) => set,
            None => {
                let set =
                    rec.allocate_set(self.set_layout, (buffers.len() + images.len()) as u32)?;
                self.write_set(rec, set, buffers, images);
                if images.is_empty() {
                    rec.remember_set(self.set_layout, buffers, set);
                }
                set
            }
        };
        let (d, cmd) = (rec.vk(), rec.cmd());
        // SAFETY: the buffers, images and samplers are live (the batch holds them); the
        // command buffer is recording.
        unsafe {
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                self.layout,
                0,
                &[set],
                &[],
            );
        }
        Ok(())
    }

    /// Writes `buffers` and `images` into the new descriptor set `set`.
    fn write_set(
        &self,
        rec: &Recording<'_>,
        set: vk::DescriptorSet,
        buffers: &[(u32, vk::DescriptorBufferInfo)],
        images: &[(u32, ImageDescriptor)],
    ) {
        let buffer_infos: Vec<[vk::DescriptorBufferInfo; 1]> =
            buffers.iter().map(|&(_, info)| [info]).collect();
        let image_infos: Vec<[vk::DescriptorImageInfo; 1]> = images
            .iter()
            .map(|(_, d)| {
                [match *d {
                    ImageDescriptor::Sampled(view) | ImageDescriptor::Storage(view) => {
                        vk::DescriptorImageInfo::default()
                            .image_view(view)
                            .image_layout(vk::ImageLayout::GENERAL)
                    }
                    ImageDescriptor::Sampler(s) => vk::DescriptorImageInfo::default().sampler(s),
                }]
            })
            .collect();
        let mut writes: Vec<_> = buffers
            .iter()
            .zip(&buffer_infos)
            .map(|(&(binding, _), info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(binding)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(info)
            })
            .collect();
        writes.extend(images.iter().zip(&image_infos).map(|((binding, d), info)| {
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(*binding)
                .descriptor_type(d.descriptor_type())
                .image_info(info)
        }));
        // SAFETY: the set is new and not in use; what it describes is live.
        unsafe { rec.vk().update_descriptor_sets(&writes, &[]) };
    }
}
