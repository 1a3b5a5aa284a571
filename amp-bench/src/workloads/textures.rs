//! The texture rows: a separable 9-tap Gaussian blur of an RGBA8 image (2048 x 2048 by
//! default), two passes, three ways on the device and once on the CPU:
//! - through a sampled `TextureView<Unorm4, 2>` (8-bit texels, linear sampler, clamped edges)
//!   beside the same shader hand-written in GLSL (`texture2D` + `sampler` + `image2D`);
//! - over `ArrayView<Unorm4, 2>`s (16 bytes per texel, edges clamped by index) beside its
//!   GLSL twin over `vec4` buffers;
//! - plain Rust with rayon over the 8-bit pixels.

use amp::prelude::*;
use amp::{KernelArg, RawBinding, RawKernel};
use rayon::prelude::*;

use super::{Ctx, Workload};
use crate::glsl::{compile_glsl, fold, push, raw, GLSL_1D};
use crate::measure::native_unsupported;
use crate::report::{check, check_native, workload_row, Diagnostic, Native, Work};
use crate::BoxError;

/// The texture rows.
pub struct Textures;

impl Workload for Textures {
    fn section(&self) -> &'static str {
        "textures"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        texture_rows(ctx)
    }
}

const RADIUS: usize = 4;
const TAPS: usize = 2 * RADIUS + 1;

#[kernel(amp, unchecked)]
fn blur_texture(
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

#[kernel(amp, unchecked)]
fn blur_array(
    idx: Index<2>,
    src: &Array<Unorm4, 2>,
    weights: &Array<f32, 1>,
    dst: &mut Array<Unorm4, 2>,
    dx: u32,
    dy: u32,
) {
    let e = src.extent();
    let mut sum = Float4::new(0.0, 0.0, 0.0, 0.0);
    for k in 0..TAPS {
        let o = k as i32 - RADIUS as i32;
        let x = (idx[1] as i32 + o * dx as i32).max(0).min(e[1] as i32 - 1) as usize;
        let y = (idx[0] as i32 + o * dy as i32).max(0).min(e[0] as i32 - 1) as usize;
        let c = src[[y, x]].to_f32_array();
        sum += Float4::new(c[0], c[1], c[2], c[3]) * weights[k];
    }
    dst[idx] = Unorm4::from_f32_array([sum.x, sum.y, sum.z, sum.w]);
}

const G_BLUR_TEXTURE: &str = "
layout(std430, binding = 0) readonly buffer W { float wt[]; };
layout(binding = 1) uniform texture2D src;
layout(binding = 2) uniform sampler smp;
layout(binding = 3) uniform writeonly image2D dst;
layout(push_constant) uniform P { uint h; uint w; float sx; float sy; } pc;
void main() {
    uint id = gid();
    if (id >= pc.h * pc.w) return;
    uint y = id / pc.w, x = id % pc.w;
    float u = (float(x) + 0.5) / float(pc.w);
    float v = (float(y) + 0.5) / float(pc.h);
    vec4 sum = vec4(0.0);
    for (uint k = 0u; k < 9u; k++) {
        float o = float(k) - 4.0;
        sum += textureLod(sampler2D(src, smp), vec2(u + o * pc.sx, v + o * pc.sy), 0.0) * wt[k];
    }
    imageStore(dst, ivec2(x, y), sum);
}
";

const G_BLUR_ARRAY: &str = "
layout(std430, binding = 0) readonly buffer S { vec4 src[]; };
layout(std430, binding = 1) readonly buffer W { float wt[]; };
layout(std430, binding = 2) writeonly buffer D { vec4 dst[]; };
layout(push_constant) uniform P { uint h; uint w; uint dx; uint dy; } pc;
void main() {
    uint id = gid();
    if (id >= pc.h * pc.w) return;
    int y = int(id / pc.w), x = int(id % pc.w);
    vec4 sum = vec4(0.0);
    for (int k = 0; k < 9; k++) {
        int o = k - 4;
        int sx = clamp(x + o * int(pc.dx), 0, int(pc.w) - 1);
        int sy = clamp(y + o * int(pc.dy), 0, int(pc.h) - 1);
        sum += src[uint(sy) * pc.w + uint(sx)] * wt[k];
    }
    // Unorm4::from_f32_array: clamped into [0, 1], NaN to 0.
    dst[id] = mix(clamp(sum, 0.0, 1.0), vec4(0.0), isnan(sum));
}
";

fn weights() -> [f32; TAPS] {
    let mut w = [0.0f32; TAPS];
    for (k, x) in w.iter_mut().enumerate() {
        let d = k as f32 - RADIUS as f32;
        *x = (-d * d / 8.0).exp();
    }
    let total: f32 = w.iter().sum();
    w.map(|x| x / total)
}

/// The blur on the CPU over 8-bit RGBA pixels: each pass in `f32`, rounded to 8 bits.
fn cpu_blur(
    px: &[[u8; 4]],
    h: usize,
    w: usize,
    wt: &[f32; TAPS],
    out: &mut [[u8; 4]],
    tmp: &mut [[u8; 4]],
) {
    let pass = |src: &[[u8; 4]], dst: &mut [[u8; 4]], dx: isize, dy: isize| {
        dst.par_chunks_mut(w).enumerate().for_each(|(y, row)| {
            for (x, o) in row.iter_mut().enumerate() {
                let mut sum = [0.0f32; 4];
                for (k, wk) in wt.iter().enumerate() {
                    let d = k as isize - RADIUS as isize;
                    let sx = (x as isize + d * dx).clamp(0, w as isize - 1) as usize;
                    let sy = (y as isize + d * dy).clamp(0, h as isize - 1) as usize;
                    let p = src[sy * w + sx];
                    for c in 0..4 {
                        sum[c] += f32::from(p[c]) * wk;
                    }
                }
                *o = sum.map(|s| s.round().clamp(0.0, 255.0) as u8);
            }
        });
    };
    pass(px, tmp, 1, 0);
    pass(tmp, out, 0, 1);
}

/// The sampled blur kernel's algorithm in plain Rust: two passes (along x, then y) of
/// [`TAPS`] linear samples per pixel with the kernel's coordinates, each weighing the four
/// texels around it (decoded as `c * (1 / 255)`, edges clamped), rounded to 8 bits per pass as
/// the texture stores it; rayon over rows.
fn bilinear_blur(
    px: &[[u8; 4]],
    n: usize,
    wt: &[f32; TAPS],
    out: &mut [[u8; 4]],
    tmp: &mut [[u8; 4]],
) {
    let step = 1.0 / n as f32;
    let pass = |src: &[[u8; 4]], dst: &mut [[u8; 4]], sx: f32, sy: f32| {
        let texel = |y: f32, x: f32| {
            let clamp = |i: f32| (i as isize).clamp(0, n as isize - 1) as usize;
            src[clamp(y) * n + clamp(x)].map(|c| f32::from(c) * (1.0 / 255.0))
        };
        dst.par_chunks_mut(n).enumerate().for_each(|(y, row)| {
            for (x, o) in row.iter_mut().enumerate() {
                let u = (x as f32 + 0.5) / n as f32;
                let v = (y as f32 + 0.5) / n as f32;
                let mut sum = [0.0f32; 4];
                for (k, wk) in wt.iter().enumerate() {
                    let d = k as f32 - RADIUS as f32;
                    let fx = (u + d * sx) * n as f32 - 0.5;
                    let fy = (v + d * sy) * n as f32 - 0.5;
                    let (x0, y0) = (fx.floor(), fy.floor());
                    let (ax, ay) = (fx - x0, fy - y0);
                    let (t00, t01) = (texel(y0, x0), texel(y0, x0 + 1.0));
                    let (t10, t11) = (texel(y0 + 1.0, x0), texel(y0 + 1.0, x0 + 1.0));
                    for c in 0..4 {
                        let top = (1.0 - ax) * t00[c] + ax * t01[c];
                        let bottom = (1.0 - ax) * t10[c] + ax * t11[c];
                        sum[c] += ((1.0 - ay) * top + ay * bottom) * wk;
                    }
                }
                *o = sum.map(|s| (s.clamp(0.0, 1.0) * 255.0).round() as u8);
            }
        });
    };
    pass(px, tmp, step, 0.0);
    pass(tmp, out, 0.0, step);
}

fn side(ctx: &Ctx<'_>) -> usize {
    if ctx.cfg.tiny {
        128
    } else if ctx.cfg.count.is_some() {
        // Under callgrind lavapipe samples slowly: a size each child runs in seconds.
        128
    } else if ctx.cfg.gpu {
        ctx.cfg.fit_side(8192)
    } else {
        2048
    }
}

pub fn texture_rows(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = side(ctx);
    let acc = ctx.acc.clone();
    let extent = Extent::new([n, n]);
    let pixels: Vec<[u8; 4]> = (0..n * n)
        .map(|i| {
            let (y, x) = (i / n, i % n);
            let check = if (x / 16 + y / 16) % 2 == 0 { 40 } else { 220 };
            [(x * 255 / n) as u8, (y * 255 / n) as u8, check, 255]
        })
        .collect();
    let texels: Vec<Unorm4> = pixels
        .iter()
        .map(|p| Unorm4::from_f32_array(p.map(|c| f32::from(c) / 255.0)))
        .collect();
    let wt = weights();
    let w_arr = Array::from_slice_on(&acc, [TAPS], &wt)?;
    let bytes = Work::Bytes(2.0 * 2.0 * 4.0 * (n * n) as f64);
    let size = format!("{n} x {n} RGBA8");

    let mut cpu = vec![[0u8; 4]; n * n];
    let mut tmp = vec![[0u8; 4]; n * n];
    let t_cpu = ctx.time(|| {
        cpu_blur(&pixels, n, n, &wt, &mut cpu, &mut tmp);
        Ok(())
    })?;

    // Through sampled textures.
    let src = Texture::<Unorm4, 2>::from_slice_on(&acc, extent, &texels)?;
    let mid = Texture::<Unorm4, 2>::new_on(&acc, extent)?;
    let out_amp = Texture::<Unorm4, 2>::new_on(&acc, extent)?;
    let out_glsl = Texture::<Unorm4, 2>::new_on(&acc, extent)?;
    let s = Sampler::new(Filter::Linear, AddressMode::Clamp);
    let k = RawKernel::with_bindings(
        &acc,
        &compile_glsl("blur_texture", &format!("{GLSL_1D}{G_BLUR_TEXTURE}"))?,
        "main",
        &[
            RawBinding::StorageBuffer,
            RawBinding::SampledImage,
            RawBinding::Sampler,
            RawBinding::StorageImage,
        ],
        16,
    )?;
    let step = 1.0 / n as f32;
    let groups = fold(&acc, (n * n).div_ceil(64));
    let pc_x = push(&[n as u32, n as u32, step.to_bits(), 0]);
    let pc_y = push(&[n as u32, n as u32, 0, step.to_bits()]);
    let (t_amp, t_glsl) = ctx.time_pair(
        || {
            let pass = |a: &Texture<Unorm4, 2>, b: &Texture<Unorm4, 2>, sx, sy| {
                // SAFETY: the kernel indexes only inside its views over this extent.
                let call =
                    unsafe { blur_texture(&a.view(), s, &w_arr, &b.writeonly_view(), sx, sy) };
                parallel_for_each_on(&acc, extent, call)
            };
            pass(&src, &mid, step, 0.0)?;
            pass(&mid, &out_amp, 0.0, step)?;
            out_amp.accelerator().default_view().wait()?;
            Ok(())
        },
        || {
            let pass = |a: &Texture<Unorm4, 2>, b: &Texture<Unorm4, 2>, pc: &[u8]| {
                k.dispatch(
                    groups,
                    vec![
                        KernelArg::read(&w_arr),
                        KernelArg::texture(&a.view()),
                        KernelArg::sampler(s),
                        KernelArg::writeonly_texture(&b.writeonly_view()),
                    ],
                    pc,
                )
            };
            pass(&src, &mid, &pc_x)?;
            pass(&mid, &out_glsl, &pc_y)?;
            Ok(())
        },
    )?;
    // Natively: textures on the native accelerator, where it has them.
    let native = ctx.native.clone();
    let n_w = Array::from_slice_on(&native, [TAPS], &wt)?;
    let textures = || -> Result<[Texture<Unorm4, 2>; 3], amp::Error> {
        Ok([
            Texture::<Unorm4, 2>::from_slice_on(&native, extent, &texels)?,
            Texture::<Unorm4, 2>::new_on(&native, extent)?,
            Texture::<Unorm4, 2>::new_on(&native, extent)?,
        ])
    };
    let mut n_out_tex = None;
    let t_native: Native = match textures() {
        Ok([n_src, n_mid, n_out]) => {
            let t = ctx.time_native(|| {
                let pass = |a: &Texture<Unorm4, 2>, b: &Texture<Unorm4, 2>, sx, sy| {
                    // SAFETY: the kernel indexes only inside its views over this extent.
                    let call =
                        unsafe { blur_texture(&a.view(), s, &n_w, &b.writeonly_view(), sx, sy) };
                    parallel_for_each_on(&native, extent, call)
                };
                pass(&n_src, &n_mid, step, 0.0)?;
                pass(&n_mid, &n_out, 0.0, step)?;
                Ok(())
            })?;
            n_out_tex = Some(n_out);
            t
        }
        Err(e) => {
            let e = BoxError::from(e);
            Err(native_unsupported(&e).ok_or(e)?)
        }
    };
    ctx.push_row(workload_row(
        "blur 9+9 taps, sampled TextureView<Unorm4, 2>",
        size.clone(),
        bytes,
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    // Per texel: within `steps` 8-bit steps of the CPU's.
    let near = |t: Vec<Unorm4>, steps: u8| -> Vec<bool> {
        t.into_iter()
            .zip(&cpu)
            .map(|(p, q)| {
                let p = p.to_f32_array().map(|x| (x * 255.0).round() as u8);
                (0..4).all(|c| p[c].abs_diff(q[c]) <= steps)
            })
            .collect()
    };
    let all_true = vec![true; n * n];
    ctx.checks.push(check(
        "blur, sampled texture (within one 8-bit step)",
        &near(out_amp.to_vec()?, 1),
        &near(out_glsl.to_vec()?, 1),
        &all_true,
    ));
    if let (Ok(_), Some(out)) = (&t_native, &n_out_tex) {
        ctx.checks.push(check_native(
            "blur, sampled texture (within one 8-bit step)",
            &near(out.to_vec()?, 1),
            &all_true,
        ));
    }
    if let Ok(t_native) = &t_native {
        // Why the native sampled blur trails the CPU column: the kernel's own algorithm (a
        // linear sample per tap, which weighs four texels: a texel centre's coordinate is
        // rarely exact in `f32`) in plain Rust, beside the kernel and the CPU column (one texel
        // per tap).
        let mut out = vec![[0u8; 4]; n * n];
        let t_algorithm = ctx.time(|| {
            bilinear_blur(&pixels, n, &wt, &mut out, &mut tmp);
            Ok(())
        })?;
        ctx.checks.push(check(
            "blur, the sampled kernel's algorithm in plain Rust (within one 8-bit step)",
            &near(
                out.iter()
                    .map(|p| Unorm4::from_f32_array(p.map(|c| f32::from(c) / 255.0)))
                    .collect(),
                1,
            ),
            &all_true,
            &all_true,
        ));
        let name = "blur 9+9 taps, sampled TextureView<Unorm4, 2>";
        for (variant, secs) in [
            ("the kernel natively (`unchecked`)", *t_native),
            (
                "the kernel's algorithm in plain Rust (rayon over rows; a linear sample per tap: \
                 four texels decoded and weighed, as the sampler does)",
                t_algorithm,
            ),
            ("the CPU column: plain Rust, one 8-bit texel per tap", t_cpu),
        ] {
            ctx.diagnostics.push(Diagnostic {
                workload: name.into(),
                size: size.clone(),
                variant: variant.into(),
                secs,
            });
        }
    }

    // Over arrays of Unorm4 (f32 components).
    let a_src = Array::from_slice_on(&acc, [n, n], &texels)?;
    let mut a_mid = Array::<Unorm4, 2>::new_on(&acc, [n, n])?;
    let mut a_amp = Array::<Unorm4, 2>::new_on(&acc, [n, n])?;
    let mut g_mid = Array::<Unorm4, 2>::new_on(&acc, [n, n])?;
    let mut a_glsl = Array::<Unorm4, 2>::new_on(&acc, [n, n])?;
    let ka = raw(
        &acc,
        "blur_array",
        &format!("{GLSL_1D}{G_BLUR_ARRAY}"),
        3,
        16,
    )?;
    let pa_x = push(&[n as u32, n as u32, 1, 0]);
    let pa_y = push(&[n as u32, n as u32, 0, 1]);
    let (t_amp, t_glsl) = ctx.time_pair(
        || {
            // SAFETY: the kernel indexes only inside its views over this extent.
            parallel_for_each_on(&acc, extent, unsafe {
                blur_array(&a_src, &w_arr, &mut a_mid, 1, 0)
            })?;
            // SAFETY: the kernel indexes only inside its views over this extent.
            parallel_for_each_on(&acc, extent, unsafe {
                blur_array(&a_mid, &w_arr, &mut a_amp, 0, 1)
            })?;
            acc.default_view().wait()?;
            Ok(())
        },
        || {
            ka.dispatch(
                groups,
                vec![
                    KernelArg::read(&a_src),
                    KernelArg::read(&w_arr),
                    KernelArg::write(&mut g_mid),
                ],
                &pa_x,
            )?;
            ka.dispatch(
                groups,
                vec![
                    KernelArg::read(&g_mid),
                    KernelArg::read(&w_arr),
                    KernelArg::write(&mut a_glsl),
                ],
                &pa_y,
            )?;
            Ok(())
        },
    )?;
    let n_src = Array::from_slice_on(&native, [n, n], &texels)?;
    let mut n_mid = Array::<Unorm4, 2>::new_on(&native, [n, n])?;
    let mut n_out = Array::<Unorm4, 2>::new_on(&native, [n, n])?;
    let t_native = ctx.time_native(|| {
        // SAFETY: the kernel indexes only inside its views over this extent.
        parallel_for_each_on(&native, extent, unsafe {
            blur_array(&n_src, &n_w, &mut n_mid, 1, 0)
        })?;
        // SAFETY: the kernel indexes only inside its views over this extent.
        parallel_for_each_on(&native, extent, unsafe {
            blur_array(&n_mid, &n_w, &mut n_out, 0, 1)
        })?;
        Ok(())
    })?;
    ctx.push_row(workload_row(
        "blur 9+9 taps, ArrayView<Unorm4, 2> (16 B/texel)",
        size,
        Work::Bytes(2.0 * 2.0 * 16.0 * (n * n) as f64),
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    // Arrays keep f32 components: the CPU rounds each pass to 8 bits, so compare within two
    // 8-bit steps.
    ctx.checks.push(check(
        "blur, arrays (within two 8-bit steps)",
        &near(a_amp.to_vec()?, 2),
        &near(a_glsl.to_vec()?, 2),
        &all_true,
    ));
    if t_native.is_ok() {
        ctx.checks.push(check_native(
            "blur, arrays (within two 8-bit steps)",
            &near(n_out.to_vec()?, 2),
            &all_true,
        ));
    }
    Ok(())
}
