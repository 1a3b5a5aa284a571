//! The element and scalar types that cross the host/device boundary.

use crate::kernel::{ElemType, ScalarType};

/// The seal of [`DeviceElement`]: only the crate's types and `#[derive(DeviceStruct)]` structs
/// implement it.
#[doc(hidden)]
pub mod sealed {
    /// Implemented by the element types the device knows.
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for bool {}
}

/// An element type of views and arrays: `i32`, `u32`, `f32`, `f64`, a short vector of them
/// ([`Float3`](crate::Float3), [`Int2`](crate::Int2), ...), or a `#[repr(C)]` struct with
/// `#[derive(DeviceStruct)]`.
///
/// Sealed: the device side only knows these types. `f64` kernels need a device with
/// `shaderFloat64` (see [`Accelerator::supports_double_precision`](crate::Accelerator::supports_double_precision)).
pub trait DeviceElement:
    sealed::Sealed + bytemuck::Pod + Send + Sync + std::fmt::Debug + 'static
{
    /// The device-side scalar type (of the components, for a short vector; `U32` for a struct,
    /// which [`ELEM`](Self::ELEM) describes).
    const TYPE: ScalarType;
    /// The device-side element type.
    const ELEM: ElemType = ElemType::Scalar(Self::TYPE);
}

impl DeviceElement for i32 {
    const TYPE: ScalarType = ScalarType::I32;
}
impl DeviceElement for u32 {
    const TYPE: ScalarType = ScalarType::U32;
}
impl DeviceElement for f32 {
    const TYPE: ScalarType = ScalarType::F32;
}
impl DeviceElement for f64 {
    const TYPE: ScalarType = ScalarType::F64;
}

/// A type a kernel can take by value: `i32`, `u32`, `f32`, `f64` or `bool` (passed as a `u32`
/// 0 or 1). Sealed.
#[doc(hidden)]
pub trait ScalarArg: sealed::Sealed + Copy {
    /// The device-side type.
    const TYPE: ScalarType;
    /// The value's bits, zero-extended to 64 bits (`bool` as 0 or 1).
    fn to_bits(self) -> u64;
}

impl ScalarArg for i32 {
    const TYPE: ScalarType = ScalarType::I32;
    fn to_bits(self) -> u64 {
        u64::from(self as u32)
    }
}
impl ScalarArg for u32 {
    const TYPE: ScalarType = ScalarType::U32;
    fn to_bits(self) -> u64 {
        u64::from(self)
    }
}
impl ScalarArg for f32 {
    const TYPE: ScalarType = ScalarType::F32;
    fn to_bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}
impl ScalarArg for f64 {
    const TYPE: ScalarType = ScalarType::F64;
    fn to_bits(self) -> u64 {
        self.to_bits()
    }
}
impl ScalarArg for bool {
    const TYPE: ScalarType = ScalarType::Bool;
    fn to_bits(self) -> u64 {
        u64::from(self)
    }
}
