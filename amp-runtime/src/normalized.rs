//! C++ AMP's `norm` and `unorm`: `f32`s held in `[-1, 1]` and `[0, 1]` (every conversion and
//! every arithmetic result is clamped into the range), and their 2- to 4-component vectors.
//! They are the element types of normalized texture formats (8 or 16 bits per component in a
//! texture; `f32` here).
//!
//! ```
//! use amp_runtime::{Norm, Unorm, Unorm4};
//! assert_eq!(f32::from(Unorm::new(1.5)), 1.0);
//! assert_eq!(f32::from(Norm::new(-3.0)), -1.0);
//! assert_eq!(Unorm::new(0.75) + Unorm::new(0.5), Unorm::new(1.0)); // clamped
//! let c = Unorm4::new(Unorm::new(0.2), Unorm::new(0.4), Unorm::new(0.6), Unorm::ONE);
//! assert_eq!(c.to_f32_array(), [0.2, 0.4, 0.6, 1.0]);
//! ```
//!
//! A NaN converts to zero, as a float-to-normalized conversion of a texture store does.

use crate::kernel::{ElemType, ScalarType};
use crate::scalar::{sealed::Sealed, DeviceElement, ScalarArg};
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// Defines a clamped scalar: `$lo..=1.0`.
macro_rules! clamped_scalar {
    ($(#[$doc:meta])* $name:ident, $alias:ident, $lo:literal) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
        pub struct $name(f32);

        #[doc = concat!("C++ AMP's name for [`", stringify!($name), "`].")]
        #[allow(non_camel_case_types)]
        pub type $alias = $name;

        impl $name {
            /// Zero.
            pub const ZERO: Self = $name(0.0);
            /// One, the largest value.
            pub const ONE: Self = $name(1.0);
            /// The smallest value.
            pub const MIN: Self = $name($lo);

            /// `x` clamped into the range (a NaN gives zero).
            pub fn new(x: f32) -> Self {
                if x.is_nan() {
                    $name(0.0)
                } else {
                    $name(x.clamp($lo, 1.0))
                }
            }

            /// The value as an `f32`.
            pub const fn get(self) -> f32 {
                self.0
            }
        }

        impl Sealed for $name {}

        // SAFETY: `#[repr(transparent)]` over an `f32`: no padding, and every bit pattern is
        // a valid value as far as memory safety goes. The range is an invariant of the API
        // (kernels clamp exactly as the host does), not of safety.
        unsafe impl DeviceElement for $name {
            const TYPE: ScalarType = ScalarType::$name;
        }

        /// Passed to a kernel by value as its `f32`.
        impl ScalarArg for $name {
            const TYPE: ScalarType = ScalarType::$name;
            fn to_bits(self) -> u64 {
                u64::from(self.0.to_bits())
            }
        }

        impl From<f32> for $name {
            fn from(x: f32) -> Self {
                $name::new(x)
            }
        }

        impl From<$name> for f32 {
            fn from(x: $name) -> f32 {
                x.0
            }
        }

        clamped_scalar!(@op $name, Add, add, AddAssign, add_assign, +);
        clamped_scalar!(@op $name, Sub, sub, SubAssign, sub_assign, -);
        clamped_scalar!(@op $name, Mul, mul, MulAssign, mul_assign, *);
        clamped_scalar!(@op $name, Div, div, DivAssign, div_assign, /);
    };
    (@op $name:ident, $tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for $name {
            type Output = $name;
            /// The result clamped into the range.
            fn $f(self, rhs: $name) -> $name {
                $name::new(self.0 $op rhs.0)
            }
        }
        impl $tra for $name {
            fn $fa(&mut self, rhs: $name) {
                *self = *self $op rhs;
            }
        }
    };
}

clamped_scalar!(
    /// A signed normalized value: an `f32` in `[-1, 1]` (C++ AMP's `norm`).
    Norm,
    norm,
    -1.0
);
clamped_scalar!(
    /// An unsigned normalized value: an `f32` in `[0, 1]` (C++ AMP's `unorm`).
    Unorm,
    unorm,
    0.0
);

impl Neg for Norm {
    type Output = Norm;
    fn neg(self) -> Norm {
        Norm(-self.0)
    }
}

impl From<Unorm> for Norm {
    fn from(x: Unorm) -> Norm {
        Norm(x.0)
    }
}

impl From<Norm> for Unorm {
    /// Clamped: negative values become zero.
    fn from(x: Norm) -> Unorm {
        Unorm::new(x.0)
    }
}

/// Defines a vector of clamped scalars.
macro_rules! clamped_vector {
    ($(#[$doc:meta])* $name:ident, $alias:ident, $s:ident, $n:literal, [$($f:ident),+]) => {
        $(#[$doc])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        pub struct $name {
            $(
                #[doc = concat!("Component `", stringify!($f), "`.")]
                pub $f: $s,
            )+
        }

        #[doc = concat!("C++ AMP's name for [`", stringify!($name), "`].")]
        #[allow(non_camel_case_types)]
        pub type $alias = $name;

        impl $name {
            /// A vector from its components.
            pub const fn new($($f: $s),+) -> Self {
                $name { $($f),+ }
            }

            /// A vector with every component `v`.
            pub const fn splat(v: $s) -> Self {
                $name { $($f: v),+ }
            }

            /// A vector from `f32`s, each clamped into the range.
            pub fn from_f32_array(a: [f32; $n]) -> Self {
                let [$($f),+] = a;
                $name { $($f: $s::new($f)),+ }
            }

            /// The components as `f32`s.
            pub fn to_f32_array(self) -> [f32; $n] {
                [$(self.$f.get()),+]
            }
        }

        impl Sealed for $name {}

        // SAFETY: `#[repr(C)]` components of one `#[repr(transparent)]` `f32` type, so no
        // padding, and every bit pattern is a value (see the scalar's impl).
        unsafe impl DeviceElement for $name {
            const TYPE: ScalarType = ScalarType::$s;
            const ELEM: ElemType = ElemType::Vector(ScalarType::$s, $n);
        }

        clamped_vector!(@op $name, Add, add, AddAssign, add_assign, +, [$($f),+]);
        clamped_vector!(@op $name, Sub, sub, SubAssign, sub_assign, -, [$($f),+]);
        clamped_vector!(@op $name, Mul, mul, MulAssign, mul_assign, *, [$($f),+]);
        clamped_vector!(@op $name, Div, div, DivAssign, div_assign, /, [$($f),+]);
    };
    (@op $name:ident, $tr:ident, $fun:ident, $tra:ident, $fa:ident, $op:tt, [$($f:ident),+]) => {
        impl $tr for $name {
            type Output = $name;
            /// Component by component, each clamped.
            fn $fun(self, rhs: $name) -> $name {
                $name { $($f: self.$f $op rhs.$f),+ }
            }
        }
        impl $tra for $name {
            fn $fa(&mut self, rhs: $name) {
                *self = *self $op rhs;
            }
        }
    };
}

/// Negates every component of a `Norm` vector (as [`Norm`]'s `-`: no clamping needed).
macro_rules! negate_vector {
    ($($name:ident [$($f:ident),+]),+) => {$(
        impl Neg for $name {
            type Output = $name;
            fn neg(self) -> $name {
                $name { $($f: -self.$f),+ }
            }
        }
    )+};
}

negate_vector!(Norm2 [x, y], Norm3 [x, y, z], Norm4 [x, y, z, w]);

clamped_vector!(
    /// Two [`Norm`]s (C++ AMP's `norm_2`).
    Norm2, norm_2, Norm, 2, [x, y]
);
clamped_vector!(
    /// Three [`Norm`]s (C++ AMP's `norm_3`).
    Norm3, norm_3, Norm, 3, [x, y, z]
);
clamped_vector!(
    /// Four [`Norm`]s (C++ AMP's `norm_4`).
    Norm4, norm_4, Norm, 4, [x, y, z, w]
);
clamped_vector!(
    /// Two [`Unorm`]s (C++ AMP's `unorm_2`).
    Unorm2, unorm_2, Unorm, 2, [x, y]
);
clamped_vector!(
    /// Three [`Unorm`]s (C++ AMP's `unorm_3`).
    Unorm3, unorm_3, Unorm, 3, [x, y, z]
);
clamped_vector!(
    /// Four [`Unorm`]s (C++ AMP's `unorm_4`), the colour of an RGBA8 texel.
    Unorm4, unorm_4, Unorm, 4, [x, y, z, w]
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_and_arithmetic_clamp() {
        assert_eq!(Norm::new(2.0).get(), 1.0);
        assert_eq!(Norm::new(-0.5).get(), -0.5);
        assert_eq!(Unorm::new(-0.5).get(), 0.0);
        assert_eq!(Unorm::new(f32::NAN).get(), 0.0);
        assert_eq!(Norm::new(f32::INFINITY).get(), 1.0);
        assert_eq!((Norm::new(-0.75) - Norm::new(0.5)).get(), -1.0);
        assert_eq!((Unorm::new(0.25) - Unorm::new(0.5)).get(), 0.0);
        assert_eq!((Unorm::new(0.5) / Unorm::new(0.25)).get(), 1.0);
        assert_eq!((-Norm::new(0.25)).get(), -0.25);
        assert_eq!(Unorm::from(Norm::new(-0.25)), Unorm::ZERO);
        assert_eq!(Norm::from(Unorm::new(0.25)).get(), 0.25);
        let mut v = Norm3::from_f32_array([0.5, -0.5, 2.0]);
        assert_eq!(v.to_f32_array(), [0.5, -0.5, 1.0]);
        v += Norm3::splat(Norm::new(0.75));
        assert_eq!(v.to_f32_array(), [1.0, 0.25, 1.0]);
        assert_eq!(std::mem::size_of::<Unorm4>(), 16);
        assert_eq!(
            (-Norm2::from_f32_array([0.5, -1.0])).to_f32_array(),
            [-0.5, 1.0]
        );
    }

    #[test]
    fn device_types() {
        assert_eq!(Unorm::ELEM, ElemType::Scalar(ScalarType::Unorm));
        assert_eq!(Norm2::ELEM, ElemType::Vector(ScalarType::Norm, 2));
        assert_eq!(Unorm4::ELEM.to_string(), "Unorm4");
        assert_eq!(Norm::ELEM.to_string(), "Norm");
        assert_eq!(
            ScalarArg::to_bits(Unorm::new(0.5)),
            u64::from(0.5f32.to_bits())
        );
    }
}
