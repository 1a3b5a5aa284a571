//! [`HostMemory`]: the storage of arrays on the native CPU accelerator, plain host memory that
//! native kernels use in place.

use std::alloc::Layout;
use std::ptr::NonNull;

use crate::Error;

/// Alignment of host arrays: a cache line, so rows start where vector loads like them.
const ALIGN: usize = 64;

/// A zero-initialized, 64-byte-aligned host allocation. Freed on drop.
pub(crate) struct HostMemory {
    ptr: NonNull<u8>,
    size: usize,
}

// SAFETY: the allocation is plain bytes owned by this value; shared access is through raw
// pointers whose users (arrays, native launches) follow Rust's borrow rules on the `Array`.
unsafe impl Send for HostMemory {}
// SAFETY: as above.
unsafe impl Sync for HostMemory {}

impl HostMemory {
    /// `size` zeroed bytes ([`Error::OutOfDeviceMemory`] when the allocation fails).
    pub(crate) fn zeroed(size: usize) -> Result<HostMemory, Error> {
        crate::fault::check(crate::fault::HOST_ALLOC, || Error::OutOfDeviceMemory)?;
        let layout = Self::layout(size)?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr).ok_or(Error::OutOfDeviceMemory)?;
        Ok(HostMemory { ptr, size })
    }

    fn layout(size: usize) -> Result<Layout, Error> {
        Layout::from_size_align(size.max(1), ALIGN).map_err(|_| Error::OutOfDeviceMemory)
    }

    /// The first byte.
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Size in bytes.
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// Copies `out.len()` bytes from byte `at` into `out`.
    pub(crate) fn read_at(&self, at: usize, out: &mut [u8]) {
        assert!(at + out.len() <= self.size, "host read past the end");
        // SAFETY: in bounds (checked above); `copy` allows `out` to be a slice of this very
        // memory.
        unsafe { std::ptr::copy(self.as_ptr().add(at), out.as_mut_ptr(), out.len()) };
    }

    /// Copies `data` to byte `at`.
    pub(crate) fn write_at(&self, at: usize, data: &[u8]) {
        assert!(at + data.len() <= self.size, "host write past the end");
        // SAFETY: in bounds; writers hold the owning array mutably or are the launch's threads.
        unsafe { std::ptr::copy(data.as_ptr(), self.as_ptr().add(at), data.len()) };
    }
}

impl Drop for HostMemory {
    fn drop(&mut self) {
        if let Ok(layout) = Self::layout(self.size) {
            // SAFETY: allocated with this layout in `zeroed`.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) };
        }
    }
}
