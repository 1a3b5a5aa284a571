//! Short vector types, as C++ AMP's `int_2` ... `double_4`: 2 to 4 components of `i32`, `u32`,
//! `f32` or `f64`, usable as view and array elements and, inside kernels, as values with
//! components (`v.x`), swizzles (`v.zyx()`), element-wise arithmetic and the geometric
//! functions (see `docs/kernel-language.md`).
//!
//! The host layout is the components packed in order, without padding (`#[repr(C)]`): a
//! [`Float3`] is 12 bytes with 4-byte alignment, and a buffer of them has a 12-byte stride on
//! the device too.
//!
//! ```
//! use amp_runtime::Float3;
//! let a = Float3::new(1.0, 2.0, 3.0);
//! let b = a * 2.0 + Float3::splat(1.0);
//! assert_eq!(b, Float3::new(3.0, 5.0, 7.0));
//! assert_eq!(a.dot(b), 34.0);
//! assert_eq!(std::mem::size_of::<Float3>(), 12);
//! ```

use crate::kernel::{ElemType, ScalarType};
use crate::scalar::{sealed::Sealed, DeviceElement};
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, Sub, SubAssign};

/// Defines one short vector type: the struct, its constructors, element-wise operators with
/// vectors and scalars on either side, and its element type for views.
macro_rules! short_vector {
    ($(#[$doc:meta])* $name:ident, $alias:ident, $t:ty, $st:ident, $n:literal, [$($f:ident),+]) => {
        $(#[$doc])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
        pub struct $name {
            $(
                #[doc = concat!("Component `", stringify!($f), "`.")]
                pub $f: $t,
            )+
        }

        #[doc = concat!("C++ AMP's name for [`", stringify!($name), "`].")]
        #[allow(non_camel_case_types)]
        pub type $alias = $name;

        impl $name {
            /// A vector from its components.
            pub const fn new($($f: $t),+) -> Self {
                $name { $($f),+ }
            }

            /// A vector with every component `v`.
            pub const fn splat(v: $t) -> Self {
                $name { $($f: v),+ }
            }

            /// The components as an array.
            pub const fn to_array(self) -> [$t; $n] {
                [$(self.$f),+]
            }

            /// A vector from an array of its components.
            pub const fn from_array(a: [$t; $n]) -> Self {
                let [$($f),+] = a;
                $name { $($f),+ }
            }

            /// The dot product: the sum of the components' products.
            pub fn dot(self, other: Self) -> $t {
                let mut sum = <$t>::default();
                $( sum += self.$f * other.$f; )+
                sum
            }

            /// The element-wise minimum.
            pub fn min(self, other: Self) -> Self {
                $name { $($f: if other.$f < self.$f { other.$f } else { self.$f }),+ }
            }

            /// The element-wise maximum.
            pub fn max(self, other: Self) -> Self {
                $name { $($f: if other.$f > self.$f { other.$f } else { self.$f }),+ }
            }
        }

        impl Sealed for $name {}

        // SAFETY: `#[repr(C)]` components of one scalar type, no padding (`bytemuck::Pod`).
        unsafe impl DeviceElement for $name {
            const TYPE: ScalarType = ScalarType::$st;
            const ELEM: ElemType = ElemType::Vector(ScalarType::$st, $n);
        }

        impl From<[$t; $n]> for $name {
            fn from(a: [$t; $n]) -> Self {
                Self::from_array(a)
            }
        }

        impl From<$name> for [$t; $n] {
            fn from(v: $name) -> Self {
                v.to_array()
            }
        }

        short_vector!(@op $name, $t, Add, add, AddAssign, add_assign, +, [$($f),+]);
        short_vector!(@op $name, $t, Sub, sub, SubAssign, sub_assign, -, [$($f),+]);
        short_vector!(@op $name, $t, Mul, mul, MulAssign, mul_assign, *, [$($f),+]);
        short_vector!(@op $name, $t, Div, div, DivAssign, div_assign, /, [$($f),+]);

        impl Rem for $name {
            type Output = Self;
            fn rem(self, rhs: Self) -> Self {
                $name { $($f: self.$f % rhs.$f),+ }
            }
        }

        impl Rem<$t> for $name {
            type Output = Self;
            fn rem(self, rhs: $t) -> Self {
                $name { $($f: self.$f % rhs),+ }
            }
        }
    };
    (@op $name:ident, $t:ty, $tr:ident, $m:ident, $tra:ident, $ma:ident, $op:tt, [$($f:ident),+]) => {
        impl $tr for $name {
            type Output = Self;
            fn $m(self, rhs: Self) -> Self {
                $name { $($f: self.$f $op rhs.$f),+ }
            }
        }

        impl $tr<$t> for $name {
            type Output = Self;
            fn $m(self, rhs: $t) -> Self {
                $name { $($f: self.$f $op rhs),+ }
            }
        }

        impl $tr<$name> for $t {
            type Output = $name;
            fn $m(self, rhs: $name) -> $name {
                $name { $($f: self $op rhs.$f),+ }
            }
        }

        impl $tra for $name {
            fn $ma(&mut self, rhs: Self) {
                *self = *self $op rhs;
            }
        }

        impl $tra<$t> for $name {
            fn $ma(&mut self, rhs: $t) {
                *self = *self $op rhs;
            }
        }
    };
}

/// Negation and `abs` for the signed vector types.
macro_rules! signed_vector {
    ($name:ident, [$($f:ident),+]) => {
        impl Neg for $name {
            type Output = Self;
            fn neg(self) -> Self {
                $name { $($f: -self.$f),+ }
            }
        }

        impl $name {
            /// The element-wise absolute value.
            pub fn abs(self) -> Self {
                $name { $($f: self.$f.abs()),+ }
            }
        }
    };
}

/// `length` and `normalize` for the float vector types.
macro_rules! float_vector {
    ($name:ident, $t:ty) => {
        impl $name {
            /// The Euclidean length.
            pub fn length(self) -> $t {
                self.dot(self).sqrt()
            }

            /// The vector scaled to length 1.
            pub fn normalize(self) -> Self {
                self / self.length()
            }
        }
    };
}

/// `cross` for the 3-component float vector types.
macro_rules! cross {
    ($name:ident) => {
        impl $name {
            /// The cross product.
            pub fn cross(self, b: Self) -> Self {
                $name::new(
                    self.y * b.z - self.z * b.y,
                    self.z * b.x - self.x * b.z,
                    self.x * b.y - self.y * b.x,
                )
            }
        }
    };
}

short_vector!(
    /// Two `i32`s (C++ AMP's `int_2`).
    Int2, int_2, i32, I32, 2, [x, y]);
short_vector!(
    /// Three `i32`s (C++ AMP's `int_3`).
    Int3, int_3, i32, I32, 3, [x, y, z]);
short_vector!(
    /// Four `i32`s (C++ AMP's `int_4`).
    Int4, int_4, i32, I32, 4, [x, y, z, w]);
short_vector!(
    /// Two `u32`s (C++ AMP's `uint_2`).
    UInt2, uint_2, u32, U32, 2, [x, y]);
short_vector!(
    /// Three `u32`s (C++ AMP's `uint_3`).
    UInt3, uint_3, u32, U32, 3, [x, y, z]);
short_vector!(
    /// Four `u32`s (C++ AMP's `uint_4`).
    UInt4, uint_4, u32, U32, 4, [x, y, z, w]);
short_vector!(
    /// Two `f32`s (C++ AMP's `float_2`).
    Float2, float_2, f32, F32, 2, [x, y]);
short_vector!(
    /// Three `f32`s (C++ AMP's `float_3`); 12 bytes, also in a view on the device.
    Float3, float_3, f32, F32, 3, [x, y, z]);
short_vector!(
    /// Four `f32`s (C++ AMP's `float_4`).
    Float4, float_4, f32, F32, 4, [x, y, z, w]);
short_vector!(
    /// Two `f64`s (C++ AMP's `double_2`); kernels need `shaderFloat64`.
    Double2, double_2, f64, F64, 2, [x, y]);
short_vector!(
    /// Three `f64`s (C++ AMP's `double_3`); kernels need `shaderFloat64`.
    Double3, double_3, f64, F64, 3, [x, y, z]);
short_vector!(
    /// Four `f64`s (C++ AMP's `double_4`); kernels need `shaderFloat64`.
    Double4, double_4, f64, F64, 4, [x, y, z, w]);

signed_vector!(Int2, [x, y]);
signed_vector!(Int3, [x, y, z]);
signed_vector!(Int4, [x, y, z, w]);
signed_vector!(Float2, [x, y]);
signed_vector!(Float3, [x, y, z]);
signed_vector!(Float4, [x, y, z, w]);
signed_vector!(Double2, [x, y]);
signed_vector!(Double3, [x, y, z]);
signed_vector!(Double4, [x, y, z, w]);

float_vector!(Float2, f32);
float_vector!(Float3, f32);
float_vector!(Float4, f32);
float_vector!(Double2, f64);
float_vector!(Double3, f64);
float_vector!(Double4, f64);

cross!(Float3);
cross!(Double3);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_packed_components() {
        assert_eq!(std::mem::size_of::<Float3>(), 12);
        assert_eq!(std::mem::align_of::<Float3>(), 4);
        assert_eq!(std::mem::size_of::<Double3>(), 24);
        assert_eq!(std::mem::size_of::<Int4>(), 16);
        assert_eq!(Float3::ELEM.size(), 12);
        assert_eq!(Double2::ELEM, ElemType::Vector(ScalarType::F64, 2));
    }

    #[test]
    fn operators_work_element_wise() {
        let a = Int3::new(1, -2, 3);
        assert_eq!(a + 1, Int3::new(2, -1, 4));
        assert_eq!(2 * a, Int3::new(2, -4, 6));
        assert_eq!(-a, Int3::new(-1, 2, -3));
        assert_eq!(a.abs(), Int3::new(1, 2, 3));
        assert_eq!(a % 2, Int3::new(1, 0, 1));
        let c = Float3::new(1.0, 0.0, 0.0).cross(Float3::new(0.0, 1.0, 0.0));
        assert_eq!(c, Float3::new(0.0, 0.0, 1.0));
        assert_eq!(Float2::new(3.0, 4.0).length(), 5.0);
    }
}
