//! The support code every native kernel calls: the buffer type of the thread ABI, the
//! out-of-bounds report, and the helpers that give the numeric rules of docs/semantics.md in
//! Rust (integer division, index clamps, the math functions std lacks). Emitted once per crate
//! (or per test program) as the body of a module; the kernels name it through the path given to
//! [`native`](super::native).

/// The prelude's source: items to place in a module of their own (`mod rt { <PRELUDE> }`).
pub const PRELUDE: &str = r#"
#![allow(dead_code, clippy::all)]
use ::core::sync::atomic::{AtomicI32, AtomicU32, Ordering};

/// A buffer parameter: a view's elements in memory, as the SPIR-V back end sees a storage
/// buffer and its push constants (amp-abi's `buffer_layout`). Element `i` is at
/// `ptr + offset + i[0] * strides[0] + .. + i[R-2] * strides[R-2] + i[R-1]` (in elements; the
/// last stride is 1 whatever `strides[R-1]` holds).
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
}

unsafe impl<T, const R: usize> Send for Buf<T, R> {}
unsafe impl<T, const R: usize> Sync for Buf<T, R> {}

impl<T: Copy + Default, const R: usize> Buf<T, R> {
    /// The element's address, unchecked.
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
            oob.record(param, &i, &self.extent);
            None
        }
    }

    /// A checked read: zero outside.
    #[inline(always)]
    pub unsafe fn load(&self, i: [u32; R], param: u32, oob: &OobReport) -> T {
        match self.checked(i, param, oob) {
            Some(p) => unsafe { p.read() },
            None => T::default(),
        }
    }

    /// A checked write: skipped outside.
    #[inline(always)]
    pub unsafe fn store(&self, i: [u32; R], v: T, param: u32, oob: &OobReport) {
        if let Some(p) = self.checked(i, param, oob) {
            unsafe { p.write(v) }
        }
    }

    /// An unchecked read (`#[kernel(amp, unchecked)]`).
    #[inline(always)]
    pub unsafe fn load_unchecked(&self, i: [u32; R]) -> T {
        unsafe { self.at(i).read() }
    }

    /// An unchecked write.
    #[inline(always)]
    pub unsafe fn store_unchecked(&self, i: [u32; R], v: T) {
        unsafe { self.at(i).write(v) }
    }
}

/// The out-of-bounds report of a launch, shared by its threads: `[flag, param, rank,
/// index[3], extent[3]]` as amp-abi's `OOB_REPORT_WORDS`; the first failing access moves `flag`
/// from 0 to 1 and writes the rest.
#[derive(Debug, Default)]
pub struct OobReport {
    /// The words.
    pub words: [AtomicU32; 9],
}

impl OobReport {
    /// An empty report.
    pub const fn new() -> OobReport {
        OobReport {
            words: [
                AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0),
                AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0),
                AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0),
            ],
        }
    }

    /// Records a failed access unless one was recorded before.
    #[cold]
    #[inline(never)]
    pub fn record(&self, param: u32, index: &[u32], extent: &[u32]) {
        if self.words[0]
            .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        self.words[1].store(param, Ordering::Relaxed);
        self.words[2].store(index.len() as u32, Ordering::Relaxed);
        for d in 0..3 {
            self.words[3 + d].store(index.get(d).copied().unwrap_or(0), Ordering::Relaxed);
            self.words[6 + d].store(extent.get(d).copied().unwrap_or(0), Ordering::Relaxed);
        }
    }

    /// The report's words (read after the launch).
    pub fn read(&self) -> [u32; 9] {
        let mut out = [0; 9];
        for (o, w) in out.iter_mut().zip(&self.words) {
            *o = w.load(Ordering::Acquire);
        }
        out
    }
}

/// A local array index clamped into `0..n` (the SPIR-V back end reads the last element for an
/// index past the end).
#[inline(always)]
pub fn ix(i: u32, n: u32) -> usize {
    (if i < n - 1 { i } else { n - 1 }) as usize
}

/// `x / 0` is -1, `MIN / -1` is `MIN`.
#[inline(always)]
pub fn div_i32(a: i32, b: i32) -> i32 {
    if b == 0 { -1 } else { a.wrapping_div(b) }
}
/// `x % 0` is `x`, `MIN % -1` is 0.
#[inline(always)]
pub fn rem_i32(a: i32, b: i32) -> i32 {
    if b == 0 { a } else { a.wrapping_rem(b) }
}
/// `x / 0` is `u32::MAX`.
#[inline(always)]
pub fn div_u32(a: u32, b: u32) -> u32 {
    if b == 0 { u32::MAX } else { a / b }
}
/// `x % 0` is `x`.
#[inline(always)]
pub fn rem_u32(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { a % b }
}

/// `atomic_fetch_add` on an `f32` element: a compare-exchange loop on its bits.
#[inline(always)]
pub unsafe fn atomic_add_f32(p: *mut f32, v: f32) -> f32 {
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
#[inline(always)]
pub unsafe fn atom_i32<'a>(p: *mut i32) -> &'a AtomicI32 {
    unsafe { AtomicI32::from_ptr(p) }
}
/// The atomic view of a `u32` element.
#[inline(always)]
pub unsafe fn atom_u32<'a>(p: *mut u32) -> &'a AtomicU32 {
    unsafe { AtomicU32::from_ptr(p) }
}
/// The atomic view of an `f32` element's bits.
#[inline(always)]
pub unsafe fn atom_f32<'a>(p: *mut f32) -> &'a AtomicU32 {
    unsafe { AtomicU32::from_ptr(p.cast::<u32>()) }
}
/// Relaxed, as on the device.
pub const RELAXED: Ordering = Ordering::Relaxed;

macro_rules! float_helpers {
    ($t:ident, $bits:ident, $mant:expr, $bias:expr, $limit:expr, $m:ident) => {
        /// Helpers for one float width.
        pub mod $m {
            /// `1 / sqrt(x)`.
            #[inline(always)]
            pub fn rsqrt(x: $t) -> $t { 1.0 / x.sqrt() }
            /// `1 / x`.
            #[inline(always)]
            pub fn rcp(x: $t) -> $t { 1.0 / x }
            /// `10^x`.
            #[inline(always)]
            pub fn exp10(x: $t) -> $t { (10.0 as $t).powf(x) }
            /// C's `fdim`.
            #[inline(always)]
            pub fn fdim(x: $t, y: $t) -> $t {
                let d = x - y;
                if d.is_nan() { d } else if x > y { d } else { 0.0 }
            }
            /// Rust's `clamp`, without its panic on bad bounds.
            #[inline(always)]
            pub fn clamp(x: $t, lo: $t, hi: $t) -> $t {
                let r = if x < lo { lo } else { x };
                if r > hi { hi } else { r }
            }
            /// `x * 2^k`, rounded once (C's `ldexp`).
            #[inline(always)]
            pub fn ldexp(x: $t, k: i32) -> $t {
                let k = k.clamp(-$limit, $limit);
                let third = k / 3;
                let rest = k - 2 * third;
                let f = pow2(third);
                x * f * f * pow2(rest)
            }
            /// `2^k` for `k` within the normal exponents.
            #[inline(always)]
            fn pow2(k: i32) -> $t {
                <$t>::from_bits((((k + $bias) as $bits) << $mant) as _)
            }
            /// The mantissa of `frexp(x)`.
            #[inline(always)]
            pub fn frexp_mantissa(x: $t) -> $t { frexp(x).0 }
            /// The exponent of `frexp(x)`.
            #[inline(always)]
            pub fn frexp_exponent(x: $t) -> i32 { frexp(x).1 }
            fn frexp(x: $t) -> ($t, i32) {
                if x == 0.0 || !x.is_finite() {
                    return (x, 0);
                }
                let (y, adj) = if x.abs() < <$t>::MIN_POSITIVE {
                    (x * 18_446_744_073_709_551_616.0, 64)
                } else {
                    (x, 0)
                };
                let b = y.to_bits();
                let exp_mask: $bits = ((1 as $bits) << ($bits::BITS - 1 - $mant)) - 1;
                let biased = ((b >> $mant) & exp_mask) as i32;
                let e = biased - ($bias - 1) - adj;
                let m = (b & !(exp_mask << $mant)) | ((($bias - 1) as $bits) << $mant);
                (<$t>::from_bits(m), e)
            }
            /// The fraction of `modf(x)`.
            #[inline(always)]
            pub fn modf_frac(x: $t) -> $t {
                let f = if x.is_infinite() { 0.0 } else { x - x.trunc() };
                f.copysign(x)
            }
            /// The integral part of `modf(x)`.
            #[inline(always)]
            pub fn modf_int(x: $t) -> $t { x.trunc() }
            /// C's `nextafter`.
            #[inline(always)]
            pub fn nextafter(x: $t, y: $t) -> $t {
                if x.is_nan() || y.is_nan() {
                    return x + y;
                }
                if x == y {
                    return y;
                }
                if x == 0.0 {
                    return <$t>::from_bits(1).copysign(y);
                }
                let grow = (x < y) == (x > 0.0);
                let b = x.to_bits();
                <$t>::from_bits(if grow { b.wrapping_add(1) } else { b.wrapping_sub(1) })
            }
        }
    };
}
float_helpers!(f32, u32, 23, 127, 300, m32);
float_helpers!(f64, u64, 52, 1023, 2200, m64);
"#;
