//! C++ AMP's `concurrency::direct3d` functions, on the host and in kernels
//! (`direct3d::countbits(x)`; in scope through `amp::prelude::*`). A kernel computes exactly
//! what these functions compute on the host, on every device:
//!
//! | function | result |
//! |---|---|
//! | `countbits(x: u32) -> u32` | the set bits of `x` |
//! | `firstbithigh(x: i32) -> i32` | the index of the highest bit that differs from the sign bit (HLSL's): of the highest set bit for `x >= 0`, of the highest clear bit for `x < 0`; -1 for 0 and -1 |
//! | `firstbitlow(x: i32) -> i32` | the index of the lowest set bit; -1 for 0 |
//! | `reversebits(x: u32) -> u32` | the bits in reverse order |
//! | `mad(a, b, c)` | `a * b + c`, two roundings for floats (never fused), wrapping for integers |
//! | `rcp(x)` | `1 / x`, correctly rounded |
//! | `saturate(x: f32) -> f32` | `x` clamped to `[0, 1]`; NaN and `-0.0` give `+0.0` |
//! | `sign(x: i32) -> i32` | -1, 0 or 1 |
//! | `smoothstep(a, b, x: f32) -> f32` | `t² (3 - 2t)` with `t = saturate((x - a) / (b - a))` |
//! | `step(y, x: f32) -> f32` | 1 where `x >= y`, else 0 (also for a NaN) |
//! | `clamp(x, lo, hi)` | by comparisons, `m = if x > lo { x } else { lo }`, then `if m < hi { m } else { hi }`: a NaN `x` gives `lo`, `lo` above `hi` gives `hi` |
//! | `imax`, `imin` (`i32`), `umax`, `umin` (`u32`) | the larger or smaller |
//! | `radians(x: f32) -> f32` | `x.to_radians()` |
//! | `abs(x: i32) -> i32` | `x.wrapping_abs()` (`i32::MIN` stays) |

use std::ops::{Add, Mul};

/// The set bits of `x`.
pub fn countbits(x: u32) -> u32 {
    x.count_ones()
}

/// The index of the highest bit of `x` that differs from its sign bit; -1 for 0 and -1.
pub fn firstbithigh(x: i32) -> i32 {
    let y = if x < 0 { !x } else { x };
    31 - y.leading_zeros() as i32
}

/// The index of the lowest set bit of `x`; -1 for 0.
pub fn firstbitlow(x: i32) -> i32 {
    if x == 0 {
        -1
    } else {
        x.trailing_zeros() as i32
    }
}

/// The bits of `x` in reverse order.
pub fn reversebits(x: u32) -> u32 {
    x.reverse_bits()
}

/// -1, 0 or 1.
pub fn sign(x: i32) -> i32 {
    x.signum()
}

/// `|x|`, with `i32::MIN` kept (as the kernel's `abs`).
pub fn abs(x: i32) -> i32 {
    x.wrapping_abs()
}

/// The larger of two `i32`.
pub fn imax(a: i32, b: i32) -> i32 {
    a.max(b)
}

/// The smaller of two `i32`.
pub fn imin(a: i32, b: i32) -> i32 {
    a.min(b)
}

/// The larger of two `u32`.
pub fn umax(a: u32, b: u32) -> u32 {
    a.max(b)
}

/// The smaller of two `u32`.
pub fn umin(a: u32, b: u32) -> u32 {
    a.min(b)
}

/// `x` clamped to `[0, 1]`; NaN and `-0.0` give `+0.0`.
pub fn saturate(x: f32) -> f32 {
    if x > 0.0 {
        if x < 1.0 {
            x
        } else {
            1.0
        }
    } else {
        0.0
    }
}

/// `x` in radians.
pub fn radians(x: f32) -> f32 {
    x.to_radians()
}

/// 1 where `x >= y`, else 0.
pub fn step(y: f32, x: f32) -> f32 {
    if x >= y {
        1.0
    } else {
        0.0
    }
}

/// Hermite interpolation between 0 and 1 as `x` goes from `a` to `b`.
pub fn smoothstep(a: f32, b: f32, x: f32) -> f32 {
    let t = saturate((x - a) / (b - a));
    t * t * (3.0 - 2.0 * t)
}

/// The scalars of `mad` and `clamp`: as in kernels, integer arithmetic wraps. Sealed.
pub trait Direct3dScalar: Copy + PartialOrd + sealed::Sealed {
    /// `a * b + c`.
    fn mad(a: Self, b: Self, c: Self) -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
}

macro_rules! float_scalar {
    ($($t:ty),*) => {$(
        impl Direct3dScalar for $t {
            fn mad(a: Self, b: Self, c: Self) -> Self {
                a.mul(b).add(c)
            }
        }
    )*};
}

macro_rules! int_scalar {
    ($($t:ty),*) => {$(
        impl Direct3dScalar for $t {
            fn mad(a: Self, b: Self, c: Self) -> Self {
                a.wrapping_mul(b).wrapping_add(c)
            }
        }
    )*};
}

float_scalar!(f32, f64);
int_scalar!(i32, u32);

/// `a * b + c` (two roundings for floats, wrapping for integers).
pub fn mad<T: Direct3dScalar>(a: T, b: T, c: T) -> T {
    T::mad(a, b, c)
}

/// `x` between `lo` and `hi` by comparisons: `m = if x > lo { x } else { lo }`, then
/// `if m < hi { m } else { hi }` (a NaN `x` gives `lo`, `lo` above `hi` gives `hi`, and the sign
/// of a zero is decided, where `max`/`min` would leave it open).
pub fn clamp<T: Direct3dScalar>(x: T, lo: T, hi: T) -> T {
    let m = if x > lo { x } else { lo };
    if m < hi {
        m
    } else {
        hi
    }
}

/// `1 / x`.
pub fn rcp<T: Rcp>(x: T) -> T {
    x.rcp()
}

/// The floats of [`rcp`]. Sealed.
pub trait Rcp: Copy + sealed::Sealed {
    /// `1 / self`.
    fn rcp(self) -> Self;
}

impl Rcp for f32 {
    fn rcp(self) -> Self {
        self.recip()
    }
}

impl Rcp for f64 {
    fn rcp(self) -> Self {
        self.recip()
    }
}
