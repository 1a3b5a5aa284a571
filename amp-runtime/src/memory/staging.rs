//! The per-device pool of staging buffers, so transfers through them neither allocate nor
//! page-fault on first touch.

use std::sync::{Arc, Mutex};

use gpu_allocator::MemoryLocation;

use super::{Buffer, Parked};
use crate::device::{Device, DeviceState};
use crate::sync::lock;
use crate::Error;

/// Staging buffers of one device kept for reuse: at most [`StagingPool::KEEP`] per direction,
/// up to [`StagingPool::MAX_BYTES`] each. A taken buffer returns to the pool when dropped.
///
/// The pool keeps a buffer's parts, not the [`Buffer`] (which would hold the device alive
/// from the device's own state).
#[derive(Default)]
pub(super) struct StagingPool {
    free: Mutex<Vec<(MemoryLocation, Parked)>>,
}

impl DeviceState for StagingPool {
    unsafe fn destroy(&self, device: &Device) {
        let parked: Vec<_> = lock(&self.free).drain(..).collect();
        for (_, p) in parked {
            // SAFETY: per the function's contract, nothing uses the buffer.
            unsafe { p.destroy(device) };
        }
    }
}

impl StagingPool {
    /// Uploads no longer wait for their copies, so a chain of them has several staging
    /// buffers in flight.
    const KEEP: usize = 4;
    const MAX_BYTES: u64 = 256 << 20;

    /// A mapped staging buffer of at least `size` bytes on `device` in `location`.
    pub(super) fn take(
        device: &Arc<Device>,
        size: u64,
        location: MemoryLocation,
    ) -> Result<Pooled, Error> {
        let pool = device.state::<StagingPool>();
        let parked = {
            let mut free = lock(&pool.free);
            free.iter()
                .position(|(l, p)| *l == location && p.size() >= size)
                .map(|i| free.swap_remove(i).1)
        };
        let buffer = match parked {
            Some(p) => Buffer::unpark(device, p),
            None => Buffer::staging(device, size.next_power_of_two(), location)?,
        };
        Ok(Pooled {
            location,
            buffer: Some(buffer),
            pool,
        })
    }
}

/// A staging buffer on loan from the device's pool, returned to it on drop.
pub(crate) struct Pooled {
    location: MemoryLocation,
    /// `None` only during drop.
    buffer: Option<Buffer>,
    pool: Arc<StagingPool>,
}

impl Pooled {
    /// A mapped staging buffer of at least `size` bytes on `device` in `location` (`CpuToGpu`
    /// for uploads, `GpuToCpu` for downloads), reused from the pool where one is free.
    pub(crate) fn take(
        device: &Arc<Device>,
        size: u64,
        location: MemoryLocation,
    ) -> Result<Pooled, Error> {
        StagingPool::take(device, size, location)
    }
}

impl std::ops::Deref for Pooled {
    type Target = Buffer;
    fn deref(&self) -> &Buffer {
        self.buffer.as_ref().expect("present until drop")
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        let Some(buffer) = self.buffer.take() else {
            return;
        };
        if buffer.size > StagingPool::MAX_BYTES {
            return;
        }
        let mut free = lock(&self.pool.free);
        if free.iter().filter(|(l, _)| *l == self.location).count() >= StagingPool::KEEP {
            return;
        }
        if let Some(parked) = buffer.park() {
            free.push((self.location, parked));
        }
    }
}
