//! Atomics on buffer (and `tile_static`) elements: std's atomics on the elements' own memory.
//!
//! Each function takes an element's address and views it as an atomic for the duration of one
//! operation. What they ask of the caller is what `AtomicU32::from_ptr` asks: an aligned
//! address of live memory that, while any thread may access it atomically, no thread accesses
//! plainly (and no thread through an atomic of another size). The generated code passes the
//! address of an element inside its view (a checked kernel's atomic outside the view is not
//! performed), or of a `tile_static` variable of the running tile function.

use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU8, Ordering};

/// Relaxed, as on the device.
pub const RELAXED: Ordering = Ordering::Relaxed;

/// `atomic_fetch_add` on an `f32` element: a compare-exchange loop on its bits. Returns the
/// element's value before the addition.
///
/// # Safety
///
/// `p` is aligned for `u32`, points at a live `f32` for the whole call, and while other threads
/// may access it concurrently, they all do so through these atomics (never plainly).
#[inline(always)]
pub unsafe fn atomic_add_f32(p: *mut f32, v: f32) -> f32 {
    // SAFETY: the caller's obligations are `from_ptr`'s: an aligned, live element that no
    // thread accesses non-atomically while it is shared; an `f32` has the size of a `u32`.
    let a = unsafe { AtomicU32::from_ptr(p.cast::<u32>()) };
    let mut cur = a.load(Ordering::Relaxed);
    loop {
        let new = (f32::from_bits(cur) + v).to_bits();
        match a.compare_exchange_weak(cur, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(old) => return f32::from_bits(old),
            Err(old) => cur = old,
        }
    }
}

/// The atomic view of an `i32` element.
///
/// # Safety
///
/// `p` is aligned for `AtomicI32` and points at an `i32` that stays live for `'a`; during `'a`
/// every thread that accesses it concurrently does so atomically (never plainly).
#[inline(always)]
pub unsafe fn atom_i32<'a>(p: *mut i32) -> &'a AtomicI32 {
    // SAFETY: exactly `AtomicI32::from_ptr`'s requirements, which the caller meets.
    unsafe { AtomicI32::from_ptr(p) }
}

/// The atomic view of a `u32` element.
///
/// # Safety
///
/// `p` is aligned for `AtomicU32` and points at a `u32` that stays live for `'a`; during `'a`
/// every thread that accesses it concurrently does so atomically (never plainly).
#[inline(always)]
pub unsafe fn atom_u32<'a>(p: *mut u32) -> &'a AtomicU32 {
    // SAFETY: exactly `AtomicU32::from_ptr`'s requirements, which the caller meets.
    unsafe { AtomicU32::from_ptr(p) }
}

/// The atomic view of an `f32` element's bits.
///
/// # Safety
///
/// `p` is aligned for `AtomicU32` and points at an `f32` that stays live for `'a`; during `'a`
/// every thread that accesses it concurrently does so atomically (never plainly).
#[inline(always)]
pub unsafe fn atom_f32<'a>(p: *mut f32) -> &'a AtomicU32 {
    // SAFETY: `from_ptr`'s requirements, met by the caller; an `f32` is 4 bytes like the `u32`
    // the atomic reads and writes, and any bits are a valid `u32`.
    unsafe { AtomicU32::from_ptr(p.cast::<u32>()) }
}

/// Whether a `T` is whole aligned 32-bit words (every device element is).
#[inline(always)]
fn in_words<T>() -> bool {
    std::mem::size_of::<T>().is_multiple_of(4) && std::mem::align_of::<T>().is_multiple_of(4)
}

/// Reads the element at `p` with relaxed atomic loads, one 32-bit word at a time (one byte at a
/// time for a type whose size or alignment is not a multiple of 4): how a kernel reads a view
/// whose elements threads of the launch may write while others access them (the compiler
/// could not prove otherwise, see `analysis` in amp-spirv). A racing write can tear the
/// element between words, as on a device, but the program's behaviour stays defined.
///
/// # Safety
///
/// `p` is aligned for `T` and points at a live `T`; every thread that accesses the element
/// during the launch does so through [`read_relaxed`], [`write_relaxed`] or the atomics of
/// this module (never plainly). Every bit pattern of `T`'s size is a `T` (a device element).
#[inline(always)]
pub unsafe fn read_relaxed<T: Copy + Default>(p: *const T) -> T {
    let mut out = T::default();
    let dst = (&mut out as *mut T).cast::<u8>();
    let size = std::mem::size_of::<T>();
    if in_words::<T>() {
        for w in 0..size / 4 {
            // SAFETY: word `w` of an aligned live `T` is an aligned live `u32` that every
            // thread accesses atomically (caller); `dst` is the local `out`, the same size.
            unsafe {
                let a = AtomicU32::from_ptr(p.cast::<u32>().cast_mut().add(w));
                dst.cast::<u32>().add(w).write(a.load(Ordering::Relaxed));
            }
        }
    } else {
        for b in 0..size {
            // SAFETY: as above, byte by byte.
            unsafe {
                let a = AtomicU8::from_ptr(p.cast::<u8>().cast_mut().add(b));
                dst.add(b).write(a.load(Ordering::Relaxed));
            }
        }
    }
    out
}

/// Writes `v` to the element at `p` with relaxed atomic stores (see [`read_relaxed`]).
///
/// # Safety
///
/// As for [`read_relaxed`], and the element's memory is writable.
#[inline(always)]
pub unsafe fn write_relaxed<T: Copy>(p: *mut T, v: T) {
    // SAFETY: the caller's contract is `store_relaxed`'s.
    unsafe { store_relaxed(p, v, false) }
}

/// Writes `v` to the element at `p` as [`write_relaxed`] does, skipping each word (byte) that
/// already holds the value: for a store every thread of a launch makes to one element (a
/// flag such as "another level follows"). Stored on every thread, the element's cache line
/// would move between the cores at each store; skipped, they share it. A skipped store leaves
/// memory as the store would have, ordered just after the store whose value the load read
/// (relaxed stores of equal bits cannot be told apart), so the outcomes are the same.
///
/// # Safety
///
/// As for [`write_relaxed`].
#[inline(always)]
pub unsafe fn write_relaxed_changed<T: Copy>(p: *mut T, v: T) {
    // SAFETY: the caller's contract is `store_relaxed`'s.
    unsafe { store_relaxed(p, v, true) }
}

/// [`write_relaxed`], or with `changed_only` [`write_relaxed_changed`] (a constant where
/// inlined).
///
/// # Safety
///
/// As for [`write_relaxed`].
#[inline(always)]
unsafe fn store_relaxed<T: Copy>(p: *mut T, v: T, changed_only: bool) {
    let src = (&v as *const T).cast::<u8>();
    let size = std::mem::size_of::<T>();
    if in_words::<T>() {
        for w in 0..size / 4 {
            // SAFETY: word `w` of an aligned live `T` is an aligned live `u32` accessed only
            // atomically (caller); `src` is the local `v`, whose bytes are all initialised (a
            // device element has no padding).
            unsafe {
                let a = AtomicU32::from_ptr(p.cast::<u32>().add(w));
                let new = src.cast::<u32>().add(w).read_unaligned();
                if !changed_only || a.load(Ordering::Relaxed) != new {
                    a.store(new, Ordering::Relaxed);
                }
            }
        }
    } else {
        for b in 0..size {
            // SAFETY: as above, byte by byte.
            unsafe {
                let a = AtomicU8::from_ptr(p.cast::<u8>().add(b));
                let new = src.add(b).read();
                if !changed_only || a.load(Ordering::Relaxed) != new {
                    a.store(new, Ordering::Relaxed);
                }
            }
        }
    }
}
