//! A kernel library: `#[amp::device]` functions, a `#[derive(DeviceStruct)]` struct and a
//! kernel, for the kernels of crates that depend on it (see `tests/dependent.rs`).

use amp::prelude::*;

/// Device structs.
pub mod shapes {
    use amp::prelude::*;

    /// A weighted segment in the plane: 20 bytes, no padding.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq, DeviceStruct)]
    pub struct Segment {
        /// Start point.
        pub from: Float2,
        /// End point.
        pub to: Float2,
        /// Weight.
        pub weight: f32,
    }
}

/// Device functions: public ones, and a private helper they call.
pub mod interp {
    use super::shapes::Segment;
    use amp::prelude::*;

    /// `t` clamped to `[0, 1]`; private, called by [`lerp`].
    #[amp::device]
    fn clamp01(t: f32) -> f32 {
        t.clamp(0.0, 1.0)
    }

    /// Linear interpolation from `a` to `b`, with `t` clamped to `[0, 1]`.
    #[amp::device]
    pub fn lerp(a: f32, b: f32, t: f32) -> f32 {
        a + (b - a) * clamp01(t)
    }

    /// The point at `t` along `s`, scaled by its weight.
    #[amp::device]
    pub fn point_at(s: Segment, t: f32) -> Float2 {
        Float2::new(lerp(s.from.x, s.to.x, t), lerp(s.from.y, s.to.y, t)) * s.weight
    }

    /// `a * x + b`.
    #[amp::device]
    pub fn affine(a: f32, x: f32, b: f32) -> f32 {
        a * x + b
    }
}

/// Multiplies every element by `k`: a kernel whose launcher dependent crates call.
#[kernel(amp)]
pub fn scale(idx: Index<1>, v: ArrayViewMut<f32, 1>, k: f32) {
    v[idx] *= k;
}

/// Generic device functions and kernels: every instance is compiled where it is used.
pub mod generic {
    use amp::prelude::*;

    /// `x` clamped to `[lo, hi]`, for every `DeviceScalar`.
    #[amp::device]
    pub fn clamp_to<T: DeviceScalar>(x: T, lo: T, hi: T) -> T {
        x.max(lo).min(hi)
    }

    /// `y = a * x + y` over `f32` or `f64`.
    #[kernel(amp)]
    pub fn axpy<T: DeviceFloat>(idx: Index<1>, a: T, x: ArrayView<T, 1>, y: ArrayViewMut<T, 1>) {
        y[idx] = a * x[idx] + y[idx];
    }
}

/// A private constant of the library, read by its device functions through a path.
const GAIN: f32 = 2.5;

/// Device functions that reach the library's own items the ways Rust code does: helpers by
/// `crate::` path, private constants by name, by `super::` and by `crate::` path. Kernels in
/// other crates inline them with every name resolved here, in the library.
pub mod tone {
    /// A private constant of this module.
    const OFFSET: f32 = 0.25;

    /// `x` scaled by the library's gain, then offset: the helper called by `crate::` path and
    /// the constants by `super::` path and by name.
    #[amp::device]
    pub fn shaped(x: f32) -> f32 {
        crate::interp::affine(super::GAIN, x, OFFSET)
    }

    /// [`shaped`] of `x`, clamped to the library's limit (a constant by `crate::` path).
    #[amp::device]
    pub fn limited(x: f32) -> f32 {
        let y = shaped(x);
        if y > crate::limits::MAX_LEVEL {
            crate::limits::MAX_LEVEL
        } else {
            y
        }
    }
}

/// Constants for the device functions above.
pub mod limits {
    /// The largest level [`crate::tone::limited`] returns.
    pub(crate) const MAX_LEVEL: f32 = 10.0;
}
