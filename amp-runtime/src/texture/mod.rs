//! C++ AMP's graphics library: [`Texture`] (a Vulkan image of texels, or host memory on the
//! native CPU accelerator), the views kernels take ([`TextureView`] to read and sample,
//! [`WriteonlyTextureView`] to write) and [`Sampler`].
//!
//! Builds on `device` and `memory`; `exec` binds textures and samplers at launch.
//!
//! ```no_run
//! use amp_runtime::{Extent, Texture, Float4};
//! let t = Texture::<Float4, 2>::from_slice(Extent::new([2, 2]), &[Float4::splat(0.5); 4])?;
//! assert_eq!(t.to_vec()?[3], Float4::splat(0.5));
//! # Ok::<(), amp_runtime::Error>(())
//! ```

#[cfg(feature = "image-files")]
mod file;
mod format;
mod host;
mod image;
mod sampler;

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

#[cfg(feature = "image-files")]
pub use file::ImageTexel;
pub(crate) use format::native_kind;
pub use format::{Texel, TexelKind};
pub(crate) use host::HostTexels;
pub(crate) use image::Image;
pub use sampler::{AddressMode, Filter, Sampler};

use crate::device::Accelerator;
use crate::extent::{validate_dims, Extent};
use crate::Error;

/// A texture (C++ AMP's `texture<T, N>`): an `N`-dimensional image of texels `T` on an
/// accelerator (a Vulkan image, or host memory on the native CPU accelerator), `N` from 1 to 3, stored with 8, 16 or 32 bits per scalar (C++ AMP's
/// `bits_per_scalar_element`; [`Texel::DEFAULT_BITS`] unless asked otherwise: 8 for
/// [`Unorm4`](crate::Unorm4) and the other normalized texels, 32 for the others).
///
/// Kernels take its [`view`](Self::view) (texel reads and sampling) or its
/// [`writeonly_view`](Self::writeonly_view) (texel writes). Extent dimension 0 is the
/// slowest: a rank-2 extent `[height, width]`, and texel `[y, x]`.
pub struct Texture<T: Texel, const N: usize> {
    texels: Texels,
    acc: Accelerator,
    extent: Extent<N>,
    bits: u32,
    /// The Vulkan format and texel type, for messages (`R8G8B8A8_UNORM (Unorm4)`).
    format: String,
    _texel: PhantomData<T>,
}

impl<T: Texel, const N: usize> fmt::Debug for Texture<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Texture")
            .field("extent", &self.extent)
            .field("format", &self.format)
            .field("accelerator", &self.acc.name())
            .finish()
    }
}

impl<T: Texel, const N: usize> Texture<T, N> {
    const RANK_OK: () = assert!(N >= 1 && N <= 3, "textures have rank 1, 2 or 3");

    /// A texture of `extent` on the default accelerator, every texel zero.
    pub fn new(extent: impl Into<Extent<N>>) -> Result<Self, Error> {
        Self::new_on(&Accelerator::default()?, extent)
    }

    /// A texture of `extent` on `acc`, every texel zero.
    pub fn new_on(acc: &Accelerator, extent: impl Into<Extent<N>>) -> Result<Self, Error> {
        Self::with_bits_on(acc, extent, T::DEFAULT_BITS)
    }

    /// A texture of `extent` on `acc` with `bits` bits per scalar (8, 16 or 32, as the texel
    /// kind allows), every texel zero.
    pub fn with_bits_on(
        acc: &Accelerator,
        extent: impl Into<Extent<N>>,
        bits: u32,
    ) -> Result<Self, Error> {
        let () = Self::RANK_OK;
        let extent = extent.into();
        validate_dims(extent.as_slice())?;
        if extent.as_slice().contains(&0) {
            // Unlike arrays, Vulkan images have at least one texel in each dimension.
            return Err(Error::ZeroExtent);
        }
        let format = format::format_of(T::KIND, T::COMPONENTS, bits).ok_or_else(|| {
            Error::UnsupportedFormat {
                format: format!("{} texels with {bits} bits per scalar", T::TEXEL),
                device: acc.name().to_owned(),
                reason: format!(
                    "{:?} texels take {:?} bits per scalar",
                    T::KIND,
                    format::allowed_bits(T::KIND)
                ),
            }
        })?;
        let name = format!("{format:?} ({})", T::TEXEL);
        let texel_bytes = T::COMPONENTS * bits / 8;
        let texels = if acc.is_native() {
            let len = extent
                .size()
                .checked_mul(texel_bytes as usize)
                .ok_or(Error::OutOfDeviceMemory)?;
            Texels::Host(Arc::new(HostTexels::zeroed(len)?))
        } else {
            Texels::Vulkan(Image::new(
                acc.vulkan("textures")?,
                format,
                texel_bytes,
                extent.as_slice(),
                &name,
            )?)
        };
        Ok(Texture {
            texels,
            acc: acc.clone(),
            extent,
            bits,
            format: name,
            _texel: PhantomData,
        })
    }

    /// A texture of `extent` on the default accelerator holding `data` (row-major, dimension
    /// 0 slowest).
    pub fn from_slice(extent: impl Into<Extent<N>>, data: &[T]) -> Result<Self, Error> {
        Self::from_slice_on(&Accelerator::default()?, extent, data)
    }

    /// A texture of `extent` on `acc` holding `data`.
    pub fn from_slice_on(
        acc: &Accelerator,
        extent: impl Into<Extent<N>>,
        data: &[T],
    ) -> Result<Self, Error> {
        Self::from_slice_with_bits_on(acc, extent, data, T::DEFAULT_BITS)
    }

    /// A texture of `extent` on `acc` with `bits` bits per scalar holding `data`, each
    /// component converted to the format (integers saturate, normalized values round to the
    /// nearest step, `f32` to 16 bits rounds to nearest even).
    pub fn from_slice_with_bits_on(
        acc: &Accelerator,
        extent: impl Into<Extent<N>>,
        data: &[T],
        bits: u32,
    ) -> Result<Self, Error> {
        let mut t = Self::with_bits_on(acc, extent, bits)?;
        t.copy_from_slice(data)?;
        Ok(t)
    }

    /// The host words of `data`: `COMPONENTS` 4-byte components per texel.
    fn words(data: &[T]) -> &[u32] {
        // SAFETY: a `Texel` is `COMPONENTS` 4-byte components with no padding (the trait's
        // contract), so the slice is that many `u32`s, aligned to 4.
        unsafe {
            std::slice::from_raw_parts(
                data.as_ptr().cast::<u32>(),
                data.len() * T::COMPONENTS as usize,
            )
        }
    }

    /// Replaces every texel with `data` (row-major), converted as in
    /// [`from_slice_with_bits_on`](Self::from_slice_with_bits_on).
    pub fn copy_from_slice(&mut self, data: &[T]) -> Result<(), Error> {
        let len = self.extent.size();
        if data.len() != len {
            return Err(Error::ExtentMismatch {
                extent: len,
                len: data.len(),
            });
        }
        let mut bytes = Vec::new();
        format::encode(T::KIND, self.bits, Self::words(data), &mut bytes);
        self.texels.write(&bytes)
    }

    /// The texels, row-major, after the device work that writes the texture.
    pub fn to_vec(&self) -> Result<Vec<T>, Error> {
        let bytes = self.texels.bytes()?;
        let n = self.extent.size();
        let mut words = vec![0u32; n * T::COMPONENTS as usize];
        format::decode(T::KIND, self.bits, &bytes, &mut words);
        Ok(words
            .chunks_exact(T::COMPONENTS as usize)
            .map(|c| {
                // SAFETY: `T` is `COMPONENTS` 4-byte components, every bit pattern a value.
                unsafe { std::ptr::read_unaligned(c.as_ptr().cast::<T>()) }
            })
            .collect())
    }

    /// Copies every texel into `dst` (C++ AMP's `copy(src, dst)` and `texture::copy_to`): a
    /// texture of the same extent on any accelerator, so texels move between the native CPU
    /// accelerator and a Vulkan device in either direction. With the same bits per scalar the
    /// stored bytes are copied unchanged; otherwise each component is converted as
    /// [`to_vec`](Self::to_vec) and [`copy_from_slice`](Self::copy_from_slice) convert.
    pub fn copy_to(&self, dst: &mut Texture<T, N>) -> Result<(), Error> {
        if dst.extent != self.extent {
            return Err(Error::ExtentMismatch {
                extent: dst.extent.size(),
                len: self.extent.size(),
            });
        }
        if dst.bits != self.bits {
            return dst.copy_from_slice(&self.to_vec()?);
        }
        let bytes = self.texels.bytes()?;
        dst.texels.write(&bytes)
    }

    /// The extent.
    pub fn extent(&self) -> Extent<N> {
        self.extent
    }

    /// Bits per scalar in the texture: 8, 16 or 32.
    pub fn bits_per_scalar_element(&self) -> u32 {
        self.bits
    }

    /// The format and texel type, as in `R8G8B8A8_UNORM (Unorm4)` (Vulkan's name of the
    /// layout, also on the native CPU accelerator).
    pub fn format(&self) -> &str {
        &self.format
    }

    /// The accelerator the texture lives on.
    pub fn accelerator(&self) -> &Accelerator {
        &self.acc
    }

    /// A read-only view for kernels: `tex[idx]` and `tex.sample(&sampler, coord)`.
    pub fn view(&self) -> TextureView<T, N> {
        TextureView {
            target: self.target(),
            _texel: PhantomData,
        }
    }

    /// A write-only view for kernels: `tex.set(idx, value)`.
    pub fn writeonly_view(&self) -> WriteonlyTextureView<T, N> {
        WriteonlyTextureView {
            target: self.target(),
            _texel: PhantomData,
        }
    }

    fn target(&self) -> TextureTarget {
        TextureTarget {
            texels: self.texels.clone(),
            acc: self.acc.clone(),
            dims: self.extent.as_slice().to_vec(),
            format: self.format.clone(),
            kind: T::KIND,
            bits: self.bits,
            components: T::COMPONENTS,
        }
    }
}

/// Where a texture's texels are.
#[derive(Clone)]
pub(crate) enum Texels {
    /// A Vulkan image.
    Vulkan(Arc<Image>),
    /// Host memory on the native CPU accelerator.
    Host(Arc<HostTexels>),
}

impl Texels {
    /// The stored bytes, tightly packed, after the work that writes them.
    fn bytes(&self) -> Result<Vec<u8>, Error> {
        Ok(match self {
            Texels::Vulkan(image) => {
                let mut bytes = vec![0u8; image.byte_len() as usize];
                image.read(&mut bytes)?;
                bytes
            }
            Texels::Host(h) => {
                let mut bytes = vec![0u8; h.len()];
                h.read(&mut bytes);
                bytes
            }
        })
    }

    /// Replaces the stored bytes.
    fn write(&self, bytes: &[u8]) -> Result<(), Error> {
        match self {
            Texels::Vulkan(image) => image.write(bytes),
            Texels::Host(h) => {
                h.write(bytes);
                Ok(())
            }
        }
    }

    /// The Vulkan image, for a launch on `launch` (a texture in host memory is
    /// `Error::AcceleratorMismatch` there).
    pub(crate) fn image(&self, owner: &Accelerator, launch: &str) -> Result<&Arc<Image>, Error> {
        match self {
            Texels::Vulkan(image) => Ok(image),
            Texels::Host(_) => Err(Error::AcceleratorMismatch {
                array: owner.name().to_owned(),
                launch: launch.to_owned(),
            }),
        }
    }
}

/// What a kernel argument needs of a texture view.
#[derive(Clone)]
pub(crate) struct TextureTarget {
    pub(crate) texels: Texels,
    pub(crate) acc: Accelerator,
    pub(crate) dims: Vec<usize>,
    pub(crate) format: String,
    /// How the texture stores its components, and in how many bits.
    pub(crate) kind: TexelKind,
    pub(crate) bits: u32,
    /// Components per texel: 1, 2 or 4.
    pub(crate) components: u32,
}

/// A read-only view of a [`Texture`] (C++ AMP's `texture_view<const T, N>`): kernels read
/// texels (`tex[idx]`) and sample it (`tex.sample(&sampler, coord)`). Pass it to a kernel as
/// `&texture.view()`. It shares the texture's image (the texture may be dropped first).
pub struct TextureView<T: Texel, const N: usize> {
    pub(crate) target: TextureTarget,
    _texel: PhantomData<T>,
}

/// A write-only view of a [`Texture`] (C++ AMP's `writeonly_texture_view<T, N>`): kernels
/// write texels with `tex.set(idx, value)`. Pass it to a kernel as
/// `&texture.writeonly_view()`.
pub struct WriteonlyTextureView<T: Texel, const N: usize> {
    pub(crate) target: TextureTarget,
    _texel: PhantomData<T>,
}

macro_rules! view_common {
    ($name:ident) => {
        impl<T: Texel, const N: usize> $name<T, N> {
            /// The texture's extent.
            pub fn extent(&self) -> Extent<N> {
                let mut dims = [0; N];
                dims.copy_from_slice(&self.target.dims);
                Extent::new(dims)
            }

            /// The accelerator the texture lives on.
            pub fn accelerator(&self) -> &Accelerator {
                &self.target.acc
            }
        }

        impl<T: Texel, const N: usize> Clone for $name<T, N> {
            fn clone(&self) -> Self {
                $name {
                    target: self.target.clone(),
                    _texel: PhantomData,
                }
            }
        }

        impl<T: Texel, const N: usize> fmt::Debug for $name<T, N> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("extent", &self.target.dims)
                    .field("format", &self.target.format)
                    .finish()
            }
        }
    };
}

view_common!(TextureView);
view_common!(WriteonlyTextureView);
