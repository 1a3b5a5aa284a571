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
    impl Sealed for usize {}
    impl Sealed for i8 {}
    impl Sealed for u8 {}
    impl Sealed for i16 {}
    impl Sealed for u16 {}
}

/// An element type of views and arrays: `bool`, `i8`, `u8`, `i16`, `u16`, `i32`, `u32`, `f32`,
/// `f64`, a short vector of the 32- and 64-bit ones
/// ([`Float3`](crate::Float3), [`Int2`](crate::Int2), ...), or a `#[repr(C)]` struct with
/// `#[derive(DeviceStruct)]`.
///
/// Sealed: the device side only knows these types. `f64` kernels need a device with
/// `shaderFloat64` (see [`Accelerator::supports_double_precision`](crate::Accelerator::supports_double_precision)).
///
/// The runtime moves elements as bytes, so the trait requires neither `bytemuck::Pod` nor
/// `Debug` of a struct: `#[derive(Clone, Copy, DeviceStruct)]` is enough (a struct may still
/// derive them for its own use).
///
/// # Safety
///
/// An implementor has no padding bytes and every bit pattern of its size is a valid value (as
/// `bytemuck::Pod`), except `bool`. The crate implements it for its types, and
/// `#[derive(DeviceStruct)]` for a `#[repr(C)]` struct whose fields are all `DeviceElement`s
/// other than `bool`, after a compile-time check that the fields' sizes add up to the struct's
/// (no padding). Do not implement it by hand.
///
/// A `bool` is one byte, 0 or 1, and the runtime keeps every byte of a `bool` view or array 0
/// or 1, so that the bytes it copies into host `bool`s are valid: they come from the host's
/// `bool`s, or from kernels, which store only 0 and 1 (`#[kernel(amp)]` compiles a `bool`
/// store so; [`RawKernel`](crate::RawKernel) refuses `bool` buffers); arrays of them start
/// zeroed; a `bool` view ignores `discard_data` (a partly written device copy would bring
/// other bytes back); and `reinterpret_as` never shows other bytes as `bool`s nor writes a
/// `bool`'s bytes as another type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a device element type",
    label = "not a device element type",
    note = "view and array elements are `bool`, `i8`, `u8`, `i16`, `u16`, `i32`, `u32`, `f32`, `f64`, \
            short vectors (`Float3`, ...) and `#[repr(C)]` structs with `#[derive(Clone, Copy, \
            DeviceStruct)]` (whose fields are 32- or 64-bit)"
)]
pub unsafe trait DeviceElement: sealed::Sealed + Copy + Send + Sync + 'static {
    /// The device-side scalar type (of the components, for a short vector; `U32` for a struct,
    /// which [`ELEM`](Self::ELEM) describes).
    const TYPE: ScalarType;
    /// The device-side element type.
    const ELEM: ElemType = ElemType::Scalar(Self::TYPE);
}

// SAFETY: no padding, every bit pattern is a value.
unsafe impl DeviceElement for i32 {
    const TYPE: ScalarType = ScalarType::I32;
}
// SAFETY: as for `i32`.
unsafe impl DeviceElement for u32 {
    const TYPE: ScalarType = ScalarType::U32;
}
// SAFETY: as for `i32`.
unsafe impl DeviceElement for f32 {
    const TYPE: ScalarType = ScalarType::F32;
}
// SAFETY: as for `i32`.
unsafe impl DeviceElement for f64 {
    const TYPE: ScalarType = ScalarType::F64;
}
// SAFETY: one byte without padding, 0 or 1 wherever the runtime keeps it (see the trait's
// safety section). A Vulkan buffer of these holds them packed into 32-bit words, which the
// runtime sizes in whole words (`ScalarType::is_packed`).
unsafe impl DeviceElement for bool {
    const TYPE: ScalarType = ScalarType::Bool;
}
// SAFETY: as for `i32`. A Vulkan buffer of these holds them packed into 32-bit words, which
// the runtime sizes in whole words (`ScalarType::is_packed`).
unsafe impl DeviceElement for i8 {
    const TYPE: ScalarType = ScalarType::I8;
}
// SAFETY: as for `i8`.
unsafe impl DeviceElement for u8 {
    const TYPE: ScalarType = ScalarType::U8;
}
// SAFETY: as for `i8`.
unsafe impl DeviceElement for i16 {
    const TYPE: ScalarType = ScalarType::I16;
}
// SAFETY: as for `i8`.
unsafe impl DeviceElement for u16 {
    const TYPE: ScalarType = ScalarType::U16;
}

/// Compiles only for a `DeviceElement` `T` other than `bool`: `#[derive(DeviceStruct)]` calls it
/// with each field's type, in a `const`, before it implements [`DeviceElement`] for the struct
/// (whose every bit pattern must be a value).
#[doc(hidden)]
pub const fn assert_device_field<T: DeviceElement>() {
    assert!(
        !is_bool::<T>(),
        "a `DeviceStruct` field cannot be a `bool` (a struct's bytes may be any bytes): use a `u32` 0 or 1"
    );
}

/// Whether `T` is `bool`, the element type whose bytes are only 0 and 1.
pub(crate) const fn is_bool<T: DeviceElement>() -> bool {
    holds_bools(T::ELEM)
}

/// Whether elements of type `elem` are `bool`s (see [`is_bool`]).
pub(crate) const fn holds_bools(elem: ElemType) -> bool {
    matches!(elem, ElemType::Scalar(ScalarType::Bool))
}

/// The bytes of `data`.
pub(crate) fn as_bytes<T: DeviceElement>(data: &[T]) -> &[u8] {
    // SAFETY: a `DeviceElement` has no padding, so every byte of the slice is initialised; `u8`
    // has alignment 1 and the length is the slice's size in bytes.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data)) }
}

/// The bytes of `data`, writable.
pub(crate) fn as_bytes_mut<T: DeviceElement>(data: &mut [T]) -> &mut [u8] {
    let len = std::mem::size_of_val(data);
    // SAFETY: as in `as_bytes`; and every bit pattern is a valid `T`, so any bytes written
    // leave valid elements, except for `bool`, whose bytes the runtime writes only from
    // other valid `bool`s (see `DeviceElement`'s safety section).
    unsafe { std::slice::from_raw_parts_mut(data.as_mut_ptr().cast::<u8>(), len) }
}

/// The element whose bytes are all zero.
pub(crate) fn zeroed<T: DeviceElement>() -> T {
    // SAFETY: all zeros is a valid `T` (`false` for a `bool`; every bit pattern for the others).
    unsafe { std::mem::zeroed() }
}

/// A type a kernel can take by value: `i32`, `u32`, `usize` (32 bits on the device), `f32`,
/// `f64` or `bool` (passed as a `u32` 0 or 1). Sealed.
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
/// The small integers travel as one 32-bit word, signed ones sign-extended.
macro_rules! small_scalar_arg {
    ($($t:ty => $st:ident, $wide:ty;)*) => {$(
        impl ScalarArg for $t {
            const TYPE: ScalarType = ScalarType::$st;
            fn to_bits(self) -> u64 {
                u64::from(self as $wide as u32)
            }
        }
    )*};
}
small_scalar_arg! {
    i8 => I8, i32;
    u8 => U8, u32;
    i16 => I16, i32;
    u16 => U16, u32;
}
/// A kernel's `usize` parameter: the device's `usize` is 32 bits, so a launch refuses a value
/// past `u32::MAX`.
impl ScalarArg for usize {
    const TYPE: ScalarType = ScalarType::U32;
    fn to_bits(self) -> u64 {
        self as u64
    }
}
impl ScalarArg for bool {
    const TYPE: ScalarType = ScalarType::Bool;
    fn to_bits(self) -> u64 {
        u64::from(self)
    }
}
