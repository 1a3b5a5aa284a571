//! Large host allocations of the native accelerator ("blocks"): mapped from the OS in huge
//! pages where it has them, and kept for reuse when freed, as CUDA's caching allocators keep
//! device memory.
//!
//! Why: a fresh allocation's pages are faulted in one 4 KiB page at a time at first touch.
//! On a 2-core VM a zeroed 64 MiB array cost 40 ms that way, four times the kernel that then
//! filled it, and the algorithms allocate such temporaries on every call. Huge pages fault
//! 512 times less often (10 ms for the same array); a block taken back from the cache has its
//! pages already (a few ms to zero, nothing when the caller overwrites it).
//!
//! Invariant: a block's bytes are always initialized. A fresh mapping is zeroed by the OS;
//! a cached block holds the bytes its previous array had, which started the same way.

use std::ptr::NonNull;
use std::sync::{Mutex, OnceLock};

/// Allocations of at least this many bytes are blocks, their sizes rounded up to a multiple of
/// it (a huge page on x86-64 and aarch64 Linux).
pub(super) const BLOCK: usize = 2 << 20;

/// What `AMP_HOST_CACHE_MB` is when unset: enough for the temporaries of an algorithm over
/// 64M elements, small beside the memory of a machine that runs such work.
const DEFAULT_CACHE_MB: u64 = 512;

/// A mapping of `size` bytes (a multiple of [`BLOCK`]), aligned to [`BLOCK`].
pub(super) struct Block {
    pub(super) ptr: NonNull<u8>,
    pub(super) size: usize,
}

// SAFETY: a block is plain bytes with one owner at a time (the cache's list, or a
// `HostMemory`).
unsafe impl Send for Block {}

/// The freed blocks kept for reuse, oldest first, and their bytes.
struct Cache {
    free: Vec<Block>,
    bytes: usize,
}

static CACHE: Mutex<Cache> = Mutex::new(Cache {
    free: Vec::new(),
    bytes: 0,
});

/// `AMP_HOST_CACHE_MB` in bytes (read once per process; checked when the first accelerator
/// was made, so an unreadable value cannot reach here).
fn cache_limit() -> usize {
    static LIMIT: OnceLock<usize> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        let mb = crate::config::number("AMP_HOST_CACHE_MB")
            .ok()
            .flatten()
            .unwrap_or(DEFAULT_CACHE_MB);
        usize::try_from(mb.saturating_mul(1 << 20)).unwrap_or(usize::MAX)
    })
}

/// `size` rounded up to a whole number of blocks (`None` on overflow).
pub(super) fn rounded(size: usize) -> Option<usize> {
    size.checked_next_multiple_of(BLOCK)
}

/// A block of `size` bytes (a multiple of [`BLOCK`]): the most recently freed one of that size
/// when the cache has one (`true`: its bytes are an earlier array's), else a fresh zeroed
/// mapping (`false`). `None` when the OS has no memory for it.
pub(super) fn take(size: usize) -> Option<(Block, bool)> {
    {
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = cache.free.iter().rposition(|b| b.size == size) {
            let block = cache.free.remove(at);
            cache.bytes -= size;
            return Some((block, true));
        }
    }
    match os::map(size) {
        Some(ptr) => Some((Block { ptr, size }, false)),
        None => {
            // The cached blocks of other sizes may be what the OS is missing: free them, retry.
            release_all();
            os::map(size).map(|ptr| (Block { ptr, size }, false))
        }
    }
}

/// Keeps `block` for reuse, then returns the oldest cached blocks to the OS while the cache
/// holds more than `AMP_HOST_CACHE_MB`.
pub(super) fn give_back(block: Block) {
    let limit = cache_limit();
    let mut evicted = Vec::new();
    {
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        cache.bytes += block.size;
        cache.free.push(block);
        while cache.bytes > limit {
            let oldest = cache.free.remove(0);
            cache.bytes -= oldest.size;
            evicted.push(oldest);
        }
    }
    // Unmapped outside the lock: `munmap` of a large block takes a while.
    for b in evicted {
        // SAFETY: the block came from `os::map` with this size and nothing else holds it.
        unsafe { os::unmap(b.ptr, b.size) };
    }
}

/// Returns every cached block to the OS.
fn release_all() {
    let blocks = {
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        cache.bytes = 0;
        std::mem::take(&mut cache.free)
    };
    for b in blocks {
        // SAFETY: as in `give_back`.
        unsafe { os::unmap(b.ptr, b.size) };
    }
}

/// The bytes the cache holds now (for tests).
#[cfg(test)]
fn cached_bytes() -> usize {
    CACHE.lock().unwrap_or_else(|e| e.into_inner()).bytes
}

#[cfg(target_os = "linux")]
mod os {
    //! Anonymous mappings, aligned to a huge page and marked for huge pages (`madvise`: the
    //! kernel's default policy for transparent huge pages is to use them where asked).
    use super::BLOCK;
    use std::ptr::NonNull;

    /// A zeroed, [`BLOCK`]-aligned mapping of `size` bytes (a multiple of [`BLOCK`]).
    pub(super) fn map(size: usize) -> Option<NonNull<u8>> {
        // Mapped one block larger, then trimmed to the aligned part: `mmap` aligns to a page.
        let len = size.checked_add(BLOCK)?;
        // SAFETY: a new private anonymous mapping; no existing memory is touched.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        let start = p as usize;
        let aligned = start.next_multiple_of(BLOCK);
        let head = aligned - start;
        let tail = len - head - size;
        // SAFETY: the head and tail are parts of the mapping just made, outside the aligned
        // `size` bytes that are returned; unmapping them cannot fail for a valid range.
        unsafe {
            if head > 0 {
                libc::munmap(p, head);
            }
            if tail > 0 {
                libc::munmap((aligned + size) as *mut libc::c_void, tail);
            }
            // Advice only: without huge pages the mapping still works, in small pages.
            libc::madvise(aligned as *mut libc::c_void, size, libc::MADV_HUGEPAGE);
        }
        NonNull::new(aligned as *mut u8)
    }

    /// Unmaps a mapping of [`map`].
    ///
    /// # Safety
    /// `ptr` and `size` are a mapping `map` returned, and nothing uses it any more.
    pub(super) unsafe fn unmap(ptr: NonNull<u8>, size: usize) {
        // SAFETY: the caller's contract.
        unsafe { libc::munmap(ptr.as_ptr().cast(), size) };
    }
}

#[cfg(not(target_os = "linux"))]
mod os {
    //! The global allocator, block-aligned, where there is no `mmap` to call.
    use super::BLOCK;
    use std::alloc::Layout;
    use std::ptr::NonNull;

    /// A zeroed, [`BLOCK`]-aligned allocation of `size` bytes (a multiple of [`BLOCK`]).
    pub(super) fn map(size: usize) -> Option<NonNull<u8>> {
        let layout = Layout::from_size_align(size, BLOCK).ok()?;
        // SAFETY: `size` is a non-zero multiple of `BLOCK`.
        NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })
    }

    /// Frees an allocation of [`map`].
    ///
    /// # Safety
    /// `ptr` and `size` are an allocation `map` returned, and nothing uses it any more.
    pub(super) unsafe fn unmap(ptr: NonNull<u8>, size: usize) {
        // SAFETY: allocated by `map` with this layout (the caller's contract).
        unsafe {
            std::alloc::dealloc(ptr.as_ptr(), Layout::from_size_align_unchecked(size, BLOCK))
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_freed_block_is_reused_for_the_same_size_and_the_cache_keeps_its_limit() {
        let size = 3 * BLOCK;
        let (block, reused) = take(size).unwrap();
        assert!(!reused);
        assert_eq!(block.ptr.as_ptr() as usize % BLOCK, 0);
        // SAFETY: the block is `size` bytes, owned here.
        let bytes = unsafe { std::slice::from_raw_parts_mut(block.ptr.as_ptr(), size) };
        assert!(bytes.iter().all(|&b| b == 0), "a fresh block is zeroed");
        bytes[size - 1] = 7;
        let ptr = block.ptr;
        give_back(block);
        assert!(cached_bytes() >= size);
        // Other tests of this binary may take it first; then a fresh one comes.
        let (again, reused) = take(size).unwrap();
        if reused {
            assert_eq!(again.ptr, ptr);
        }
        give_back(again);
        assert!(cached_bytes() <= cache_limit());
        release_all();
    }
}
