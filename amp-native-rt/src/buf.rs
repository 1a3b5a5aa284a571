//! [`Buf`]: a buffer parameter of the native thread ABI, and its accesses.

use crate::report::OobReport;

/// A buffer parameter: a view's elements in memory, as the SPIR-V back end sees a storage
/// buffer and its push constants (amp-abi's `buffer_layout`). Element `i` is at
/// `ptr + offset + i[0] * strides[0] + .. + i[R-2] * strides[R-2] + i[R-1]` (in elements; the
/// last stride is 1 whatever `strides[R-1]` holds).
///
/// Building one is safe; reading or writing through it is not (see the crate's docs for who
/// guarantees what). *The layout contract* the `unsafe` accesses ask for: `ptr` is aligned for
/// `T`, and for every index inside `extent` the element's address above lies in one allocation
/// that lives, and that nothing outside the launch accesses, for as long as the `Buf` is used.
#[derive(Clone, Copy, Debug)]
pub struct Buf<T, const R: usize> {
    /// The buffer's first element (not the view's: `offset` is added).
    pub ptr: *mut T,
    /// The view's extent.
    pub extent: [u32; R],
    /// The element offset of the view's first element from `ptr`.
    pub offset: u32,
    /// The element strides of dimensions `0..R-1`.
    pub strides: [u32; R],
    /// The view has the launch domain's rank and covers the domain in every dimension (amp-abi's
    /// `layout_fact::COVERS_DOMAIN`): an index component below the domain's extent in its
    /// dimension is inside the view. Loop-invariant, so LLVM can unswitch the checks away.
    pub covers: bool,
}

// SAFETY: a `Buf` is a pointer and a layout; sending it to another thread accesses nothing.
// Every access through it is an `unsafe` method whose caller answers for the memory (the layout
// contract, and the kernel language's rules between work-items in the crate's docs), wherever
// the `Buf` was sent.
unsafe impl<T, const R: usize> Send for Buf<T, R> {}
// SAFETY: as for `Send`: shared `Buf`s only hand out addresses; the threads of a launch share
// the memory behind them under the rules the crate's docs state (plain accesses of one element
// by several threads only when all read, updates through the atomics).
unsafe impl<T, const R: usize> Sync for Buf<T, R> {}

impl<T: Copy + Default, const R: usize> Buf<T, R> {
    /// The element's address, unchecked (computing it is always safe; an index outside the
    /// view gives an address nothing may access).
    #[inline(always)]
    pub fn at(&self, i: [u32; R]) -> *mut T {
        let mut linear = self.offset as usize + i[R - 1] as usize;
        let mut d = 0;
        while d + 1 < R {
            linear += i[d] as usize * self.strides[d] as usize;
            d += 1;
        }
        self.ptr.wrapping_add(linear)
    }

    /// Whether every index component is below the extent.
    #[inline(always)]
    pub fn inside(&self, i: [u32; R]) -> bool {
        let mut ok = true;
        let mut d = 0;
        while d < R {
            ok &= i[d] < self.extent[d];
            d += 1;
        }
        ok
    }

    /// The element's address when `i` is inside; otherwise the access is recorded in `oob` as
    /// parameter `param`'s and `None` returned.
    #[inline(always)]
    pub fn checked(&self, i: [u32; R], param: u32, oob: &OobReport) -> Option<*mut T> {
        if self.inside(i) {
            Some(self.at(i))
        } else {
            oob.record(param, i, self.extent);
            None
        }
    }

    /// A checked read: zero outside.
    ///
    /// # Safety
    ///
    /// `self` meets the layout contract (see [`Buf`]), and no other thread writes the element
    /// at `i` during the read.
    #[inline(always)]
    pub unsafe fn load(&self, i: [u32; R], param: u32, oob: &OobReport) -> T {
        match self.checked(i, param, oob) {
            // SAFETY: `checked` gave an address only because `i` is inside the extent, so by the
            // layout contract it is an aligned element of live memory; the caller rules out a
            // concurrent write.
            Some(p) => unsafe { p.read() },
            None => T::default(),
        }
    }

    /// A checked write: skipped outside.
    ///
    /// # Safety
    ///
    /// `self` meets the layout contract (see [`Buf`]), its memory is writable, and no other
    /// thread reads or writes the element at `i` during the write.
    #[inline(always)]
    pub unsafe fn store(&self, i: [u32; R], v: T, param: u32, oob: &OobReport) {
        if let Some(p) = self.checked(i, param, oob) {
            // SAFETY: `i` is inside the extent (`checked`), so the address is an aligned
            // element of live, writable memory (layout contract); the caller rules out any
            // concurrent access to it.
            unsafe { p.write(v) }
        }
    }

    /// A read that `ok` (the access's bounds check, as the compiler specialized it) allows;
    /// otherwise recorded as parameter `param`'s and zero.
    ///
    /// # Safety
    ///
    /// `self` meets the layout contract (see [`Buf`]); `ok` is true only if `i` is inside the
    /// extent; no other thread writes the element during the read.
    #[inline(always)]
    pub unsafe fn load_if(&self, i: [u32; R], ok: bool, param: u32, oob: &OobReport) -> T {
        if ok {
            // SAFETY: the caller promises that `ok` implies `i` is inside the extent, so the
            // address is an aligned element of live memory; no concurrent write (caller).
            unsafe { self.at(i).read() }
        } else {
            oob.record(param, i, self.extent);
            T::default()
        }
    }

    /// A write that `ok` allows; otherwise recorded and skipped.
    ///
    /// # Safety
    ///
    /// `self` meets the layout contract (see [`Buf`]) and its memory is writable; `ok` is true
    /// only if `i` is inside the extent; no other thread reads or writes the element during
    /// the write.
    #[inline(always)]
    pub unsafe fn store_if(&self, i: [u32; R], ok: bool, v: T, param: u32, oob: &OobReport) {
        if ok {
            // SAFETY: `ok` implies `i` is inside the extent (caller), so the address is an
            // aligned element of live, writable memory; no concurrent access (caller).
            unsafe { self.at(i).write(v) }
        } else {
            oob.record(param, i, self.extent);
        }
    }

    /// The element's address when `ok`; otherwise the access is recorded and `None`.
    #[inline(always)]
    pub fn checked_if(&self, i: [u32; R], ok: bool, param: u32, oob: &OobReport) -> Option<*mut T> {
        if ok {
            Some(self.at(i))
        } else {
            oob.record(param, i, self.extent);
            None
        }
    }

    /// An unchecked read (`#[kernel(amp, unchecked)]`).
    ///
    /// # Safety
    ///
    /// `self` meets the layout contract (see [`Buf`]), `i` is inside the extent, and no other
    /// thread writes the element during the read.
    #[inline(always)]
    pub unsafe fn load_unchecked(&self, i: [u32; R]) -> T {
        // SAFETY: `i` is inside the extent (caller), so the address is an aligned element of
        // live memory (layout contract); no concurrent write (caller).
        unsafe { self.at(i).read() }
    }

    /// An unchecked write.
    ///
    /// # Safety
    ///
    /// `self` meets the layout contract (see [`Buf`]) and its memory is writable, `i` is inside
    /// the extent, and no other thread reads or writes the element during the write.
    #[inline(always)]
    pub unsafe fn store_unchecked(&self, i: [u32; R], v: T) {
        // SAFETY: `i` is inside the extent (caller), so the address is an aligned element of
        // live, writable memory (layout contract); no concurrent access (caller).
        unsafe { self.at(i).write(v) }
    }
}
