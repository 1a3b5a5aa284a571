//! Colour conversion on `Unorm4` texels (C++ AMP's `unorm_4`): a sepia tone and a greyscale
//! version of an image, computed with normalized arithmetic, which clamps every result into
//! `[0, 1]` exactly as the host's `Unorm` does, so the CPU gives the same texels.
//!
//! ```text
//! cargo run --release --example colour [in.png] [sepia.png] [grey.png]
//! ```
use amp::prelude::*;

/// Sepia: each output channel a clamped weighted sum of the input's (weights above 1 in all
/// overflow, and `Unorm` arithmetic saturates them); alpha kept.
#[amp::device]
pub fn sepia(c: Unorm4) -> Unorm4 {
    let (r, g, b) = (c.x, c.y, c.z);
    let red = r * Unorm::new(0.393) + g * Unorm::new(0.769) + b * Unorm::new(0.189);
    let green = r * Unorm::new(0.349) + g * Unorm::new(0.686) + b * Unorm::new(0.168);
    let blue = r * Unorm::new(0.272) + g * Unorm::new(0.534) + b * Unorm::new(0.131);
    Unorm4::new(red, green, blue, c.w)
}

/// Rec. 709 luma.
#[amp::device]
pub fn luma(c: Unorm4) -> Unorm {
    c.x * Unorm::new(0.2126) + c.y * Unorm::new(0.7152) + c.z * Unorm::new(0.0722)
}

#[kernel(amp)]
fn convert(
    idx: Index<2>,
    src: TextureView<Unorm4, 2>,
    toned: WriteonlyTextureView<Unorm4, 2>,
    grey: WriteonlyTextureView<Unorm, 2>,
) {
    let c = src[idx];
    toned.set(idx, sepia(c));
    grey.set(idx, luma(c));
}

/// The sepia and the greyscale versions of `image`, computed on its accelerator.
pub fn convert_image(
    image: &Texture<Unorm4, 2>,
) -> Result<(Texture<Unorm4, 2>, Texture<Unorm, 2>), amp::Error> {
    let acc = image.accelerator();
    let toned = Texture::<Unorm4, 2>::new_on(acc, image.extent())?;
    let grey = Texture::<Unorm, 2>::new_on(acc, image.extent())?;
    let call = convert(
        &image.view(),
        &toned.writeonly_view(),
        &grey.writeonly_view(),
    );
    parallel_for_each_on(acc, image.extent(), call)?;
    Ok((toned, grey))
}

#[allow(dead_code)]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let image = match args.first() {
        Some(path) => Texture::<Unorm4, 2>::from_image_file(path)?,
        None => {
            let (h, w) = (256, 256);
            let px: Vec<Unorm4> = (0..h * w)
                .map(|i| {
                    let (y, x) = (i / w, i % w);
                    Unorm4::from_f32_array([x as f32 / w as f32, y as f32 / h as f32, 0.5, 1.0])
                })
                .collect();
            Texture::from_slice(Extent::new([h, w]), &px)?
        }
    };
    let (toned, grey) = convert_image(&image)?;
    let sepia_path = args.get(1).map_or("target/sepia.png", String::as_str);
    let grey_path = args.get(2).map_or("target/grey.png", String::as_str);
    toned.write_image_file(sepia_path)?;
    grey.write_image_file(grey_path)?;
    println!("wrote {sepia_path} and {grey_path}");
    Ok(())
}
