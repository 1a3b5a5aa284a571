//! The host's copy of a mapping on the simulated discrete GPU (`AMP_SIMULATE_DISCRETE=1`, see
//! `device/discrete.rs`): host reads and writes reach the device's memory only through
//! [`Shadow::flush`] and come back only through [`Shadow::invalidate`], as on memory that is
//! not host-coherent. A transfer that forgets either is wrong in the simulated mode, where the
//! device suite runs.
//!
//! gpu-allocator hands out host-visible memory only when it is host-coherent, so on a real
//! device these are never needed; the shadow exists so that the runtime's flush and
//! invalidation points are tested all the same.

use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::device::{NON_COHERENT_ATOM, POISON};

/// A host copy of `len` bytes of mapped memory.
pub(super) struct Shadow {
    bytes: NonNull<u8>,
    len: usize,
    /// The host may have written the shadow since the last flush of all of it.
    dirty: AtomicBool,
}

// SAFETY: the bytes are only touched through the owning buffer, whose users synchronize host
// access (a `&mut` borrow or the buffer's waits), as for the mapping itself.
unsafe impl Send for Shadow {}
// SAFETY: as above.
unsafe impl Sync for Shadow {}

impl Shadow {
    /// A shadow of `len` bytes, every one [`POISON`].
    pub(super) fn new(len: usize) -> Shadow {
        let boxed: Box<[u8]> = vec![POISON; len.max(1)].into_boxed_slice();
        let bytes = NonNull::new(Box::into_raw(boxed).cast::<u8>()).expect("a box is not null");
        Shadow {
            bytes,
            len,
            dirty: AtomicBool::new(false),
        }
    }

    /// The shadow with every byte [`POISON`] again (for a new loan of its buffer).
    pub(super) fn poisoned(mut self) -> Shadow {
        // SAFETY: `bytes` holds `len` bytes (at least one) that only this shadow owns.
        unsafe { std::ptr::write_bytes(self.bytes.as_ptr(), POISON, self.len.max(1)) };
        *self.dirty.get_mut() = false;
        self
    }

    /// The host address of the shadow, handed out instead of the mapping's.
    pub(super) fn ptr(&self) -> *mut u8 {
        self.bytes.as_ptr()
    }

    /// Notes that the host may write the whole shadow (a mapping handed out as a slice), so
    /// [`flush_if_dirty`](Self::flush_if_dirty) must flush it before the device next uses the
    /// memory.
    pub(super) fn mark_dirty(&self) {
        self.dirty.store(true, Ordering::Release);
    }

    /// `[at, at + len)` widened to whole atoms, within the shadow.
    fn atoms(&self, at: usize, len: usize) -> std::ops::Range<usize> {
        let atom = NON_COHERENT_ATOM as usize;
        let start = at - at % atom;
        let end = (at + len).div_ceil(atom).saturating_mul(atom).min(self.len);
        start.min(end)..end
    }

    /// Makes the host's writes to `[at, at + len)` (widened to atoms) visible to the device.
    /// The widened bytes go over too: a partial write invalidates its range first.
    ///
    /// # Safety
    /// `mapping` is the device memory the shadow stands for (at least as long); neither side
    /// is accessed concurrently.
    pub(super) unsafe fn flush(&self, mapping: *mut u8, at: usize, len: usize) {
        let r = self.atoms(at, len);
        // SAFETY: per the contract, both hold `self.len` bytes and nothing else touches them.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.bytes.as_ptr().add(r.start),
                mapping.add(r.start),
                r.len(),
            )
        };
    }

    /// Makes the device's writes to `[at, at + len)` (widened to atoms) visible to the host.
    ///
    /// # Safety
    /// As for [`flush`](Self::flush).
    pub(super) unsafe fn invalidate(&self, mapping: *mut u8, at: usize, len: usize) {
        let r = self.atoms(at, len);
        // SAFETY: as in `flush`.
        unsafe {
            std::ptr::copy_nonoverlapping(
                mapping.add(r.start),
                self.bytes.as_ptr().add(r.start),
                r.len(),
            )
        };
    }

    /// Flushes the whole shadow if the host may have written it since it was last flushed.
    ///
    /// # Safety
    /// As for [`flush`](Self::flush).
    pub(super) unsafe fn flush_if_dirty(&self, mapping: *mut u8) {
        if self.dirty.swap(false, Ordering::AcqRel) {
            // SAFETY: per the contract.
            unsafe { self.flush(mapping, 0, self.len) };
        }
    }
}

impl Drop for Shadow {
    fn drop(&mut self) {
        let slice = std::ptr::slice_from_raw_parts_mut(self.bytes.as_ptr(), self.len.max(1));
        // SAFETY: made by `Box::into_raw` of a slice of this length in `new`.
        drop(unsafe { Box::from_raw(slice) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flushes_and_invalidations_move_whole_atoms_only() {
        let mut device = vec![0u8; 200];
        let shadow = Shadow::new(200);
        // SAFETY: both are 200 bytes, used by this thread only.
        unsafe {
            assert_eq!(*shadow.ptr().add(7), POISON);
            *shadow.ptr().add(70) = 1;
            *shadow.ptr().add(150) = 2;
            shadow.flush(device.as_mut_ptr(), 70, 1);
        }
        // Bytes 64..128 went over, poison included; byte 150 did not.
        assert_eq!(device[70], 1);
        assert_eq!(device[64], POISON);
        assert_eq!(device[150], 0);
        assert_eq!(device[63], 0);
        device[199] = 9;
        // SAFETY: as above.
        unsafe {
            shadow.invalidate(device.as_mut_ptr(), 195, 5);
            assert_eq!(*shadow.ptr().add(199), 9);
            assert_eq!(*shadow.ptr().add(150), 2, "outside the last atom");
            shadow.mark_dirty();
            shadow.flush_if_dirty(device.as_mut_ptr());
        }
        assert_eq!(device[150], 2);
    }
}
