//! The command objects one batch of work is recorded into ([`Slot`]: command pool and buffer,
//! fence, descriptor pool), the [`Recording`] handed to whoever records into it, the barriers
//! between and around recorded work, and the timeout settings.

use std::sync::OnceLock;
use std::time::Duration;

use ash::vk;

use super::counts::{LIVE_DESCRIPTOR_POOLS, LIVE_SUBMITTERS};
use super::profile::QueryPools;
use crate::Error;

/// The timeout when `AMP_LAUNCH_TIMEOUT_MS` is not set.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The timeout of new views: `AMP_LAUNCH_TIMEOUT_MS` milliseconds (`0`: no limit), or 60 s
/// when it is unset.
pub(crate) fn default_timeout() -> Duration {
    static TIMEOUT: OnceLock<Duration> = OnceLock::new();
    // Checked with every setting when the first accelerator was made (`config::check_all`).
    let millis = || {
        crate::config::number("AMP_LAUNCH_TIMEOUT_MS")
            .ok()
            .flatten()
    };
    *TIMEOUT.get_or_init(|| timeout_of(millis()))
}

/// The timeout `AMP_LAUNCH_TIMEOUT_MS`'s milliseconds set (`None`: unset).
fn timeout_of(millis: Option<u64>) -> Duration {
    match millis {
        Some(0) => Duration::MAX,
        Some(ms) => Duration::from_millis(ms),
        None => DEFAULT_TIMEOUT,
    }
}

/// `timeout` in nanoseconds for `vkWaitForFences` (`u64::MAX` waits forever).
pub(super) fn timeout_nanos(timeout: Duration) -> u64 {
    u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX)
}

/// `timeout` in milliseconds for [`Error::Timeout`].
pub(super) fn timeout_millis(timeout: Duration) -> u64 {
    u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX)
}

/// Descriptor sets one batch holds at most: also the most launches a batch records.
pub(super) const SETS_PER_BATCH: u32 = 256;
/// Storage-buffer descriptors of a new slot's descriptor pool.
const INITIAL_DESCRIPTORS: u32 = 4 * SETS_PER_BATCH;

/// The command objects of one batch: a command pool with one command buffer, its fence, and
/// a descriptor pool for the batch's descriptor sets. A view reuses its slots once their
/// batch finished.
pub(super) struct Slot {
    pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    pub(super) fence: vk::Fence,
    descriptor_pool: vk::DescriptorPool,
    descriptor_capacity: u32,
    sets_used: u32,
    descriptors_used: u32,
    /// Descriptor sets written in this batch, for launches that bind the same buffers again
    /// (the most recent [`SET_CACHE`]).
    written: Vec<WrittenSet>,
    /// The pipeline last bound in this batch.
    bound_pipeline: vk::Pipeline,
    /// The push-constant block last pushed in this batch, while the pipeline it was pushed
    /// for stays bound (cleared when another pipeline is bound).
    pushed: Vec<u8>,
    /// The timestamp queries of the batch's timed launches (none unless the view times them).
    pub(super) queries: QueryPools,
}

/// A descriptor set of a batch and what was written to it.
struct WrittenSet {
    layout: vk::DescriptorSetLayout,
    buffers: Vec<(u32, vk::Buffer, vk::DeviceSize, vk::DeviceSize)>,
    set: vk::DescriptorSet,
}

/// Descriptor sets a batch remembers for reuse.
const SET_CACHE: usize = 8;

impl Slot {
    /// A slot for queue family `family` of `d`.
    pub(super) fn new(d: &ash::Device, family: u32) -> Result<Slot, Error> {
        // SAFETY: object creation on a live device; partial results are destroyed on error.
        unsafe {
            let pool = d
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default()
                        .queue_family_index(family)
                        .flags(vk::CommandPoolCreateFlags::TRANSIENT),
                    None,
                )
                .map_err(Error::vk("vkCreateCommandPool"))?;
            let cleanup_pool = |e| {
                d.destroy_command_pool(pool, None);
                e
            };
            let cmd = d
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(pool)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(1),
                )
                .map_err(Error::vk("vkAllocateCommandBuffers"))
                .map_err(cleanup_pool)?[0];
            let fence = d
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(Error::vk("vkCreateFence"))
                .map_err(cleanup_pool)?;
            let descriptor_pool = create_descriptor_pool(d, INITIAL_DESCRIPTORS).map_err(|e| {
                d.destroy_fence(fence, None);
                cleanup_pool(e)
            })?;
            LIVE_SUBMITTERS.created();
            Ok(Slot {
                pool,
                cmd,
                fence,
                descriptor_pool,
                descriptor_capacity: INITIAL_DESCRIPTORS,
                sets_used: 0,
                descriptors_used: 0,
                written: Vec::new(),
                bound_pipeline: vk::Pipeline::null(),
                pushed: Vec::new(),
                queries: QueryPools::default(),
            })
        }
    }

    /// The command buffer.
    pub(super) fn cmd(&self) -> vk::CommandBuffer {
        self.cmd
    }

    /// Whether one more launch with `descriptors` buffers fits the descriptor pool.
    pub(super) fn fits(&self, descriptors: u32) -> bool {
        self.sets_used < SETS_PER_BATCH
            && self.descriptors_used + descriptors <= self.descriptor_capacity
    }

    /// Starts recording a new batch: resets the command and descriptor pools (growing the
    /// latter to hold a launch with `descriptors` buffers) and the fence.
    ///
    /// # Safety
    /// The slot's previous batch has finished (or never was submitted).
    pub(super) unsafe fn begin(&mut self, d: &ash::Device, descriptors: u32) -> Result<(), Error> {
        // SAFETY: per the function's contract, nothing uses the slot's objects.
        unsafe {
            d.reset_command_pool(self.pool, vk::CommandPoolResetFlags::empty())
                .map_err(Error::vk("vkResetCommandPool"))?;
            if descriptors > self.descriptor_capacity {
                let capacity = descriptors.next_power_of_two();
                let pool = create_descriptor_pool(d, capacity)?;
                d.destroy_descriptor_pool(self.descriptor_pool, None);
                LIVE_DESCRIPTOR_POOLS.destroyed();
                self.descriptor_pool = pool;
                self.descriptor_capacity = capacity;
            } else {
                d.reset_descriptor_pool(
                    self.descriptor_pool,
                    vk::DescriptorPoolResetFlags::empty(),
                )
                .map_err(Error::vk("vkResetDescriptorPool"))?;
            }
            self.sets_used = 0;
            self.descriptors_used = 0;
            self.written.clear();
            self.bound_pipeline = vk::Pipeline::null();
            self.pushed.clear();
            self.queries.clear();
            d.reset_fences(&[self.fence])
                .map_err(Error::vk("vkResetFences"))?;
            d.begin_command_buffer(
                self.cmd,
                &vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
            )
            .map_err(Error::vk("vkBeginCommandBuffer"))?;
        }
        Ok(())
    }

    /// Ends recording: the final barrier that makes the batch's writes visible to the host.
    ///
    /// # Safety
    /// The command buffer is recording.
    pub(super) unsafe fn end(&self, d: &ash::Device) -> Result<(), Error> {
        // SAFETY: per the function's contract.
        unsafe {
            record_barrier(d, self.cmd, Barrier::AfterWork);
            d.end_command_buffer(self.cmd)
                .map_err(Error::vk("vkEndCommandBuffer"))
        }
    }

    /// Destroys the Vulkan objects.
    ///
    /// # Safety
    /// No batch of this slot may be pending; it must not be used afterwards.
    pub(super) unsafe fn destroy(mut self, d: &ash::Device) {
        // SAFETY: per the function's contract.
        unsafe {
            self.queries.destroy(d);
            d.destroy_descriptor_pool(self.descriptor_pool, None);
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.pool, None);
        }
        LIVE_DESCRIPTOR_POOLS.destroyed();
        LIVE_SUBMITTERS.destroyed();
    }
}

fn create_descriptor_pool(d: &ash::Device, capacity: u32) -> Result<vk::DescriptorPool, Error> {
    // A batch's descriptors are counted together: each type gets the whole capacity.
    let sizes = [
        vk::DescriptorType::STORAGE_BUFFER,
        vk::DescriptorType::SAMPLED_IMAGE,
        vk::DescriptorType::STORAGE_IMAGE,
        vk::DescriptorType::SAMPLER,
    ]
    .map(|ty| vk::DescriptorPoolSize {
        ty,
        descriptor_count: capacity,
    });
    let info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(SETS_PER_BATCH)
        .pool_sizes(&sizes);
    // SAFETY: valid create info.
    let pool = unsafe { d.create_descriptor_pool(&info, None) }
        .map_err(Error::vk("vkCreateDescriptorPool"))?;
    LIVE_DESCRIPTOR_POOLS.created();
    Ok(pool)
}

/// One item (a launch or a transfer) being recorded into a view's open batch: its command
/// buffer, and descriptor sets from the batch's pool. A barrier before the item orders it
/// after everything recorded or submitted before it on the device's queue.
pub(crate) struct Recording<'a> {
    pub(super) d: &'a ash::Device,
    pub(super) slot: &'a mut Slot,
}

impl Recording<'_> {
    /// The Vulkan device functions.
    pub(crate) fn vk(&self) -> &ash::Device {
        self.d
    }

    /// The command buffer being recorded.
    pub(crate) fn cmd(&self) -> vk::CommandBuffer {
        self.slot.cmd
    }

    /// A descriptor set of `layout` with `descriptors` storage buffers, valid until the batch
    /// finished (the queue checked that it fits, see [`Slot::fits`]).
    pub(crate) fn allocate_set(
        &mut self,
        layout: vk::DescriptorSetLayout,
        descriptors: u32,
    ) -> Result<vk::DescriptorSet, Error> {
        let layouts = [layout];
        // SAFETY: the pool belongs to this device and is only used by this slot's batch.
        let set = unsafe {
            self.d.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(self.slot.descriptor_pool)
                    .set_layouts(&layouts),
            )
        }
        .map_err(Error::vk("vkAllocateDescriptorSets"))?[0];
        self.slot.sets_used += 1;
        self.slot.descriptors_used += descriptors;
        Ok(set)
    }

    /// A descriptor set of this batch already written with `buffers` for `layout`, if any.
    pub(crate) fn written_set(
        &self,
        layout: vk::DescriptorSetLayout,
        buffers: &[(u32, vk::DescriptorBufferInfo)],
    ) -> Option<vk::DescriptorSet> {
        let same = |w: &WrittenSet| {
            w.layout == layout
                && w.buffers.len() == buffers.len()
                && w.buffers
                    .iter()
                    .zip(buffers)
                    .all(|(a, (b, info))| *a == (*b, info.buffer, info.offset, info.range))
        };
        self.slot
            .written
            .iter()
            .rev()
            .find(|w| same(w))
            .map(|w| w.set)
    }

    /// Remembers that `set` holds `buffers` (see [`written_set`](Self::written_set)).
    pub(crate) fn remember_set(
        &mut self,
        layout: vk::DescriptorSetLayout,
        buffers: &[(u32, vk::DescriptorBufferInfo)],
        set: vk::DescriptorSet,
    ) {
        if self.slot.written.len() >= SET_CACHE {
            self.slot.written.remove(0);
        }
        self.slot.written.push(WrittenSet {
            layout,
            buffers: buffers
                .iter()
                .map(|(b, i)| (*b, i.buffer, i.offset, i.range))
                .collect(),
            set,
        });
    }

    /// Whether `pipeline` is the one last bound in this batch; notes it as bound (binding
    /// another pipeline forgets the pushed constants, see [`push_once`](Self::push_once)).
    pub(crate) fn bind_pipeline_once(&mut self, pipeline: vk::Pipeline) -> bool {
        let bound = self.slot.bound_pipeline == pipeline;
        if !bound {
            self.slot.pushed.clear();
        }
        self.slot.bound_pipeline = pipeline;
        bound
    }

    /// Whether `push` must be pushed for the bound pipeline: `false` when it is the block last
    /// pushed since that pipeline was bound (push constants stay set until the next push or
    /// a bind of another pipeline); notes it as pushed.
    pub(crate) fn push_once(&mut self, push: &[u8]) -> bool {
        if !push.is_empty() && self.slot.pushed == push {
            return false;
        }
        self.slot.pushed.clear();
        self.slot.pushed.extend_from_slice(push);
        true
    }
}

pub(super) enum Barrier {
    /// Before every recorded item.
    BeforeWork,
    /// At the end of a batch.
    AfterWork,
}

/// Records the global memory barrier that starts an item (orders it after all earlier
/// transfer and compute writes on the queue, and earlier reads before its writes) or ends a
/// batch (makes its writes visible to the host).
///
/// # Safety
/// `cmd` is a command buffer of `d` in the recording state.
pub(super) unsafe fn record_barrier(d: &ash::Device, cmd: vk::CommandBuffer, which: Barrier) {
    let stages = vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER;
    let written = vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE;
    let (dst_stage, dst_access) = match which {
        Barrier::BeforeWork => (
            stages,
            vk::AccessFlags::SHADER_READ
                | vk::AccessFlags::SHADER_WRITE
                | vk::AccessFlags::TRANSFER_READ
                | vk::AccessFlags::TRANSFER_WRITE,
        ),
        Barrier::AfterWork => (
            vk::PipelineStageFlags::HOST,
            vk::AccessFlags::HOST_READ | vk::AccessFlags::HOST_WRITE,
        ),
    };
    let barrier = vk::MemoryBarrier::default()
        .src_access_mask(written)
        .dst_access_mask(dst_access);
    // SAFETY: per the function's contract.
    unsafe {
        d.cmd_pipeline_barrier(
            cmd,
            stages,
            dst_stage,
            vk::DependencyFlags::empty(),
            &[barrier],
            &[],
            &[],
        )
    };
}

#[cfg(test)]
mod tests {
    use super::{timeout_of, DEFAULT_TIMEOUT};
    use std::time::Duration;

    #[test]
    fn the_timeout_is_milliseconds_and_zero_is_no_limit() {
        assert_eq!(timeout_of(None), DEFAULT_TIMEOUT);
        assert_eq!(timeout_of(Some(250)), Duration::from_millis(250));
        assert_eq!(timeout_of(Some(0)), Duration::MAX);
    }
}
