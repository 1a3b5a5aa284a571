//! srad: speckle-reducing anisotropic diffusion of an ultrasound-like image. Each iteration
//! takes the mean and variance of a region of interest on the host (read back through a
//! section of the image), then runs two simple launches: the first computes each pixel's four
//! differences to its neighbours (clamped at the borders) and its diffusion coefficient, the
//! second updates the image from the coefficients of the pixel and of its south and east
//! neighbours.

use amp::prelude::*;
use rayon::prelude::*;

use super::{device_and_native, record, time_cpu, Lcg, Outcome, Port};
use crate::context::Ctx;
use crate::report::Work;
use crate::BoxError;

/// The update's step (the original's default).
const LAMBDA: f32 = 0.5;

#[allow(clippy::too_many_arguments)]
#[kernel(amp)]
fn srad_1(
    idx: Index<2>,
    img: &Array<f32, 2>,
    dn: &mut Array<f32, 2>,
    ds: &mut Array<f32, 2>,
    dw: &mut Array<f32, 2>,
    de: &mut Array<f32, 2>,
    c: &mut Array<f32, 2>,
    q0sqr: f32,
) {
    let (r, col) = (idx[0], idx[1]);
    let (rows, cols) = (img.extent()[0], img.extent()[1]);
    let jc = img[idx];
    let n = img[[r.saturating_sub(1), col]] - jc;
    let s = img[[(r + 1).min(rows - 1), col]] - jc;
    let w = img[[r, col.saturating_sub(1)]] - jc;
    let e = img[[r, (col + 1).min(cols - 1)]] - jc;
    let g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
    let l = (n + s + w + e) / jc;
    let num = 0.5 * g2 - (1.0 / 16.0) * (l * l);
    let den = 1.0 + 0.25 * l;
    let qsqr = num / (den * den);
    let den = (qsqr - q0sqr) / (q0sqr * (1.0 + q0sqr));
    let coeff = (1.0 / (1.0 + den)).clamp(0.0, 1.0);
    dn[idx] = n;
    ds[idx] = s;
    dw[idx] = w;
    de[idx] = e;
    c[idx] = coeff;
}

#[allow(clippy::too_many_arguments)]
#[kernel(amp)]
fn srad_2(
    idx: Index<2>,
    img: &mut Array<f32, 2>,
    dn: &Array<f32, 2>,
    ds: &Array<f32, 2>,
    dw: &Array<f32, 2>,
    de: &Array<f32, 2>,
    c: &Array<f32, 2>,
    lambda: f32,
) {
    let (r, col) = (idx[0], idx[1]);
    let (rows, cols) = (img.extent()[0], img.extent()[1]);
    let cn = c[idx];
    let cs = c[[(r + 1).min(rows - 1), col]];
    let cw = c[idx];
    let ce = c[[r, (col + 1).min(cols - 1)]];
    let d = cn * dn[idx] + cs * ds[idx] + cw * dw[idx] + ce * de[idx];
    img[idx] = img[idx] + 0.25 * lambda * d;
}

/// A pixel's differences (north, south, west, east) and coefficient, in `srad_1`'s order of
/// operations.
#[inline(always)]
fn coefficients(
    img: &[f32],
    rows: usize,
    cols: usize,
    r: usize,
    col: usize,
    q0sqr: f32,
) -> [f32; 5] {
    let at = |y: usize, x: usize| img[y * cols + x];
    let jc = at(r, col);
    let n = at(r.saturating_sub(1), col) - jc;
    let s = at((r + 1).min(rows - 1), col) - jc;
    let w = at(r, col.saturating_sub(1)) - jc;
    let e = at(r, (col + 1).min(cols - 1)) - jc;
    let g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
    let l = (n + s + w + e) / jc;
    let num = 0.5 * g2 - (1.0 / 16.0) * (l * l);
    let den = 1.0 + 0.25 * l;
    let qsqr = num / (den * den);
    let den = (qsqr - q0sqr) / (q0sqr * (1.0 + q0sqr));
    let coeff = (1.0 / (1.0 + den)).clamp(0.0, 1.0);
    [n, s, w, e, coeff]
}

/// A pixel's update, in `srad_2`'s order of operations (`d` holds `coefficients`' results).
#[inline(always)]
fn update(v: f32, d: &[[f32; 5]], rows: usize, cols: usize, r: usize, col: usize) -> f32 {
    let here = d[r * cols + col];
    let cn = here[4];
    let cs = d[(r + 1).min(rows - 1) * cols + col][4];
    let cw = here[4];
    let ce = d[r * cols + (col + 1).min(cols - 1)][4];
    let dd = cn * here[0] + cs * here[1] + cw * here[2] + ce * here[3];
    v + 0.25 * LAMBDA * dd
}

/// The speckle statistic of the region of interest (its elements row-major): variance over
/// the squared mean, from sums in row-major order.
fn q0sqr(roi: &[f32]) -> f32 {
    let (mut sum, mut sum2) = (0f32, 0f32);
    for &v in roi {
        sum += v;
        sum2 += v * v;
    }
    let size = roi.len() as f32;
    let mean = sum / size;
    let var = sum2 / size - mean * mean;
    var / (mean * mean)
}

/// The region of interest of a host image.
fn roi_of(img: &[f32], cols: usize, roi: usize) -> Vec<f32> {
    (0..roi)
        .flat_map(|r| img[r * cols..r * cols + roi].iter().copied())
        .collect()
}

fn serial(input: &Input) -> Vec<f32> {
    let (rows, cols) = (input.side, input.side);
    let mut img = input.img.clone();
    let mut d = vec![[0f32; 5]; rows * cols];
    for _ in 0..input.iters {
        let q = q0sqr(&roi_of(&img, cols, input.roi));
        for r in 0..rows {
            for col in 0..cols {
                d[r * cols + col] = coefficients(&img, rows, cols, r, col, q);
            }
        }
        for r in 0..rows {
            for col in 0..cols {
                let v = &mut img[r * cols + col];
                *v = update(*v, &d, rows, cols, r, col);
            }
        }
    }
    img
}

fn rayon(input: &Input) -> Vec<f32> {
    let (rows, cols) = (input.side, input.side);
    let mut img = input.img.clone();
    let mut d = vec![[0f32; 5]; rows * cols];
    for _ in 0..input.iters {
        let q = q0sqr(&roi_of(&img, cols, input.roi));
        d.par_chunks_mut(cols).enumerate().for_each(|(r, out)| {
            for (col, v) in out.iter_mut().enumerate() {
                *v = coefficients(&img, rows, cols, r, col, q);
            }
        });
        img.par_chunks_mut(cols).enumerate().for_each(|(r, out)| {
            for (col, v) in out.iter_mut().enumerate() {
                *v = update(*v, &d, rows, cols, r, col);
            }
        });
    }
    img
}

struct Input {
    side: usize,
    iters: usize,
    /// The region of interest: the top-left `roi` x `roi` pixels.
    roi: usize,
    img: Vec<f32>,
}

/// The image on one accelerator: the image, the four differences and the coefficients.
struct State<'a> {
    input: &'a Input,
    acc: Accelerator,
    img: Array<f32, 2>,
    d: [Array<f32, 2>; 5],
}

impl Port for State<'_> {
    type Out = u32;

    fn run(&mut self) -> Result<(), BoxError> {
        let roi = self.input.roi;
        self.img.copy_from_slice(&self.input.img)?;
        let e = self.img.extent();
        for _ in 0..self.input.iters {
            let q = q0sqr(&self.img.section([0, 0], [roi, roi])?.to_vec()?);
            let [dn, ds, dw, de, c] = &mut self.d;
            parallel_for_each_on(&self.acc, e, srad_1(&self.img, dn, ds, dw, de, c, q))?;
            let call = srad_2(&mut self.img, dn, ds, dw, de, c, LAMBDA);
            parallel_for_each_on(&self.acc, e, call)?;
        }
        Ok(())
    }

    fn result(&self) -> Result<Vec<u32>, BoxError> {
        Ok(bits(self.img.to_vec()?))
    }
}

fn bits(v: Vec<f32>) -> Vec<u32> {
    v.into_iter().map(f32::to_bits).collect()
}

pub(super) fn row(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let (side, iters, roi) = if ctx.cfg.tiny {
        (64, 2, 32)
    } else if ctx.cfg.gpu {
        (ctx.cfg.fit_side(4096), 10, 128)
    } else {
        (1024, 4, 128)
    };
    let mut rng = Lcg(0x5ad);
    // Positive intensities with multiplicative speckle.
    let img = (0..side * side)
        .map(|i| {
            let base = 1.0 + 0.5 * (((i / side) / 64 + (i % side) / 64) % 2) as f32;
            base * (0.5 + rng.unit())
        })
        .collect();
    let input = Input {
        side,
        iters,
        roi,
        img,
    };
    let (amp, native) = device_and_native(ctx, |acc| {
        let shape = [side, side];
        let zeros = || Array::new_on(acc, shape);
        Ok(State {
            input: &input,
            acc: acc.clone(),
            img: Array::from_slice_on(acc, shape, &input.img)?,
            d: [zeros()?, zeros()?, zeros()?, zeros()?, zeros()?],
        })
    })?;
    let serial = time_cpu(ctx, || bits(serial(&input)))?;
    let rayon = time_cpu(ctx, || bits(rayon(&input)))?;
    // About 35 floating-point operations per pixel and iteration (3 of them divisions).
    let work = Work::Flops(35.0 * (side * side * iters) as f64);
    record(
        ctx,
        Outcome {
            name: "srad",
            what: format!(
                "anisotropic diffusion, {iters} iterations of 2 launches (simple, checked; \
                 CPU: serial)"
            ),
            size: format!("{side} x {side} f32"),
            work,
            amp,
            native,
            serial,
            rayon,
        },
    );
    Ok(())
}
