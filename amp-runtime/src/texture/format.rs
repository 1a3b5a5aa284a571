//! Texel types and their Vulkan formats: C++ AMP's `bits_per_scalar_element` (8, 16 or 32)
//! picks the format's width, and the host's 4-byte components are converted to and from it.

use ash::vk;

use crate::kernel::{ElemType, ScalarType};
use crate::normalized::{Norm, Norm2, Norm4, Unorm, Unorm2, Unorm4};
use crate::short_vector::{Float2, Float4, Int2, Int4, UInt2, UInt4};

/// How a texel's components are stored and read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexelKind {
    /// `f32` components (16- or 32-bit floats in the texture).
    Float,
    /// `i32` components (8-, 16- or 32-bit signed integers).
    Sint,
    /// `u32` components (8-, 16- or 32-bit unsigned integers).
    Uint,
    /// [`Unorm`](crate::Unorm) components: `[0, 1]` in 8 or 16 bits.
    Unorm,
    /// [`Norm`](crate::Norm) components: `[-1, 1]` in 8 or 16 bits.
    Norm,
}

mod sealed {
    pub trait Sealed {}
}

/// A texel type of [`Texture`](crate::Texture): `i32`, `u32`, `f32`, [`Norm`](crate::Norm),
/// [`Unorm`](crate::Unorm), or a 2- or 4-component vector of one (`Float4`, `Unorm4`, ...).
///
/// Sealed. On the host a texel is its components as 4-byte values; in the texture each takes
/// [`Texture::bits_per_scalar_element`](crate::Texture::bits_per_scalar_element) bits.
///
/// # Safety
/// Implemented by the crate only: the type is `COMPONENTS` 4-byte components in a
/// `#[repr(C)]` or `#[repr(transparent)]` layout, every bit pattern a value.
pub unsafe trait Texel: sealed::Sealed + Copy + Send + Sync + 'static {
    /// The element type a kernel's `TextureView<T, N>` declares.
    const TEXEL: ElemType;
    /// Components: 1, 2 or 4.
    const COMPONENTS: u32;
    /// How the components are stored.
    const KIND: TexelKind;
    /// Bits per component when none are asked for: 8 for `Norm` and `Unorm` texels, else 32.
    const DEFAULT_BITS: u32 = match Self::KIND {
        TexelKind::Unorm | TexelKind::Norm => 8,
        _ => 32,
    };
}

macro_rules! texels {
    ($($t:ty => $elem:expr, $n:literal, $kind:ident;)*) => {$(
        impl sealed::Sealed for $t {}
        // SAFETY: `$n` 4-byte components, no padding, every bit pattern a value.
        unsafe impl Texel for $t {
            const TEXEL: ElemType = $elem;
            const COMPONENTS: u32 = $n;
            const KIND: TexelKind = TexelKind::$kind;
        }
    )*};
}

texels! {
    f32 => ElemType::Scalar(ScalarType::F32), 1, Float;
    Float2 => ElemType::Vector(ScalarType::F32, 2), 2, Float;
    Float4 => ElemType::Vector(ScalarType::F32, 4), 4, Float;
    i32 => ElemType::Scalar(ScalarType::I32), 1, Sint;
    Int2 => ElemType::Vector(ScalarType::I32, 2), 2, Sint;
    Int4 => ElemType::Vector(ScalarType::I32, 4), 4, Sint;
    u32 => ElemType::Scalar(ScalarType::U32), 1, Uint;
    UInt2 => ElemType::Vector(ScalarType::U32, 2), 2, Uint;
    UInt4 => ElemType::Vector(ScalarType::U32, 4), 4, Uint;
    Unorm => ElemType::Scalar(ScalarType::Unorm), 1, Unorm;
    Unorm2 => ElemType::Vector(ScalarType::Unorm, 2), 2, Unorm;
    Unorm4 => ElemType::Vector(ScalarType::Unorm, 4), 4, Unorm;
    Norm => ElemType::Scalar(ScalarType::Norm), 1, Norm;
    Norm2 => ElemType::Vector(ScalarType::Norm, 2), 2, Norm;
    Norm4 => ElemType::Vector(ScalarType::Norm, 4), 4, Norm;
}

/// The format of texels of `kind` with `components` components of `bits` bits, if amp-rs
/// knows one.
pub(crate) fn format_of(kind: TexelKind, components: u32, bits: u32) -> Option<vk::Format> {
    use vk::Format as F;
    let table: [F; 3] = match (kind, bits) {
        (TexelKind::Float, 32) => [F::R32_SFLOAT, F::R32G32_SFLOAT, F::R32G32B32A32_SFLOAT],
        (TexelKind::Float, 16) => [F::R16_SFLOAT, F::R16G16_SFLOAT, F::R16G16B16A16_SFLOAT],
        (TexelKind::Sint, 32) => [F::R32_SINT, F::R32G32_SINT, F::R32G32B32A32_SINT],
        (TexelKind::Sint, 16) => [F::R16_SINT, F::R16G16_SINT, F::R16G16B16A16_SINT],
        (TexelKind::Sint, 8) => [F::R8_SINT, F::R8G8_SINT, F::R8G8B8A8_SINT],
        (TexelKind::Uint, 32) => [F::R32_UINT, F::R32G32_UINT, F::R32G32B32A32_UINT],
        (TexelKind::Uint, 16) => [F::R16_UINT, F::R16G16_UINT, F::R16G16B16A16_UINT],
        (TexelKind::Uint, 8) => [F::R8_UINT, F::R8G8_UINT, F::R8G8B8A8_UINT],
        (TexelKind::Unorm, 16) => [F::R16_UNORM, F::R16G16_UNORM, F::R16G16B16A16_UNORM],
        (TexelKind::Unorm, 8) => [F::R8_UNORM, F::R8G8_UNORM, F::R8G8B8A8_UNORM],
        (TexelKind::Norm, 16) => [F::R16_SNORM, F::R16G16_SNORM, F::R16G16B16A16_SNORM],
        (TexelKind::Norm, 8) => [F::R8_SNORM, F::R8G8_SNORM, F::R8G8B8A8_SNORM],
        _ => return None,
    };
    match components {
        1 => Some(table[0]),
        2 => Some(table[1]),
        4 => Some(table[2]),
        _ => None,
    }
}

/// The bits per component the kind allows.
pub(crate) fn allowed_bits(kind: TexelKind) -> &'static [u32] {
    match kind {
        TexelKind::Float => &[16, 32],
        TexelKind::Sint | TexelKind::Uint => &[8, 16, 32],
        TexelKind::Unorm | TexelKind::Norm => &[8, 16],
    }
}

/// The native run-time's name of a kind.
pub(crate) fn native_kind(kind: TexelKind) -> amp_native_rt::TexKind {
    match kind {
        TexelKind::Float => amp_native_rt::TexKind::Float,
        TexelKind::Sint => amp_native_rt::TexKind::Sint,
        TexelKind::Uint => amp_native_rt::TexKind::Uint,
        TexelKind::Unorm => amp_native_rt::TexKind::Unorm,
        TexelKind::Norm => amp_native_rt::TexKind::Norm,
    }
}

/// Encodes host components (4-byte words of `kind`) into the texture's `bits`-wide ones:
/// integers saturate, normalized values round to the nearest step, floats round to nearest
/// even. The conversion of native kernels' texel writes (`amp_native_rt::encode`), so the host
/// and native kernels store the same bytes.
pub(crate) fn encode(kind: TexelKind, bits: u32, words: &[u32], out: &mut Vec<u8>) {
    let step = bits as usize / 8;
    let at = out.len();
    out.resize(at + words.len() * step, 0);
    for (&w, c) in words.iter().zip(out[at..].chunks_exact_mut(step)) {
        amp_native_rt::encode(native_kind(kind), bits, w, c);
    }
}

/// Decodes `bits`-wide components of `kind` into host words (`amp_native_rt::decode`, as
/// native kernels read them).
pub(crate) fn decode(kind: TexelKind, bits: u32, bytes: &[u8], out: &mut [u32]) {
    let step = bits as usize / 8;
    for (w, c) in out.iter_mut().zip(bytes.chunks_exact(step)) {
        *w = amp_native_rt::decode(native_kind(kind), bits, c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(kind: TexelKind, bits: u32, words: &[u32]) -> Vec<u32> {
        let mut bytes = Vec::new();
        encode(kind, bits, words, &mut bytes);
        assert_eq!(bytes.len(), words.len() * bits as usize / 8);
        let mut out = vec![0; words.len()];
        decode(kind, bits, &bytes, &mut out);
        out
    }

    #[test]
    fn unorm_8_rounds_to_the_nearest_step_and_clamps() {
        let w = [0.0f32, 1.0, 0.5, 2.0, -1.0, f32::NAN].map(f32::to_bits);
        let back: Vec<f32> = round_trip(TexelKind::Unorm, 8, &w)
            .into_iter()
            .map(f32::from_bits)
            .collect();
        assert_eq!(back, [0.0, 1.0, 128.0 * (1.0 / 255.0), 1.0, 0.0, 0.0]);
    }

    #[test]
    fn norm_8_is_symmetric_and_minus_128_reads_as_minus_one() {
        let w = [-1.0f32, 1.0, 0.0, -0.5].map(f32::to_bits);
        let back: Vec<f32> = round_trip(TexelKind::Norm, 8, &w)
            .into_iter()
            .map(f32::from_bits)
            .collect();
        assert_eq!(back, [-1.0, 1.0, 0.0, -64.0 * (1.0 / 127.0)]);
        let mut out = [0u32];
        decode(TexelKind::Norm, 8, &[0x80], &mut out);
        assert_eq!(f32::from_bits(out[0]), -1.0);
    }

    #[test]
    fn integers_saturate_and_halves_round() {
        let back = round_trip(TexelKind::Sint, 8, &[300i32 as u32, (-300i32) as u32, 5]);
        assert_eq!(back, [127, (-128i32) as u32, 5]);
        let back = round_trip(TexelKind::Uint, 16, &[70000, 7]);
        assert_eq!(back, [65535, 7]);
        let back = round_trip(
            TexelKind::Float,
            16,
            &[1.5f32.to_bits(), 65520f32.to_bits()],
        );
        assert_eq!(back, [1.5f32.to_bits(), f32::INFINITY.to_bits()]);
    }
}
