//! The per-thread frames of a tile call, and `tile_static` arrays of a named length: memory a
//! tile function needs for one call, taken from a pool of its OS thread and given back when
//! the call ends, so a launch of many small tiles makes no allocation per tile.
//!
//! A tile call allocating its frames (`vec![0; n]`) paid the allocator each time: a zeroed
//! `Vec` is `calloc`, which glibc serves without its per-thread cache (a third of a subgroup
//! sum's time under `perf`), and an allocation filled by hand made small frames cheaper but
//! large ones dearer (Rodinia's nw and backprop, whose `tile_static` arrays are 1 KiB and up).

use std::cell::RefCell;
use std::marker::PhantomData;
use std::mem::{align_of, size_of};
use std::ops::{Deref, DerefMut};

/// A pooled buffer's unit: its alignment (16) is at least any element type's here (scalars,
/// vectors of up to four of them, device structs of those).
type Word = u128;

thread_local! {
    /// Buffers given back by the frames of this OS thread, the most recent last.
    static POOL: RefCell<Vec<Vec<Word>>> = const { RefCell::new(Vec::new()) };
}

/// `n` values of type `T`, each set to the value [`frames`] was given, in a buffer of the
/// calling OS thread's pool; dereferences to a slice.
pub struct Frames<T: Copy> {
    buf: Vec<Word>,
    len: usize,
    elem: PhantomData<T>,
}

/// `n` copies of `init`: the per-thread frames of one call of a tiled kernel's tile function
/// (or a `tile_static` array of a named length), from the thread's pool.
#[inline]
pub fn frames<T: Copy>(init: T, n: usize) -> Frames<T> {
    let mut f = pooled::<T>(n);
    let ptr = f.as_mut_ptr();
    for i in 0..n {
        // SAFETY: `pooled` holds at least `n` `T`s, aligned for `T`; element `i` is inside
        // them, and `T: Copy` has no drop to skip.
        unsafe { ptr.add(i).write(init) };
    }
    f
}

/// `n` values of type `T` from the thread's pool, not set: the frames of locals that every
/// thread writes before any thread reads them (a subgroup operation's operands and result),
/// which a fill would only make the call write twice.
///
/// # Safety
///
/// The caller writes each element before it reads it, through [`Frames::as_mut_ptr`] only:
/// the elements hold whatever the buffer held before, which need not be a valid `T`, so the
/// frames must not be dereferenced as a slice before every element is written.
#[inline]
pub unsafe fn frames_for_overwrite<T: Copy>(n: usize) -> Frames<T> {
    pooled::<T>(n)
}

/// The 16-byte words `n` values of type `T` take: a region of a tile call's buffer, which
/// starts each region at a word so that every element type is aligned.
#[inline]
pub const fn words_of<T: Copy>(n: usize) -> usize {
    const { assert!(align_of::<T>() <= align_of::<Word>()) };
    (n * size_of::<T>()).div_ceil(size_of::<Word>())
}

/// A buffer of the calling OS thread's pool (or a new one) with room for `n` `T`s.
#[inline]
fn pooled<T: Copy>(n: usize) -> Frames<T> {
    const { assert!(align_of::<T>() <= align_of::<Word>()) };
    let words = (n * size_of::<T>()).div_ceil(size_of::<Word>());
    let mut buf = POOL
        .try_with(|p| p.borrow_mut().pop())
        .ok()
        .flatten()
        .unwrap_or_default();
    if buf.len() < words {
        buf.resize(words, 0);
    }
    Frames {
        buf,
        len: n,
        elem: PhantomData,
    }
}

impl<T: Copy> Frames<T> {
    /// The first value: the frames are `len` consecutive `T`s from here.
    #[inline]
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.buf.as_mut_ptr().cast()
    }
}

impl<T: Copy> Deref for Frames<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: `frames` wrote all `len` values, aligned for `T` (its words are 16-aligned,
        // at least `T`'s alignment, asserted in `pooled`), into `buf`, which this owner keeps
        // for its life (`frames_for_overwrite`'s caller writes them all before any deref);
        // the slice borrows `self`.
        unsafe { std::slice::from_raw_parts(self.buf.as_ptr().cast(), self.len) }
    }
}

impl<T: Copy> DerefMut for Frames<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`, borrowed mutably through `self`.
        unsafe { std::slice::from_raw_parts_mut(self.buf.as_mut_ptr().cast(), self.len) }
    }
}

impl<T: Copy> Drop for Frames<T> {
    fn drop(&mut self) {
        let buf = std::mem::take(&mut self.buf);
        // A thread being torn down has no pool left: the buffer is then freed.
        let _ = POOL.try_with(|p| p.borrow_mut().push(buf));
    }
}

#[cfg(test)]
mod tests {
    use super::frames;

    #[test]
    fn frames_for_overwrite_reuse_a_buffer_with_room_for_them() {
        drop(frames(9u32, 4));
        // SAFETY: every element is written through the pointer before any is read.
        let mut f = unsafe { super::frames_for_overwrite::<u64>(300) };
        let p = f.as_mut_ptr();
        for i in 0..300 {
            // SAFETY: `i` is inside the frames' 300 elements.
            unsafe { p.add(i).write(i as u64 * 3) };
        }
        assert_eq!(f.len(), 300);
        assert!(f.iter().enumerate().all(|(i, &v)| v == i as u64 * 3));
    }

    #[test]
    fn frames_are_filled_whatever_the_buffer_held_before() {
        {
            let mut a = frames(7u32, 100);
            a[3] = 9;
            assert!(a
                .iter()
                .enumerate()
                .all(|(i, &x)| x == if i == 3 { 9 } else { 7 }));
        }
        // The same buffer again, smaller, then larger: every value is the new one.
        let b = frames(0.5f64, 10);
        assert!(b.iter().all(|&x| x == 0.5));
        let c = frames([1u8; 3], 1000);
        assert_eq!(c.len(), 1000);
        assert!(c.iter().all(|&x| x == [1u8; 3]));
    }
}
