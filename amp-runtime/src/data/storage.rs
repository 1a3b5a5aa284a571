//! [`Storage`]: where an [`Array`](crate::Array)'s elements live: a Vulkan buffer, or host
//! memory on the native CPU accelerator.

use std::sync::Arc;

use crate::memory::{Buffer, HostMemory};
use crate::Error;

/// An array's memory.
#[derive(Clone)]
pub(crate) enum Storage {
    /// A buffer on a Vulkan device.
    Device(Arc<Buffer>),
    /// Host memory, used in place by native launches.
    Host(Arc<HostMemory>),
}

impl Storage {
    /// Copies `out.len()` bytes from byte `at` (waiting for the device work that writes them).
    pub(crate) fn read_at(&self, at: usize, out: &mut [u8]) -> Result<(), Error> {
        match self {
            Storage::Device(b) => b.read_at(at as u64, out),
            Storage::Host(h) => {
                let _span = tracing::info_span!(
                    "download",
                    bytes = out.len(),
                    staged = false,
                    device = crate::device::NATIVE_PATH
                )
                .entered();
                h.read_at(at, out);
                Ok(())
            }
        }
    }

    /// Copies `data` to byte `at`.
    pub(crate) fn write_at(&self, at: usize, data: &[u8]) -> Result<(), Error> {
        match self {
            Storage::Device(b) => b.write_at(at as u64, data),
            Storage::Host(h) => {
                let _span = tracing::info_span!(
                    "upload",
                    bytes = data.len(),
                    staged = false,
                    device = crate::device::NATIVE_PATH
                )
                .entered();
                h.write_at(at, data);
                Ok(())
            }
        }
    }

    /// The Vulkan buffer, if the memory is one.
    pub(crate) fn buffer(&self) -> Option<&Arc<Buffer>> {
        match self {
            Storage::Device(b) => Some(b),
            Storage::Host(_) => None,
        }
    }

    /// The host memory, if the memory is host memory.
    pub(crate) fn host(&self) -> Option<&Arc<HostMemory>> {
        match self {
            Storage::Host(h) => Some(h),
            Storage::Device(_) => None,
        }
    }
}
