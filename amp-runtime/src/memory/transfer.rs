//! Host-device and device-device copies of buffer bytes: through the mapping where the host
//! sees the memory, else through a staging buffer and `vkCmdCopyBuffer` on the device's
//! default view.

use std::sync::Arc;

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::staging::StagingPool;
use super::Buffer;
use crate::device::{Queue, Touches};
use crate::Error;

/// A host copy at least this long first submits the work recorded on its queue, so the device
/// runs it meanwhile (below it, the copy is shorter than a submission is worth).
const OVERLAP_BYTES: usize = 1 << 20;

/// Transfers through staging buffers move at most this many bytes at a time, each chunk in a
/// staging buffer of the device's pool: a large transfer neither allocates nor page-faults its
/// staging memory once the pool holds chunks, and bounds the pinned memory it needs.
const STAGING_CHUNK: usize = 32 << 20;

/// Upload chunks recorded and not yet known finished, at most: the host waits for the oldest
/// before it fills another.
const CHUNKS_IN_FLIGHT: usize = 3;

/// The error of a failed mapping (the `fault::MAP` failpoint's).
fn map_failed() -> Error {
    Error::vk("vkMapMemory")(vk::Result::ERROR_MEMORY_MAP_FAILED)
}

impl Buffer {
    /// Copies `data` to the buffer at byte `at`.
    ///
    /// Takes `&self`: callers hold the borrow (of the array or view) that excludes other
    /// access to these bytes.
    pub(crate) fn write_at(&self, at: u64, data: &[u8]) -> Result<(), Error> {
        self.write_at_on(self.device.default_queue(), at, data)
    }

    /// As [`write_at`](Self::write_at), for a launch on `queue`: a copy through staging
    /// buffers is recorded there, ahead of the launch, rather than on the default view (which
    /// the launch would then have to wait for on the host).
    pub(crate) fn write_at_on(
        &self,
        queue: &Arc<Queue>,
        at: u64,
        data: &[u8],
    ) -> Result<(), Error> {
        let len = data.len().min(self.size.saturating_sub(at) as usize);
        if len == 0 {
            return Ok(());
        }
        let _span = tracing::info_span!(
            "upload",
            bytes = len,
            staged = !self.direct,
            device = self.device.device_path()
        )
        .entered();
        crate::fault::check(crate::fault::MAP, map_failed)?;
        if at == 0 && len as u64 == self.size {
            // Whatever a failed batch left in the buffer is overwritten (in queue order).
            self.pending().restore();
        }
        if self.direct {
            self.wait_idle()?;
            if len >= OVERLAP_BYTES {
                // The device runs what was recorded before while the host copies.
                queue.flush(&self.device)?;
            }
            let p = self.direct_ptr().expect("a direct buffer is mapped");
            // A partial write keeps the rest of its flushed atoms as the device has them.
            self.invalidate(at, len as u64);
            // SAFETY: the mapping covers `size` bytes; no device work uses the buffer now
            // (every submission is waited for, and the caller's borrow excludes other host
            // access). Host writes are made visible to the device by the flush and the next
            // queue submission.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p.add(at as usize), len) };
            self.flush(at, len as u64);
            return Ok(());
        }
        // Through staging buffers, without waiting: the copies are recorded on `queue` after
        // the work there (which uses the buffer in order); work of other views that uses the
        // buffer is waited for first. (Only mapped buffers have host writes to flush.)
        self.wait_for_other_views(queue)?;
        if len >= OVERLAP_BYTES {
            // The device runs what was recorded before while the host fills the staging
            // buffer.
            queue.flush(&self.device)?;
        }
        // In chunks, each a pooled staging buffer: the host fills one while the device copies
        // the ones before, and at most `CHUNKS_IN_FLIGHT` are out at a time.
        let mut in_flight = std::collections::VecDeque::new();
        let pieces = data[..len].chunks(STAGING_CHUNK);
        let count = pieces.len();
        for (i, piece) in pieces.enumerate() {
            if in_flight.len() >= CHUNKS_IN_FLIGHT {
                let oldest = in_flight.pop_front().expect("not empty");
                queue.wait_for(&self.device, oldest, false)?;
            }
            let staging = Arc::new(StagingPool::take(
                &self.device,
                piece.len() as u64,
                MemoryLocation::CpuToGpu,
            )?);
            let p = staging
                .mapped()
                .ok_or_else(|| Error::Allocation("staging memory is not host-visible".into()))?;
            // SAFETY: the staging buffer is mapped, at least `piece.len()` bytes long and not
            // in use.
            unsafe { std::ptr::copy_nonoverlapping(piece.as_ptr(), p, piece.len()) };
            staging.flush(0, piece.len() as u64);
            let (src, dst) = (staging.raw, self.raw);
            let touches = [(src, false), (dst, true)];
            let dst_offset = at + (i * STAGING_CHUNK) as u64;
            let size = piece.len() as u64;
            let serial = self.device.record_transfer(
                queue,
                &[&self.pending],
                Some(staging),
                Touches::Buffers(&touches),
                |r| {
                    let region = vk::BufferCopy::default().dst_offset(dst_offset).size(size);
                    // SAFETY: both buffers are live and large enough.
                    unsafe { r.vk().cmd_copy_buffer(r.cmd(), src, dst, &[region]) };
                    Ok(())
                },
            )?;
            in_flight.push_back(serial);
            if i + 1 < count {
                // The device copies this chunk while the host fills the next.
                queue.flush(&self.device)?;
            }
        }
        Ok(())
    }

    /// Copies `data` to the start of the buffer.
    pub(crate) fn write(&self, data: &[u8]) -> Result<(), Error> {
        self.write_at(0, data)
    }

    /// Copies the start of the buffer into `out`.
    pub(crate) fn read(&self, out: &mut [u8]) -> Result<(), Error> {
        self.read_at(0, out)
    }

    /// Copies the bytes from byte `at` into `out`.
    pub(crate) fn read_at(&self, at: u64, out: &mut [u8]) -> Result<(), Error> {
        let _span = tracing::info_span!(
            "download",
            bytes = out.len(),
            staged = !self.direct,
            device = self.device.device_path()
        )
        .entered();
        let waited = self.wait_idle();
        if let Some(lost) = self.pending().lost() {
            return Err(lost);
        }
        // A checked kernel's out-of-bounds error leaves the work done and its in-bounds writes
        // in place: they are copied, and the error is returned after them (so a drop, which
        // cannot report it, still keeps the results). Any other error (a timeout: the work is
        // still running) stops the read.
        if let Err(e) = &waited {
            if !matches!(e, Error::IndexOutOfBounds { .. }) {
                return waited;
            }
        }
        crate::fault::check(crate::fault::MAP, map_failed)?;
        let len = out.len().min(self.size.saturating_sub(at) as usize);
        if len == 0 {
            return waited;
        }
        if let Some(p) = self.direct_ptr() {
            self.invalidate(at, len as u64);
            // SAFETY: the mapping covers `size` bytes; device writes were made visible to
            // the host by the barrier and fence wait ending every submission, and by the
            // invalidation.
            unsafe { std::ptr::copy_nonoverlapping(p.add(at as usize), out.as_mut_ptr(), len) };
            return waited;
        }
        // In chunks, each a pooled staging buffer (see `write_at_on`).
        for (i, piece) in out[..len].chunks_mut(STAGING_CHUNK).enumerate() {
            let size = piece.len() as u64;
            let staging = Arc::new(StagingPool::take(
                &self.device,
                size,
                MemoryLocation::GpuToCpu,
            )?);
            let p = staging
                .mapped()
                .ok_or_else(|| Error::Allocation("staging memory is not host-visible".into()))?;
            let (src, dst) = (self.raw, staging.raw);
            let touches = [(src, false), (dst, true)];
            let src_offset = at + (i * STAGING_CHUNK) as u64;
            self.device.submit(
                &[&self.pending],
                Some(staging.clone()),
                Touches::Buffers(&touches),
                |r| {
                    let region = vk::BufferCopy::default().src_offset(src_offset).size(size);
                    // SAFETY: both buffers are live and large enough.
                    unsafe { r.vk().cmd_copy_buffer(r.cmd(), src, dst, &[region]) };
                    Ok(())
                },
            )?;
            staging.invalidate(0, size);
            // SAFETY: the copy finished and was made visible to the host.
            unsafe { std::ptr::copy_nonoverlapping(p, piece.as_mut_ptr(), piece.len()) };
        }
        waited
    }

    /// Fills the buffer with zero bytes.
    pub(crate) fn zero(&self) -> Result<(), Error> {
        self.wait_idle()?;
        if let Some(p) = self.direct_ptr() {
            // SAFETY: as in `write_at`.
            unsafe { std::ptr::write_bytes(p, 0, self.size as usize) };
            self.flush(0, self.size);
            return Ok(());
        }
        let dst = self.raw;
        let touches = [(dst, true)];
        self.device
            .submit(&[&self.pending], None, Touches::Buffers(&touches), |r| {
                // SAFETY: live buffer with TRANSFER_DST usage.
                unsafe { r.vk().cmd_fill_buffer(r.cmd(), dst, 0, vk::WHOLE_SIZE, 0) };
                Ok(())
            })
    }

    /// Copies `size` bytes from byte `src_at` of `self` to byte `dst_at` of `dst` (same
    /// device), through the mappings when both are host-visible, else with `vkCmdCopyBuffer`.
    pub(crate) fn copy_to(
        &self,
        src_at: u64,
        dst: &Buffer,
        dst_at: u64,
        size: u64,
    ) -> Result<(), Error> {
        if src_at + size > self.size || dst_at + size > dst.size {
            return Err(Error::Allocation(format!(
                "buffer copy of {size} bytes out of range (internal error)"
            )));
        }
        if self.direct && dst.direct {
            self.wait_idle()?;
            dst.wait_idle()?;
            if let (Some(s), Some(d)) = (self.direct_ptr(), dst.direct_ptr()) {
                self.invalidate(src_at, size);
                dst.invalidate(dst_at, size);
                // SAFETY: both ranges lie in their mappings; no device work uses either
                // buffer; `ptr::copy` allows the ranges to overlap (the same buffer).
                unsafe {
                    std::ptr::copy(
                        s.add(src_at as usize),
                        d.add(dst_at as usize),
                        size as usize,
                    )
                };
                dst.flush(dst_at, size);
                return Ok(());
            }
        }
        self.copy_on_device(src_at, dst, dst_at, size)
    }

    /// As [`copy_to`](Self::copy_to), always with `vkCmdCopyBuffer` (device work: the
    /// asynchronous copies use it).
    pub(crate) fn copy_on_device(
        &self,
        src_at: u64,
        dst: &Buffer,
        dst_at: u64,
        size: u64,
    ) -> Result<(), Error> {
        let _span = tracing::info_span!(
            "device_copy",
            bytes = size,
            device = self.device.device_path()
        )
        .entered();
        // Not `wait_idle`: the background transfers that call this count themselves busy.
        self.wait_device_work()?;
        dst.wait_device_work()?;
        self.flush_host_writes();
        dst.flush_host_writes();
        let (src_raw, dst_raw) = (self.raw, dst.raw);
        let touches = [(src_raw, false), (dst_raw, true)];
        self.device.submit(
            &[&self.pending, &dst.pending],
            None,
            Touches::Buffers(&touches),
            |r| {
                let region = vk::BufferCopy::default()
                    .src_offset(src_at)
                    .dst_offset(dst_at)
                    .size(size);
                // SAFETY: both buffers are live and the ranges lie in them.
                unsafe { r.vk().cmd_copy_buffer(r.cmd(), src_raw, dst_raw, &[region]) };
                Ok(())
            },
        )
    }
}
