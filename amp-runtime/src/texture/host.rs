//! The texels of a texture on the native CPU accelerator: host memory in the texture's own
//! format (tightly packed, row-major: the bytes a Vulkan image copies to and from a buffer),
//! which native kernels read and write in place.

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::memory::HostMemory;
use crate::Error;

/// A host texture's memory, and the lock that keeps the host's copies and the launches that
/// write it apart (launches reading it share it).
pub(crate) struct HostTexels {
    mem: HostMemory,
    lock: RwLock<()>,
}

impl HostTexels {
    /// `len` zeroed bytes.
    pub(crate) fn zeroed(len: usize) -> Result<HostTexels, Error> {
        Ok(HostTexels {
            mem: HostMemory::zeroed(len)?,
            lock: RwLock::new(()),
        })
    }

    /// Size in bytes.
    pub(crate) fn len(&self) -> usize {
        self.mem.size()
    }

    /// The first byte, for a launch that holds [`share`](Self::share) or
    /// [`claim`](Self::claim) while it uses it.
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.mem.as_ptr()
    }

    /// Readers' access: launches that only read the texture, and copies out of it.
    pub(crate) fn share(&self) -> RwLockReadGuard<'_, ()> {
        self.lock.read().unwrap_or_else(|e| e.into_inner())
    }

    /// A writer's access: a launch that writes the texture, or a copy into it.
    pub(crate) fn claim(&self) -> RwLockWriteGuard<'_, ()> {
        self.lock.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Copies every byte into `out` (`len` bytes).
    pub(crate) fn read(&self, out: &mut [u8]) {
        let _shared = self.share();
        self.mem.read_at(0, out);
    }

    /// Replaces every byte with `bytes` (`len` bytes).
    pub(crate) fn write(&self, bytes: &[u8]) {
        let _claimed = self.claim();
        self.mem.write_at(0, bytes);
    }
}
