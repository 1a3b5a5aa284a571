//! Image files (PNG, JPEG) in and out of rank-2 textures, through the `image` crate: a file
//! is read as 8-bit RGBA and each pixel converted to the texel type.

use std::path::Path;

use super::{Texel, Texture};
use crate::device::Accelerator;
use crate::extent::Extent;
use crate::normalized::{Unorm, Unorm4};
use crate::short_vector::Float4;
use crate::Error;

/// A texel type that image files convert to and from ([`Texture::from_image_file`],
/// [`Texture::write_image_file`]): its value for an 8-bit RGBA pixel, and the pixel for it.
pub trait ImageTexel: Texel {
    /// The texel for an 8-bit RGBA pixel.
    fn from_rgba8(pixel: [u8; 4]) -> Self;
    /// The 8-bit RGBA pixel for the texel (single-component texels are grey and opaque).
    fn to_rgba8(self) -> [u8; 4];
}

/// `x` in `[0, 1]` to 8 bits, rounded to the nearest step (NaN gives 0).
pub(crate) fn to_u8(x: f32) -> u8 {
    if x.is_nan() {
        0
    } else {
        (x.clamp(0.0, 1.0) * 255.0).round() as u8
    }
}

impl ImageTexel for Float4 {
    fn from_rgba8(p: [u8; 4]) -> Self {
        Float4::new(
            f32::from(p[0]) / 255.0,
            f32::from(p[1]) / 255.0,
            f32::from(p[2]) / 255.0,
            f32::from(p[3]) / 255.0,
        )
    }

    fn to_rgba8(self) -> [u8; 4] {
        [to_u8(self.x), to_u8(self.y), to_u8(self.z), to_u8(self.w)]
    }
}

impl ImageTexel for Unorm4 {
    fn from_rgba8(p: [u8; 4]) -> Self {
        Unorm4::from_f32_array(p.map(|c| f32::from(c) / 255.0))
    }

    fn to_rgba8(self) -> [u8; 4] {
        self.to_f32_array().map(to_u8)
    }
}

impl ImageTexel for Unorm {
    fn from_rgba8(p: [u8; 4]) -> Self {
        Unorm::new(luma(p))
    }

    fn to_rgba8(self) -> [u8; 4] {
        let l = to_u8(self.get());
        [l, l, l, 255]
    }
}

impl ImageTexel for f32 {
    fn from_rgba8(p: [u8; 4]) -> Self {
        luma(p)
    }

    fn to_rgba8(self) -> [u8; 4] {
        let l = to_u8(self);
        [l, l, l, 255]
    }
}

/// Rec. 709 luma of an 8-bit RGB pixel, in `[0, 1]`.
pub(crate) fn luma(p: [u8; 4]) -> f32 {
    (0.2126 * f32::from(p[0]) + 0.7152 * f32::from(p[1]) + 0.0722 * f32::from(p[2])) / 255.0
}

fn file_error(path: &Path, reason: impl ToString) -> Error {
    Error::ImageFile {
        path: path.display().to_string(),
        reason: reason.to_string(),
    }
}

impl<T: ImageTexel> Texture<T, 2> {
    /// A texture on the default accelerator holding the image file at `path` (PNG or JPEG),
    /// extent `[height, width]`.
    ///
    /// ```no_run
    /// use amp_runtime::{Texture, Unorm4};
    /// let photo = Texture::<Unorm4, 2>::from_image_file("photo.png")?;
    /// # Ok::<(), amp_runtime::Error>(())
    /// ```
    pub fn from_image_file(path: impl AsRef<Path>) -> Result<Self, Error> {
        Self::from_image_file_on(&Accelerator::default()?, path)
    }

    /// A texture on `acc` holding the image file at `path`.
    pub fn from_image_file_on(acc: &Accelerator, path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let img = image::open(path)
            .map_err(|e| file_error(path, e))?
            .to_rgba8();
        let (w, h) = (img.width() as usize, img.height() as usize);
        if w == 0 || h == 0 {
            return Err(file_error(path, "the image is empty"));
        }
        let texels: Vec<T> = img.pixels().map(|p| T::from_rgba8(p.0)).collect();
        Texture::from_slice_on(acc, Extent::new([h, w]), &texels)
    }

    /// Writes the texture to the image file `path` as 8-bit RGBA, in the format its extension
    /// names (`.png`, `.jpg`).
    pub fn write_image_file(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        // Checked before anything is created: an unknown or unwritable format leaves no file.
        let format = image::ImageFormat::from_path(path).map_err(|e| file_error(path, e))?;
        if !format.writing_enabled() {
            return Err(file_error(
                path,
                format!("{format:?} files cannot be written (use .png or .jpg)"),
            ));
        }
        let [h, w] = *self.extent().as_slice() else {
            unreachable!("rank 2")
        };
        let texels = self.to_vec()?;
        let bytes: Vec<u8> = texels.into_iter().flat_map(T::to_rgba8).collect();
        let img = image::RgbaImage::from_raw(w as u32, h as u32, bytes)
            .ok_or_else(|| file_error(path, "the texture is too large for an image file"))?;
        let jpeg = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("jpg") || e.eq_ignore_ascii_case("jpeg"));
        // JPEG has no alpha channel.
        let result = if jpeg {
            image::DynamicImage::ImageRgba8(img).to_rgb8().save(path)
        } else {
            img.save(path)
        };
        result.map_err(|e| file_error(path, e))
    }
}
