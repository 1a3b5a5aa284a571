//! Constants that device functions read, handed to the kernels that inline them.
//!
//! A kernel inlines the device functions it calls, in its own crate and module, so a constant
//! a device function names (`GAIN`, `super::GAIN`, `crate::limits::MAX`) would otherwise be
//! looked up where the kernel is. `#[amp::device]` therefore leaves next to each device
//! function one `pub const fn` per constant its body reads, returning the constant as an
//! opaque [`OuterConstValue`]; the kernel reads it through [`outer_const`] by the function's
//! path. The name resolves where the function is written, as in Rust, private constants
//! included, and rustc checks the constant's type against the kernel's use of it.

/// A scalar constant a device function hands to a kernel (sealed: the kernel language's
/// scalars only).
pub trait OuterConstValue: Copy + 'static + sealed::Sealed {
    /// Which scalar it is (distinct for every implementing type).
    #[doc(hidden)]
    const TAG: u8;
    /// Its bits, widened.
    #[doc(hidden)]
    fn into_bits(self) -> u64;
    /// The value of `bits` (from [`into_bits`](Self::into_bits) of the same type).
    #[doc(hidden)]
    fn from_bits(bits: u64) -> Self;
}

mod sealed {
    pub trait Sealed {}
}

const USIZE_TAG: u8 = 3;

macro_rules! outer_const_value {
    ($($t:ty => $tag:expr, |$v:ident| $into:expr, |$b:ident| $from:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl OuterConstValue for $t {
            const TAG: u8 = $tag;
            fn into_bits(self) -> u64 {
                let $v = self;
                $into
            }
            fn from_bits($b: u64) -> Self {
                $from
            }
        }
    )*};
}

outer_const_value! {
    i32 => 0, |v| v as u32 as u64, |b| b as u32 as i32;
    u32 => 1, |v| v as u64, |b| b as u32;
    bool => 2, |v| v as u64, |b| b != 0;
    usize => USIZE_TAG, |v| v as u64, |b| b as usize;
    f32 => 4, |v| v.to_bits() as u64, |b| f32::from_bits(b as u32);
    f64 => 5, |v| v.to_bits(), |b| f64::from_bits(b);
    crate::Norm => 6, |v| v.get().to_bits() as u64, |b| crate::Norm::new(f32::from_bits(b as u32));
    crate::Unorm => 7, |v| v.get().to_bits() as u64, |b| crate::Unorm::new(f32::from_bits(b as u32));
    // The small integers are 32-bit words on the device: signed ones sign-extended.
    i8 => 8, |v| v as i32 as u32 as u64, |b| b as i8;
    u8 => 9, |v| v as u64, |b| b as u8;
    i16 => 10, |v| v as i32 as u32 as u64, |b| b as i16;
    u16 => 11, |v| v as u64, |b| b as u16;
}

/// The constant `value` (from a device function's public copy) as the type `T` the kernel
/// uses it as; a build error where the constant has another type.
pub fn outer_const<T: OuterConstValue, V: OuterConstValue>(value: V) -> T {
    const {
        assert!(
            T::TAG == V::TAG,
            "a constant a device function reads has another type than the kernel uses it as"
        )
    };
    T::from_bits(value.into_bits())
}

/// Lets a `usize` be read as a machine word in a `const fn`.
union Pun<V: Copy> {
    value: V,
    word: usize,
}

/// The value of a `usize` constant from a device function's public copy, in a `const fn`: how
/// a kernel's launcher checks a local array length the function names. A constant of another
/// type is a build error.
pub const fn outer_const_len<V: OuterConstValue>(value: V) -> usize {
    assert!(
        V::TAG == USIZE_TAG,
        "an array length a device function reads is not a `usize`"
    );
    // SAFETY: only `usize` has `USIZE_TAG` (the trait is sealed and the tags are distinct), so
    // `V` is `usize` and the word read is exactly the value's initialized bytes.
    unsafe { Pun { value }.word }
}

/// Whether `value` fits the 32 bits a constant has on the device: always, but for a `usize`
/// above `u32::MAX`. A `const fn`, so kernels check it at build time.
pub const fn fits_u32<V: OuterConstValue>(value: V) -> bool {
    V::TAG != USIZE_TAG || outer_const_len(value) <= u32::MAX as usize
}
