//! The scalar bounds of generic kernels and device functions: [`DeviceScalar`],
//! [`DeviceInt`] and [`DeviceFloat`].
//!
//! Each is a closed set (sealed), which is what lets `#[kernel(amp)]` compile every member of a
//! generic kernel at build time and pick the instance from the argument types at the launch.
//! On the host, the traits make the same generic device functions ordinary Rust: their
//! operators and methods behave as the kernel language documents (integer arithmetic wraps
//! on the device; on the host it follows Rust's build profile, as for any device function).

use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Rem, RemAssign, Sub, SubAssign};

use crate::kernel::ScalarType;
use crate::scalar::{DeviceElement, ScalarArg};

mod sealed {
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// A scalar a generic kernel can be instantiated with: `i32`, `u32`, `f32` or `f64`.
///
/// Kernels take type parameters bounded by it (`fn fill<T: DeviceScalar>(..)`; see "Generic
/// kernels" in docs/kernel-language.md); on the host, the same generic device functions are
/// ordinary generic Rust:
///
/// ```
/// use amp_runtime::DeviceScalar;
///
/// fn clamp_to<T: DeviceScalar>(x: T, lo: T, hi: T) -> T {
///     x.max(lo).min(hi)
/// }
/// assert_eq!(clamp_to(7, 0, 5), 5);
/// assert_eq!(clamp_to(-1.5f32, 0.0, 1.0), 0.0);
/// assert_eq!(<u32 as DeviceScalar>::ONE + u32::ONE, 2);
/// ```
pub trait DeviceScalar:
    sealed::Sealed
    + DeviceElement
    + ScalarArg
    + Copy
    + Default
    + std::fmt::Debug
    + std::fmt::Display
    + Send
    + Sync
    + 'static
    + PartialEq
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + RemAssign
{
    /// `0`.
    const ZERO: Self;
    /// `1`.
    const ONE: Self;
    /// The smallest value (for floats, the most negative finite one, as `f32::MIN`).
    const MIN: Self;
    /// The largest value (for floats, the largest finite one).
    const MAX: Self;
    /// The value [`min`](Self::min) always passes over (`MAX`; NaN for floats), which starts
    /// a minimum of no elements.
    #[doc(hidden)]
    const MIN_IDENTITY: Self;
    /// The value [`max`](Self::max) always passes over (`MIN`; NaN for floats).
    #[doc(hidden)]
    const MAX_IDENTITY: Self;

    /// The smaller of two values (floats: as `f32::min`, a NaN loses).
    ///
    /// Takes `&self` so that `x.min(y)` on a concrete `i32` or `u32` still finds `Ord::min`
    /// (a by-value method wins before auto-referencing) where this trait is in scope, while
    /// generic code, where `T` is not `Ord`, finds this one.
    fn min(&self, other: Self) -> Self;
    /// The larger of two values (floats: as `f32::max`, a NaN loses); `&self` as for
    /// [`min`](Self::min).
    fn max(&self, other: Self) -> Self;
    /// The magnitude (`i32::MIN` stays `i32::MIN`, as on the device; `u32` is unchanged).
    fn abs(self) -> Self;
}

/// An integer scalar: `i32` or `u32`, with the bitwise operators and shifts. (Not `Ord`:
/// its `min`/`max` would make `x.min(y)` ambiguous with [`DeviceScalar::min`].)
pub trait DeviceInt:
    DeviceScalar
    + Eq
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitXor<Output = Self>
    + std::ops::Not<Output = Self>
    + std::ops::Shl<u32, Output = Self>
    + std::ops::Shr<u32, Output = Self>
    + std::ops::BitAndAssign
    + std::ops::BitOrAssign
    + std::ops::BitXorAssign
{
}

/// A floating-point scalar: `f32` or `f64`, with negation and the math functions of
/// `docs/math.md` as methods.
pub trait DeviceFloat: DeviceScalar + std::ops::Neg<Output = Self> {
    /// Positive infinity.
    const INFINITY: Self;
    /// Negative infinity.
    const NEG_INFINITY: Self;
    /// A quiet NaN.
    const NAN: Self;
    /// The machine epsilon.
    const EPSILON: Self;

    /// Square root.
    fn sqrt(self) -> Self;
    /// `e^self`.
    fn exp(self) -> Self;
    /// `2^self`.
    fn exp2(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Base-2 logarithm.
    fn log2(self) -> Self;
    /// Base-10 logarithm.
    fn log10(self) -> Self;
    /// `self^n`.
    fn powf(self, n: Self) -> Self;
    /// Sine.
    fn sin(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// Tangent.
    fn tan(self) -> Self;
    /// Arcsine.
    fn asin(self) -> Self;
    /// Arccosine.
    fn acos(self) -> Self;
    /// Arctangent.
    fn atan(self) -> Self;
    /// Four-quadrant arctangent of `self / other`.
    fn atan2(self, other: Self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;
    /// Largest integer not above.
    fn floor(self) -> Self;
    /// Smallest integer not below.
    fn ceil(self) -> Self;
    /// Nearest integer, halves away from zero.
    fn round(self) -> Self;
    /// Integer part.
    fn trunc(self) -> Self;
    /// Fractional part (`self - self.trunc()`).
    fn fract(self) -> Self;
    /// `self * a + b` with one rounding.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// `1 / self`.
    fn recip(self) -> Self;
    /// `sqrt(self² + other²)` without undue overflow.
    fn hypot(self, other: Self) -> Self;
    /// Whether it is NaN.
    fn is_nan(self) -> bool;
    /// Whether it is infinite.
    fn is_infinite(self) -> bool;
    /// Whether it is neither infinite nor NaN.
    fn is_finite(self) -> bool;
}

macro_rules! scalar {
    ($t:ident, $zero:literal, $one:literal, $abs:ident) => {
        impl DeviceScalar for $t {
            const ZERO: Self = $zero;
            const ONE: Self = $one;
            const MIN: Self = $t::MIN;
            const MAX: Self = $t::MAX;
            const MIN_IDENTITY: Self = scalar!(@identity $abs $t::MAX);
            const MAX_IDENTITY: Self = scalar!(@identity $abs $t::MIN);
            fn min(&self, other: Self) -> Self {
                scalar!(@min $abs *self, other)
            }
            fn max(&self, other: Self) -> Self {
                scalar!(@max $abs *self, other)
            }
            fn abs(self) -> Self {
                scalar!(@abs $abs self)
            }
        }
    };
    (@identity float $x:expr) => { Self::NAN };
    (@identity $other:ident $x:expr) => { $x };
    (@abs wrapping $x:ident) => { $x.wrapping_abs() };
    (@abs none $x:ident) => { $x };
    (@abs float $x:ident) => { $x.abs() };
    (@min float $x:expr, $y:ident) => { $x.min($y) };
    (@min $other:ident $x:expr, $y:ident) => { Ord::min($x, $y) };
    (@max float $x:expr, $y:ident) => { $x.max($y) };
    (@max $other:ident $x:expr, $y:ident) => { Ord::max($x, $y) };
}

scalar!(i32, 0, 1, wrapping);
scalar!(u32, 0, 1, none);
scalar!(f32, 0.0, 1.0, float);
scalar!(f64, 0.0, 1.0, float);

impl DeviceInt for i32 {}
impl DeviceInt for u32 {}

macro_rules! float {
    ($t:ident) => {
        impl DeviceFloat for $t {
            const INFINITY: Self = $t::INFINITY;
            const NEG_INFINITY: Self = $t::NEG_INFINITY;
            const NAN: Self = $t::NAN;
            const EPSILON: Self = $t::EPSILON;
            float!(@unary $t: sqrt exp exp2 ln log2 log10 sin cos tan asin acos atan tanh
                floor ceil round trunc fract recip);
            fn powf(self, n: Self) -> Self {
                $t::powf(self, n)
            }
            fn atan2(self, other: Self) -> Self {
                $t::atan2(self, other)
            }
            fn mul_add(self, a: Self, b: Self) -> Self {
                $t::mul_add(self, a, b)
            }
            fn hypot(self, other: Self) -> Self {
                $t::hypot(self, other)
            }
            fn is_nan(self) -> bool {
                $t::is_nan(self)
            }
            fn is_infinite(self) -> bool {
                $t::is_infinite(self)
            }
            fn is_finite(self) -> bool {
                $t::is_finite(self)
            }
        }
    };
    (@unary $t:ident: $($f:ident)*) => {
        $(fn $f(self) -> Self { $t::$f(self) })*
    };
}

float!(f32);
float!(f64);

/// Whether the generic instance for `T` is the one compiled for `scalar` (the launchers of
/// generic kernels ask this to pick their instance; constant after monomorphization).
#[doc(hidden)]
pub const fn is_scalar<T: DeviceScalar>(scalar: ScalarType) -> bool {
    <T as DeviceElement>::TYPE as u32 == scalar as u32
}
