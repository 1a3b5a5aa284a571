//! The host side of a kernel's report: the buffer bound to each launch of a bounds-checked
//! kernel or one whose loops are watched, and the [`Error::IndexOutOfBounds`] or
//! [`Error::LoopLimit`] it turns into (the ABI is in `kernel.rs`).

use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use crate::device::{Device, DeviceState};
use crate::kernel::{KernelInfo, LOOP_CUT_REPORT_WORD, REPORT_WORDS};
use crate::sync::lock;
use crate::Error;

/// Bytes of one report.
const WORDS: usize = REPORT_WORDS as usize;
const REPORT_BYTES: u64 = 4 * WORDS as u64;

/// The memory of one out-of-bounds report: a small buffer sub-allocated by gpu-allocator in
/// host-visible, host-coherent memory, mapped for its whole life.
///
/// An allocation rather than a `Buffer`: the pool of reports lives in the device, and a
/// `Buffer` would hold the device alive from there.
struct ReportMemory {
    buffer: vk::Buffer,
    allocation: Allocation,
    words: NonNull<u32>,
}

// SAFETY: the mapping is only accessed by the one launch that took the report from the pool
// (the pool hands each report to one launch at a time).
unsafe impl Send for ReportMemory {}

impl ReportMemory {
    fn create(device: &Device) -> Result<ReportMemory, Error> {
        let d = device.vk();
        let info = vk::BufferCreateInfo::default()
            .size(REPORT_BYTES)
            .usage(vk::BufferUsageFlags::STORAGE_BUFFER)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: object creation on a live device; partial results are destroyed on error.
        unsafe {
            let buffer = d
                .create_buffer(&info, None)
                .map_err(Error::vk("vkCreateBuffer"))?;
            let requirements = d.get_buffer_memory_requirements(buffer);
            let allocated = match device.allocator().as_mut() {
                Some(alloc) => alloc
                    .allocate(&AllocationCreateDesc {
                        name: "amp out-of-bounds report",
                        requirements,
                        // Host-visible and coherent (gpu-allocator's host locations always
                        // are): the host clears and reads the report with no flush.
                        location: MemoryLocation::GpuToCpu,
                        linear: true,
                        allocation_scheme: AllocationScheme::GpuAllocatorManaged,
                    })
                    .map_err(Error::from),
                None => Err(Error::Allocation("the device is shutting down".into())),
            };
            let allocation = match allocated {
                Ok(a) => a,
                Err(e) => {
                    d.destroy_buffer(buffer, None);
                    return Err(e);
                }
            };
            let bound = allocation
                .mapped_ptr()
                .map(|p| p.cast::<u32>())
                .ok_or_else(|| Error::Allocation("the out-of-bounds report is not mapped".into()))
                .and_then(|words| {
                    d.bind_buffer_memory(buffer, allocation.memory(), allocation.offset())
                        .map(|()| words)
                        .map_err(Error::vk("vkBindBufferMemory"))
                });
            match bound {
                Ok(words) => Ok(ReportMemory {
                    buffer,
                    allocation,
                    words,
                }),
                Err(e) => {
                    d.destroy_buffer(buffer, None);
                    if let Some(alloc) = device.allocator().as_mut() {
                        let _ = alloc.free(allocation);
                    }
                    Err(e)
                }
            }
        }
    }

    /// Clears the report before a launch (no device work uses it now).
    fn zero(&self) {
        // SAFETY: the mapping holds at least `REPORT_WORDS` words and nothing else uses
        // it; the memory is coherent.
        unsafe { std::ptr::write_bytes(self.words.as_ptr(), 0, WORDS) };
    }

    /// The report's words after the launch finished (the submission's fence was waited for
    /// and its final barrier made the device's writes available to the host).
    fn read(&self) -> [u32; WORDS] {
        let mut words = [0u32; WORDS];
        // SAFETY: as in `zero`.
        unsafe {
            std::ptr::copy_nonoverlapping(self.words.as_ptr(), words.as_mut_ptr(), words.len())
        };
        words
    }

    /// # Safety
    /// No device work may use the report.
    unsafe fn destroy(self, device: &Device) {
        // SAFETY: per the function's contract.
        unsafe { device.vk().destroy_buffer(self.buffer, None) };
        if let Some(alloc) = device.allocator().as_mut() {
            let _ = alloc.free(self.allocation);
        }
    }
}

/// The out-of-bounds reports of a device that no launch is using, for the next checked
/// launches: allocating one per launch was a large part of a small launch's cost.
///
/// Launches take a report and give it back once they have read it, so the pool holds as many
/// reports as launches ever ran at the same time (one per thread launching concurrently).
#[derive(Default)]
pub(crate) struct ReportPool {
    free: Mutex<Vec<ReportMemory>>,
}

impl DeviceState for ReportPool {
    unsafe fn destroy(&self, device: &Device) {
        for report in lock(&self.free).drain(..) {
            // SAFETY: per the function's contract.
            unsafe { report.destroy(device) };
        }
    }
}

impl ReportPool {
    fn take(&self, device: &Device) -> Result<ReportMemory, Error> {
        let reused = lock(&self.free).pop();
        match reused {
            Some(report) => Ok(report),
            None => ReportMemory::create(device),
        }
    }

    fn give_back(&self, report: ReportMemory) {
        lock(&self.free).push(report);
    }
}

/// The cleared out-of-bounds report of one launch of a checked kernel, taken from the device's
/// [`ReportPool`] and given back when dropped.
///
/// A launch owns its report until it has been read, so launches running at the same time (on
/// different views or threads) never share one.
pub(crate) struct OobReport {
    binding: u32,
    /// For a kernel whose loops are watched: the device's loop limit (0: none) and name.
    loop_limit: Option<(u32, String)>,
    pool: Arc<ReportPool>,
    /// `None` only during drop.
    memory: Option<ReportMemory>,
}

impl OobReport {
    /// The cleared report for a launch of `info`, or `None` when the kernel is not
    /// bounds-checked.
    pub(crate) fn for_launch(
        device: &Arc<Device>,
        info: &KernelInfo,
    ) -> Result<Option<OobReport>, Error> {
        let Some(binding) = info.report_binding else {
            return Ok(None);
        };
        let pool = device.state::<ReportPool>();
        let memory = pool.take(device)?;
        let loop_limit = (!info.loop_lines.is_empty()).then(|| {
            let limit = device.limits().max_loop_iterations.unwrap_or(0);
            (limit, device.name().to_owned())
        });
        let report = OobReport {
            binding,
            loop_limit,
            pool,
            memory: Some(memory),
        };
        report.memory()?.zero();
        Ok(Some(report))
    }

    fn memory(&self) -> Result<&ReportMemory, Error> {
        self.memory
            .as_ref()
            .ok_or_else(|| Error::Allocation("the out-of-bounds report was given up".into()))
    }

    /// The binding and buffer to add to the launch's descriptor set.
    pub(crate) fn binding(&self) -> (u32, vk::DescriptorBufferInfo) {
        let buffer = self
            .memory
            .as_ref()
            .map_or(vk::Buffer::null(), |m| m.buffer);
        (
            self.binding,
            vk::DescriptorBufferInfo {
                buffer,
                offset: 0,
                range: vk::WHOLE_SIZE,
            },
        )
    }

    /// After the launch has finished: `Err(LoopLimit)` when the device ended a watched loop,
    /// else `Err(IndexOutOfBounds)` when an access failed.
    pub(crate) fn check(&self, info: &KernelInfo) -> Result<(), Error> {
        let words = self.memory()?.read();
        if let Some((limit, device)) = &self.loop_limit {
            if let Some(error) = decode_loop_cut(&words, info, *limit, device) {
                return Err(error);
            }
        }
        match decode(&words, info) {
            None => Ok(()),
            Some(error) => Err(error),
        }
    }
}

impl Drop for OobReport {
    fn drop(&mut self) {
        if let Some(memory) = self.memory.take() {
            self.pool.give_back(memory);
        }
    }
}

/// The error the loop word of a report's `words` describes, if any: the device (`limit`,
/// `device`) ended the watched loop it names. A cut loop comes first: what an out-of-bounds
/// access after it saw may be its consequence.
pub(super) fn decode_loop_cut(
    words: &[u32],
    info: &KernelInfo,
    limit: u32,
    device: &str,
) -> Option<Error> {
    let tag = words
        .get(LOOP_CUT_REPORT_WORD as usize)
        .copied()
        .unwrap_or(0);
    let number = tag.checked_sub(1)? as usize;
    Some(Error::LoopLimit {
        kernel: info.name.to_owned(),
        line: info.loop_lines.get(number).copied().unwrap_or(0),
        limit,
        device: device.to_owned(),
    })
}

/// The error a report's words `[flag, param, rank, index[3], extent[3]]` describe, if any.
pub(super) fn decode(words: &[u32], info: &KernelInfo) -> Option<Error> {
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
        spirv_narrow_storage: &[],
        entry_point: "main",
        rank: 2,
        params: &PARAMS,
        push_constant_size: 28,
        workgroup_size: [64, 1, 1],
        shape: crate::kernel::Shape::Fixed,
        uses_float64: false,
        hash: 0,
        tile_rank: 0,
        spec_constants: &[],
        report: "",
        report_binding: Some(1),
        bounds_checked: true,
        loop_lines: &[12, 40],
    };

    #[test]
    fn a_clear_flag_is_no_error() {
        assert!(decode(&[0, 0, 2, 5, 3, 0, 4, 4, 0], &INFO).is_none());
    }

    #[test]
    fn a_loop_word_names_the_loop_line_and_the_limit() {
        let mut words = [0u32; super::WORDS];
        assert!(super::decode_loop_cut(&words, &INFO, 65_535, "llvmpipe").is_none());
        words[super::LOOP_CUT_REPORT_WORD as usize] = 2;
        let e = super::decode_loop_cut(&words, &INFO, 65_535, "llvmpipe").expect("an error");
        assert!(matches!(
            e,
            crate::Error::LoopLimit {
                line: 40,
                limit: 65_535,
                ..
            }
        ));
        assert!(e.to_string().contains("line 40"), "{e}");
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
