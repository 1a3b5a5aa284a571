//! [`RawKernel`]: hand-written SPIR-V launched with an explicit workgroup grid.

use super::call::{mark_written, Arg, KernelArg};
use super::launch::enqueue;
use super::pipeline::Pipeline;
use crate::device::Accelerator;
use crate::Error;

/// A compute shader given as raw SPIR-V, launched with an explicit workgroup grid.
///
/// For hand-written shaders and benchmarks; kernels written in Rust go through
/// `#[kernel(amp)]` and [`parallel_for_each`](crate::parallel_for_each). Buffers are bound in descriptor set 0 at
/// bindings `0..bindings` in the order they are passed; the push-constant block is passed as
/// bytes.
///
/// ```ignore
/// let k = RawKernel::new(&acc, &spirv_words, "main", 2, 4)?;
/// k.dispatch([groups, 1, 1], vec![KernelArg::read(&input), KernelArg::write(&mut output)],
///            &(n as u32).to_ne_bytes())?;
/// ```
pub struct RawKernel {
    acc: Accelerator,
    pipeline: Pipeline,
    name: String,
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
        let binding_numbers: Vec<(u32, ash::vk::DescriptorType)> = (0..bindings)
            .map(|b| (b, ash::vk::DescriptorType::STORAGE_BUFFER))
            .collect();
        let pipeline = Pipeline::create(
            acc.device(),
            entry_point,
            spirv,
            entry_point,
            &binding_numbers,
            push_constant_size,
            None,
        )?;
        Ok(RawKernel {
            acc: acc.clone(),
            pipeline,
            name: entry_point.to_owned(),
        })
    }

    /// The accelerator the kernel runs on.
    pub fn accelerator(&self) -> &Accelerator {
        &self.acc
    }

    /// Runs `groups` workgroups with `buffers` bound at bindings `0, 1, ...` and the
    /// push-constant block `push_constants`, and waits for them. Writable buffers
    /// ([`KernelArg::write`]) are marked as written.
    pub fn dispatch(
        &self,
        groups: [u32; 3],
        buffers: Vec<KernelArg<'_>>,
        push_constants: &[u8],
    ) -> Result<(), Error> {
        let mismatch = |reason: String| Error::ArgumentMismatch {
            kernel: self.name.clone(),
            reason,
        };
        if groups.contains(&0) {
            return Err(Error::ZeroExtent);
        }
        let max = self.acc.device().limits().max_workgroup_count;
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
                "expected {} buffers, got {}",
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
        let mut bindings = Vec::with_capacity(buffers.len());
        let mut prepared = Vec::with_capacity(buffers.len());
        for (i, arg) in buffers.iter().enumerate() {
            match &arg.0 {
                Arg::Buffer { buf, .. } => {
                    let p = buf.prepare(&self.acc)?;
                    bindings.push((i as u32, p.info));
                    prepared.push(p);
                }
                Arg::Scalar { .. } | Arg::Value { .. } => {
                    return Err(mismatch(format!(
                        "argument {i} is a scalar or value; pass those in the push constants"
                    )))
                }
                Arg::Texture { .. } | Arg::Sampler(_) => return Err(mismatch(format!(
                    "argument {i} is a texture or sampler; raw kernels bind storage buffers only"
                ))),
            }
        }
        enqueue(
            &self.acc.default_view(),
            &self.pipeline,
            &bindings,
            prepared,
            &[],
            Vec::new(),
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
        let _ = self
            .acc
            .device()
            .default_queue()
            .wait_all(self.acc.device(), true);
        // SAFETY: every dispatch finished; the pipeline is not used again.
        unsafe { self.pipeline.destroy(self.acc.device().vk()) };
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
