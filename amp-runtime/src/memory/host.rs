//! [`HostMemory`]: the storage of arrays on the native CPU accelerator, plain host memory that
//! native kernels use in place.

use std::alloc::Layout;
use std::ptr::NonNull;

use super::host_blocks;
use crate::Error;

/// Alignment of host arrays: a cache line, so rows start where vector loads like them.
const ALIGN: usize = 64;

/// Reused blocks of at least this many bytes are zeroed on the accelerator's pool.
const PARALLEL_ZERO: usize = 8 << 20;

/// A 64-byte-aligned host allocation whose bytes are always initialized. Small ones come from
/// the global allocator; large ones are blocks (`host_blocks`): huge pages, reused after a
/// free. Freed (or kept for reuse) on drop.
pub(crate) struct HostMemory {
    ptr: NonNull<u8>,
    size: usize,
    /// The block's size when the memory is a block (`size` rounded up), else 0.
    block: usize,
}

/// What a new allocation must hold.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Fill {
    /// Zeros.
    Zero,
    /// Anything (initialized bytes: zeros or an earlier array's): the caller overwrites it
    /// all before anyone reads it.
    Overwritten,
}

// SAFETY: the allocation is plain bytes owned by this value; shared access is through raw
// pointers whose users (arrays, native launches) follow Rust's borrow rules on the `Array`.
unsafe impl Send for HostMemory {}
// SAFETY: as above.
unsafe impl Sync for HostMemory {}

impl HostMemory {
    /// `size` zeroed bytes ([`Error::OutOfDeviceMemory`] when the allocation fails).
    pub(crate) fn zeroed(size: usize) -> Result<HostMemory, Error> {
        Self::new_on(size, Fill::Zero, None)
    }

    /// `size` bytes holding what `fill` says ([`Error::OutOfDeviceMemory`] when the
    /// allocation fails), a large reused block zeroed on `pool`'s threads when there is one
    /// (a native accelerator's pool: one thread's `memset` of 64 MiB takes milliseconds).
    pub(crate) fn new_on(
        size: usize,
        fill: Fill,
        pool: Option<&rayon::ThreadPool>,
    ) -> Result<HostMemory, Error> {
        crate::fault::check(crate::fault::HOST_ALLOC, || Error::OutOfDeviceMemory)?;
        if size >= host_blocks::BLOCK {
            let rounded = host_blocks::rounded(size).ok_or(Error::OutOfDeviceMemory)?;
            let (block, reused) = host_blocks::take(rounded).ok_or(Error::OutOfDeviceMemory)?;
            if reused && fill == Fill::Zero {
                // SAFETY: the block is `rounded >= size` writable, initialized bytes, owned
                // here: nothing else can see them until this returns.
                let bytes = unsafe { std::slice::from_raw_parts_mut(block.ptr.as_ptr(), size) };
                match pool {
                    Some(pool) if size >= PARALLEL_ZERO => pool.install(|| {
                        use rayon::prelude::*;
                        bytes
                            .par_chunks_mut(host_blocks::BLOCK)
                            .for_each(|part| part.fill(0));
                    }),
                    _ => bytes.fill(0),
                }
            }
            return Ok(HostMemory {
                ptr: block.ptr,
                size,
                block: block.size,
            });
        }
        let layout = Self::layout(size)?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr).ok_or(Error::OutOfDeviceMemory)?;
        Ok(HostMemory {
            ptr,
            size,
            block: 0,
        })
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
        if self.block > 0 {
            host_blocks::give_back(host_blocks::Block {
                ptr: self.ptr,
                size: self.block,
            });
        } else if let Ok(layout) = Self::layout(self.size) {
            // SAFETY: allocated with this layout in `zeroed`.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) };
        }
    }
}
