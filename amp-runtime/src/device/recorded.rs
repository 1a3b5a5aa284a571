//! What a submitter's command buffer holds ([`LaunchKey`], [`RecordedLaunch`]), so that the
//! very same launch is submitted again without recording it anew.

use ash::vk;

/// Everything a launch records: pipeline, bound buffers, push constants and workgroup grid.
/// When the command buffer of a submitter holds a launch with an equal key, submitting it again
/// does the same work, so the launch skips recording (and the descriptor set update).
pub(crate) struct LaunchKey<'a> {
    /// The pipeline's id ([`Device::new_pipeline_id`](super::Device::new_pipeline_id)).
    pub(crate) pipeline: u64,
    /// [`Device::buffers_destroyed`](super::Device::buffers_destroyed) after the launch's
    /// buffers were prepared.
    pub(crate) buffers_destroyed: u64,
    pub(crate) groups: [u32; 3],
    pub(crate) bindings: &'a [(u32, vk::DescriptorBufferInfo)],
    pub(crate) push: &'a [u8],
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
