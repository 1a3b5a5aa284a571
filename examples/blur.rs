//! A separable Gaussian blur through sampled textures (C++ AMP's graphics library): the image
//! is a `Texture<Unorm4, 2>` of 8-bit RGBA texels; one pass samples it along x into a second
//! texture, a second pass samples that along y, with a linear, clamping `Sampler`.
//!
//! ```text
//! cargo run --release --example blur [in.png] [out.png] [sigma]
//! ```
//! Without an input it blurs a generated 512 x 512 test card; the output defaults to
//! `target/blur.png`.
use amp::prelude::*;

/// Taps on each side of the centre.
pub const RADIUS: usize = 4;
/// Taps per pass.
pub const TAPS: usize = 2 * RADIUS + 1;

/// The normalized Gaussian weights of the taps `-RADIUS..=RADIUS`.
pub fn gaussian_weights(sigma: f32) -> [f32; TAPS] {
    let mut w = [0.0f32; TAPS];
    for (k, x) in w.iter_mut().enumerate() {
        let d = k as f32 - RADIUS as f32;
        *x = (-d * d / (2.0 * sigma * sigma)).exp();
    }
    let total: f32 = w.iter().sum();
    w.map(|x| x / total)
}

/// One pass: each texel is the weighted sum of `TAPS` samples `step` apart (in normalized
/// coordinates: one texel along x is `1 / width`), accumulated in `f32`.
#[kernel(amp)]
fn blur_pass(
    idx: Index<2>,
    src: TextureView<Unorm4, 2>,
    s: Sampler,
    weights: &Array<f32, 1>,
    dst: WriteonlyTextureView<Unorm4, 2>,
    step_x: f32,
    step_y: f32,
) {
    let e = src.extent();
    let u = (idx[1] as f32 + 0.5) / e[1] as f32;
    let v = (idx[0] as f32 + 0.5) / e[0] as f32;
    let mut sum = Float4::new(0.0, 0.0, 0.0, 0.0);
    for k in 0..TAPS {
        let o = k as f32 - RADIUS as f32;
        let c = src
            .sample(&s, Float2::new(u + o * step_x, v + o * step_y))
            .to_f32_array();
        sum += Float4::new(c[0], c[1], c[2], c[3]) * weights[k];
    }
    dst.set(idx, Unorm4::from_f32_array([sum.x, sum.y, sum.z, sum.w]));
}

/// `image` blurred with a Gaussian of `sigma` texels (radius [`RADIUS`]): edges clamp.
pub fn blur(image: &Texture<Unorm4, 2>, sigma: f32) -> Result<Texture<Unorm4, 2>, amp::Error> {
    let acc = image.accelerator();
    let extent = image.extent();
    let [h, w] = *extent.as_slice() else {
        unreachable!("rank 2")
    };
    let weights = Array::from_slice_on(acc, [TAPS], &gaussian_weights(sigma))?;
    let across = Texture::<Unorm4, 2>::new_on(acc, extent)?;
    let out = Texture::<Unorm4, 2>::new_on(acc, extent)?;
    let s = Sampler::new(Filter::Linear, AddressMode::Clamp);
    let pass = |src: &Texture<Unorm4, 2>, dst: &Texture<Unorm4, 2>, sx: f32, sy: f32| {
        let call = blur_pass(&src.view(), s, &weights, &dst.writeonly_view(), sx, sy);
        parallel_for_each_on(acc, extent, call)
    };
    pass(image, &across, 1.0 / w as f32, 0.0)?;
    pass(&across, &out, 0.0, 1.0 / h as f32)?;
    Ok(out)
}

/// The same blur on the CPU over `f32` RGBA pixels (row-major `h x w`), each pass's result
/// rounded to 8 bits as the textures store it.
pub fn blur_cpu(pixels: &[[f32; 4]], h: usize, w: usize, sigma: f32) -> Vec<[f32; 4]> {
    let weights = gaussian_weights(sigma);
    let quantize = |x: f32| (x.clamp(0.0, 1.0) * 255.0).round() / 255.0;
    let pass = |src: &[[f32; 4]], dx: isize, dy: isize| -> Vec<[f32; 4]> {
        let mut out = vec![[0.0f32; 4]; h * w];
        for y in 0..h {
            for x in 0..w {
                let mut sum = [0.0f32; 4];
                for (k, wk) in weights.iter().enumerate() {
                    let o = k as isize - RADIUS as isize;
                    let sx = (x as isize + o * dx).clamp(0, w as isize - 1) as usize;
                    let sy = (y as isize + o * dy).clamp(0, h as isize - 1) as usize;
                    for c in 0..4 {
                        sum[c] += src[sy * w + sx][c] * wk;
                    }
                }
                out[y * w + x] = sum.map(quantize);
            }
        }
        out
    };
    let across = pass(pixels, 1, 0);
    pass(&across, 0, 1)
}

/// A test card: colour gradients, a checkerboard and a bright disc.
pub fn test_card(h: usize, w: usize) -> Vec<Unorm4> {
    let mut px = Vec::with_capacity(h * w);
    for y in 0..h {
        for x in 0..w {
            let (fx, fy) = (x as f32 / w as f32, y as f32 / h as f32);
            let check = if (x / 16 + y / 16) % 2 == 0 { 0.2 } else { 0.8 };
            let (dx, dy) = (fx - 0.5, fy - 0.5);
            let disc = if dx * dx + dy * dy < 0.04 { 1.0 } else { check };
            px.push(Unorm4::from_f32_array([fx, fy, disc, 1.0]));
        }
    }
    px
}

#[allow(dead_code)]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let image = match args.first() {
        Some(path) => Texture::<Unorm4, 2>::from_image_file(path)?,
        None => Texture::from_slice(Extent::new([512, 512]), &test_card(512, 512))?,
    };
    let out_path = args.get(1).map_or("target/blur.png", String::as_str);
    let sigma: f32 = args.get(2).map_or(Ok(2.0), |s| s.parse())?;
    let t = std::time::Instant::now();
    let out = blur(&image, sigma)?;
    let pixels = out.to_vec()?;
    let elapsed = t.elapsed();
    out.write_image_file(out_path)?;
    let [h, w] = *out.extent().as_slice() else {
        unreachable!("rank 2")
    };
    println!(
        "blurred {w} x {h} (sigma {sigma}, {TAPS} taps per pass) on {} in {:.1} ms; wrote {out_path}",
        image.accelerator().name(),
        elapsed.as_secs_f64() * 1e3
    );
    let mean: f32 = pixels.iter().map(|p| p.x.get()).sum::<f32>() / pixels.len() as f32;
    println!("mean red {mean:.4}");
    Ok(())
}
