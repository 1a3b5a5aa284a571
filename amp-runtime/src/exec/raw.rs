//! [`RawKernel`]: hand-written SPIR-V launched with an explicit workgroup grid.

use super::call::{mark_written, Arg, KernelArg};
use super::launch::enqueue;
use super::pipeline::{ImageDescriptor, Pipeline};
use std::sync::Arc;

use crate::device::{Accelerator, Device};
use crate::kernel::TextureAccess;
use crate::Error;

/// A compute shader given as raw SPIR-V, launched with an explicit workgroup grid.
///
/// For hand-written shaders and benchmarks; kernels written in Rust go through
/// `#[kernel(amp)]` and [`parallel_for_each`](crate::parallel_for_each). Buffers are bound in descriptor set 0 at
/// bindings `0..bindings` in the order they are passed; the push-constant block is passed as
/// bytes. Buffers of `bool` are refused ([`Error::ArgumentMismatch`]): a `bool` is only the
/// byte 0 or 1, which a hand-written shader need not keep.
///
/// ```ignore
/// let k = RawKernel::new(&acc, &spirv_words, "main", 2, 4)?;
/// k.dispatch([groups, 1, 1], vec![KernelArg::read(&input), KernelArg::write(&mut output)],
///            &(n as u32).to_ne_bytes())?;
/// ```
pub struct RawKernel {
    /// The Vulkan device of `acc`.
    device: Arc<Device>,
    acc: Accelerator,
    pipeline: Pipeline,
    name: String,
    bindings: Vec<RawBinding>,
}

/// What a [`RawKernel`] binds at one binding of set 0 ([`RawKernel::with_bindings`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawBinding {
    /// A storage buffer: an array or view ([`KernelArg::read`], [`KernelArg::write`]).
    StorageBuffer,
    /// A sampled image: a texture view ([`KernelArg::texture`]).
    SampledImage,
    /// A storage image: a write-only texture view ([`KernelArg::writeonly_texture`]).
    StorageImage,
    /// A sampler ([`KernelArg::sampler`]).
    Sampler,
}

impl RawBinding {
    fn descriptor_type(self) -> ash::vk::DescriptorType {
        use ash::vk::DescriptorType as D;
        match self {
            RawBinding::StorageBuffer => D::STORAGE_BUFFER,
            RawBinding::SampledImage => D::SAMPLED_IMAGE,
            RawBinding::StorageImage => D::STORAGE_IMAGE,
            RawBinding::Sampler => D::SAMPLER,
        }
    }
}

impl RawKernel {
    /// Builds the pipeline for `spirv` (entry point `entry_point`) on `acc`, with
    /// `bindings` storage buffers and `push_constant_size` bytes of push constants.
    pub fn new(
        acc: &Accelerator,
        spirv: &[u32],
        entry_point: &str,
        bindings: u32,
        push_constant_size: u32,
    ) -> Result<Self, Error> {
        let all = vec![RawBinding::StorageBuffer; bindings as usize];
        Self::with_bindings(acc, spirv, entry_point, &all, push_constant_size)
    }

    /// As [`new`](Self::new), with `bindings[i]` at binding `i`: storage buffers, texture
    /// views and samplers (for hand-written shaders that sample).
    pub fn with_bindings(
        acc: &Accelerator,
        spirv: &[u32],
        entry_point: &str,
        bindings: &[RawBinding],
        push_constant_size: u32,
    ) -> Result<Self, Error> {
        let binding_numbers: Vec<(u32, ash::vk::DescriptorType)> = bindings
            .iter()
            .enumerate()
            .map(|(b, kind)| (b as u32, kind.descriptor_type()))
            .collect();
        let device = acc.vulkan("raw SPIR-V kernels (RawKernel)")?;
        let pipeline = Pipeline::create(
            device,
            entry_point,
            spirv,
            entry_point,
            &binding_numbers,
            push_constant_size,
            None,
            false,
        )?;
        Ok(RawKernel {
            device: device.clone(),
            acc: acc.clone(),
            pipeline,
            name: entry_point.to_owned(),
            bindings: bindings.to_vec(),
        })
    }

    /// The accelerator the kernel runs on.
    pub fn accelerator(&self) -> &Accelerator {
        &self.acc
    }

    /// Runs `groups` workgroups with `buffers` bound at bindings `0, 1, ...` and the
    /// push-constant block `push_constants` on the accelerator's default view. Writable
    /// buffers ([`KernelArg::write`]) are marked as written. While the default view times its
    /// launches ([`AcceleratorView::set_profiling`](crate::AcceleratorView::set_profiling)),
    /// the dispatch is timed under the entry point's name.
    pub fn dispatch(
        &self,
        groups: [u32; 3],
        buffers: Vec<KernelArg<'_>>,
        push_constants: &[u8],
    ) -> Result<(), Error> {
        let _span = tracing::info_span!(
            "raw_dispatch",
            kernel = self.name.as_str(),
            groups = ?groups,
            device = self.device.device_path()
        )
        .entered();
        let mismatch = |reason: String| Error::ArgumentMismatch {
            kernel: self.name.clone(),
            reason,
        };
        let max = self.device.limits().max_workgroup_count;
        for d in 0..3 {
            if groups[d] > max[d] {
                return Err(Error::TooManyWorkgroups {
                    groups: u64::from(groups[d]),
                    limit: u64::from(max[d]),
                });
            }
        }
        if buffers.len() != self.pipeline.bindings as usize {
            return Err(mismatch(format!(
                "expected {} bindings, got {}",
                self.pipeline.bindings,
                buffers.len()
            )));
        }
        if push_constants.len() != self.pipeline.push_constant_size as usize {
            return Err(mismatch(format!(
                "expected {} bytes of push constants, got {}",
                self.pipeline.push_constant_size,
                push_constants.len()
            )));
        }
        if groups.contains(&0) {
            // No workgroups: nothing to run, as `vkCmdDispatch` with a zero count runs nothing.
            return Ok(());
        }
        let mut bindings = Vec::with_capacity(buffers.len());
        let mut prepared = Vec::with_capacity(buffers.len());
        let mut images = Vec::new();
        let mut image_owners = Vec::new();
        for (i, (arg, &kind)) in buffers.iter().zip(&self.bindings).enumerate() {
            let b = i as u32;
            match (&arg.0, kind) {
                (Arg::Buffer { buf, .. }, RawBinding::StorageBuffer) => {
                    // A hand-written shader may store any byte: `bool`s hold only 0 and 1.
                    if crate::scalar::holds_bools(buf.elem()) {
                        return Err(mismatch(format!(
                            "binding {i} is a buffer of `bool`s, which a hand-written kernel \
                             could fill with bytes other than 0 and 1: bind `u8`s instead"
                        )));
                    }
                    let p = buf.prepare(&self.acc, self.device.default_queue())?;
                    bindings.push((b, p.info));
                    prepared.push(p);
                }
                (
                    Arg::Texture { target, access, .. },
                    RawBinding::SampledImage | RawBinding::StorageImage,
                ) => {
                    let want = match kind {
                        RawBinding::SampledImage => TextureAccess::Read,
                        _ => TextureAccess::Write,
                    };
                    if *access != want {
                        return Err(mismatch(format!(
                            "binding {i} is a {kind:?} but the texture view is not"
                        )));
                    }
                    let image = target.texels.image(&target.acc, self.device.name())?;
                    let view = image.view();
                    images.push((
                        b,
                        match want {
                            TextureAccess::Read => ImageDescriptor::Sampled(view),
                            TextureAccess::Write => ImageDescriptor::Storage(view),
                        },
                    ));
                    image_owners.push(image.clone());
                }
                (Arg::Sampler(s), RawBinding::Sampler) => {
                    images.push((b, ImageDescriptor::Sampler(s.vk(&self.device)?)));
                }
                (_, kind) => {
                    return Err(mismatch(format!(
                        "binding {i} is a {kind:?} but the argument is {:?}",
                        arg
                    )))
                }
            }
        }
        enqueue(
            &self.acc.default_view(),
            crate::device::Timed {
                kernel: &self.name,
                tune: None,
            },
            &self.pipeline,
            &bindings,
            &prepared,
            &images,
            image_owners,
            None,
            push_constants,
            groups,
            || mark_written(&buffers, &self.acc),
        )
    }
}

impl Drop for RawKernel {
    fn drop(&mut self) {
        // Dispatches may be in flight on the default view: they end first.
        let _ = self.device.default_queue().wait_all(&self.device, true);
        // SAFETY: every dispatch finished; the pipeline is not used again.
        unsafe { self.pipeline.destroy(self.device.vk()) };
    }
}

impl std::fmt::Debug for RawKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawKernel")
            .field("entry_point", &self.name)
            .field("accelerator", &self.acc.name())
            .finish()
    }
}
