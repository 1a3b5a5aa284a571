//! The Mandelbrot set: the iteration count of every pixel on the device, checked against the
//! CPU pixel for pixel, written as a PNG.
//!
//! ```text
//! cargo run --release --example mandelbrot --features png [out.png] [width] [height]
//! ```
//! (default `target/mandelbrot.png`, 1024 x 768).
use amp::prelude::*;

/// Iterations before a pixel counts as inside the set.
pub const MAX_ITERATIONS: u32 = 256;

/// The part of the complex plane drawn: the left edge, the top edge, and the size of a pixel.
#[derive(Clone, Copy, Debug)]
pub struct View {
    /// Real part at the left edge.
    pub left: f32,
    /// Imaginary part at the top edge.
    pub top: f32,
    /// Width (and height) of one pixel in the plane.
    pub step: f32,
}

impl View {
    /// The whole set (`[-2.5, 1] x [-1.25, 1.25]` or wider) in `width x height` pixels.
    pub fn whole(width: usize, height: usize) -> View {
        let step = (3.5 / width as f32).max(2.5 / height as f32);
        View {
            left: -0.75 - step * width as f32 / 2.0,
            top: step * height as f32 / 2.0,
            step,
        }
    }
}

#[kernel(amp)]
fn escape_time(
    idx: Index<2>,
    counts: ArrayViewMut<u32, 2>,
    left: f32,
    top: f32,
    step: f32,
    max_iterations: u32,
) {
    let cr = left + idx[1] as f32 * step;
    let ci = top - idx[0] as f32 * step;
    let (mut zr, mut zi) = (0.0f32, 0.0f32);
    let mut n = 0u32;
    while n < max_iterations && zr * zr + zi * zi <= 4.0 {
        let t = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        n += 1;
    }
    counts[idx] = n;
}

/// The iteration count of each pixel, row by row, computed on the device.
pub fn iterations(width: usize, height: usize, view: View) -> Result<Vec<u32>, amp::Error> {
    let mut counts = vec![0u32; width * height];
    {
        let mut out = ArrayViewMut::new([height, width], &mut counts)?;
        out.discard_data();
        let call = escape_time(&mut out, view.left, view.top, view.step, MAX_ITERATIONS);
        parallel_for_each(Extent::new([height, width]), call)?;
        out.synchronize()?;
    }
    Ok(counts)
}

/// The same computation on the CPU, operation for operation (each rounded on its own, as the
/// device does), so the counts match exactly.
pub fn iterations_cpu(width: usize, height: usize, view: View) -> Vec<u32> {
    let mut counts = Vec::with_capacity(width * height);
    for y in 0..height {
        for x in 0..width {
            let cr = view.left + x as f32 * view.step;
            let ci = view.top - y as f32 * view.step;
            let (mut zr, mut zi) = (0.0f32, 0.0f32);
            let mut n = 0;
            while n < MAX_ITERATIONS && zr * zr + zi * zi <= 4.0 {
                let t = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = t;
                n += 1;
            }
            counts.push(n);
        }
    }
    counts
}

/// A colour per count: black inside the set, a blue-to-yellow ramp outside.
pub fn to_image(counts: &[u32], width: usize, height: usize) -> image::RgbImage {
    image::RgbImage::from_fn(width as u32, height as u32, |x, y| {
        let n = counts[y as usize * width + x as usize];
        if n >= MAX_ITERATIONS {
            return image::Rgb([0, 0, 0]);
        }
        let t = (n as f32 / MAX_ITERATIONS as f32).sqrt();
        let channel = |v: f32| (v.clamp(0.0, 1.0) * 255.0) as u8;
        image::Rgb([
            channel(3.0 * t - 1.0),
            channel(2.0 * t),
            channel(1.5 - 2.0 * t),
        ])
    })
}

#[allow(dead_code)]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "target/mandelbrot.png".to_owned());
    let width: usize = args.next().map_or(Ok(1024), |a| a.parse())?;
    let height: usize = args.next().map_or(Ok(768), |a| a.parse())?;
    let acc = Accelerator::default()?;
    println!("device: {} ({:?})", acc.name(), acc.device_type());
    let view = View::whole(width, height);
    let start = std::time::Instant::now();
    let counts = iterations(width, height, view)?;
    println!("{width} x {height} on the device in {:?}", start.elapsed());
    let expected = iterations_cpu(width, height, view);
    let wrong = counts.iter().zip(&expected).filter(|(a, b)| a != b).count();
    if wrong > 0 {
        return Err(format!("{wrong} pixels differ from the CPU").into());
    }
    println!("all {} pixels match the CPU", counts.len());
    to_image(&counts, width, height).save(&path)?;
    println!("wrote {path}");
    Ok(())
}
