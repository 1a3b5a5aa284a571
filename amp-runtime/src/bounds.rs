//! The host side of bounds-checked kernels: the out-of-bounds report buffer bound to each
//! launch, and the [`Error::IndexOutOfBounds`] it turns into (the ABI is in `kernel.rs`).

use std::sync::Arc;

use ash::vk;

use crate::accelerator::DeviceShared;
use crate::kernel::{KernelInfo, OOB_REPORT_WORDS};
use crate::memory::Buffer;
use crate::Error;

/// A zeroed out-of-bounds report for one launch of a checked kernel.
///
/// One per launch rather than one per kernel: a launch owns its report until it has been read,
/// so launches never share one (and none holds the device alive from its pipeline cache). It
/// lives in host-visible memory: zeroing and reading it are plain memory accesses.
pub(crate) struct OobReport {
    binding: u32,
    buffer: Buffer,
}

impl OobReport {
    /// The report for a launch of `info`, or `None` when the kernel is not bounds-checked.
    pub(crate) fn for_launch(
        device: &Arc<DeviceShared>,
        info: &KernelInfo,
    ) -> Result<Option<OobReport>, Error> {
        let Some(binding) = info.oob_report_binding else {
            return Ok(None);
        };
        let buffer = Buffer::host_visible_storage(device, 4 * OOB_REPORT_WORDS as u64)?;
        buffer.zero()?;
        Ok(Some(OobReport { binding, buffer }))
    }

    /// The binding and buffer to add to the launch's descriptor set.
    pub(crate) fn binding(&self) -> (u32, vk::DescriptorBufferInfo) {
        (
            self.binding,
            vk::DescriptorBufferInfo {
                buffer: self.buffer.raw(),
                offset: 0,
                range: vk::WHOLE_SIZE,
            },
        )
    }

    /// After the launch has finished: `Err(IndexOutOfBounds)` when an access failed.
    pub(crate) fn check(&self, info: &KernelInfo) -> Result<(), Error> {
        let mut bytes = [0u8; 4 * OOB_REPORT_WORDS];
        self.buffer.read(&mut bytes)?;
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        match decode(&words, info) {
            None => Ok(()),
            Some(error) => Err(error),
        }
    }
}

/// The error a report's words `[flag, param, rank, index[3], extent[3]]` describe, if any.
fn decode(words: &[u32], info: &KernelInfo) -> Option<Error> {
    if words.first().copied().unwrap_or(0) == 0 {
        return None;
    }
    let param = words[1] as usize;
    let rank = (words[2] as usize).min(3);
    let list = |from: usize| -> Vec<usize> {
        words[from..from + rank]
            .iter()
            .map(|&w| w as usize)
            .collect()
    };
    Some(Error::IndexOutOfBounds {
        kernel: info.name.to_owned(),
        param: info
            .params
            .get(param)
            .map_or_else(|| format!("#{param}"), |p| p.name.to_owned()),
        index: list(3),
        extent: list(6),
    })
}

#[cfg(test)]
mod tests {
    use super::decode;
    use crate::kernel::{KernelInfo, ParamInfo, ParamKind, ScalarType};

    static PARAMS: [ParamInfo; 1] = [ParamInfo {
        name: "a",
        kind: ParamKind::Buffer {
            binding: 0,
            elem: crate::kernel::ElemType::Scalar(ScalarType::F32),
            rank: 2,
            writable: false,
            extent_offset: 8,
        },
    }];

    static INFO: KernelInfo = KernelInfo {
        name: "k",
        spirv: &[],
        entry_point: "main",
        rank: 2,
        params: &PARAMS,
        push_constant_size: 28,
        workgroup_size: [64, 1, 1],
        uses_float64: false,
        hash: 0,
        tile_rank: 0,
        spec_constants: &[],
        report: "",
        oob_report_binding: Some(1),
    };

    #[test]
    fn a_clear_flag_is_no_error() {
        assert!(decode(&[0, 0, 2, 5, 3, 0, 4, 4, 0], &INFO).is_none());
    }

    #[test]
    fn a_set_flag_names_kernel_view_index_and_extent() {
        let e = decode(&[1, 0, 2, 5, 3, 0, 4, 4, 0], &INFO).expect("an error");
        assert_eq!(
            e.to_string(),
            "kernel `k`: index [5, 3] is out of bounds for view `a` of extent [4, 4]"
        );
    }
}
