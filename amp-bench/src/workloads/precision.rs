//! What Rust's precision costs: `f32` division and square root correctly rounded and `sin`,
//! `cos` within an ULP (the default) against the device's own instructions
//! (`#[kernel(amp, fast_math)]`, and glslang's `x / y` and `sin(x)`, which compile to the same
//! instructions), on memory-bound kernels and on a chain of divisions.

use amp::prelude::*;
use amp::KernelArg;
use rayon::prelude::*;

use super::{Ctx, Workload};
use crate::glsl::{fold, push, raw, GLSL_1D};
use crate::report::{count, workload_row, Check, Work};
use crate::BoxError;

/// Divisions per element of the chain rows.
const CHAIN: usize = 32;

/// The precision rows.
pub struct Precision;

impl Workload for Precision {
    fn section(&self) -> &'static str {
        "precision"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        precision(ctx)
    }
}

#[kernel(amp, unchecked)]
fn div_sqrt(idx: Index<1>, x: &Array<f32, 1>, y: &Array<f32, 1>, z: &mut Array<f32, 1>) {
    z[idx] = x[idx] / y[idx] + x[idx].sqrt();
}

#[kernel(amp, unchecked, fast_math)]
fn div_sqrt_fast(idx: Index<1>, x: &Array<f32, 1>, y: &Array<f32, 1>, z: &mut Array<f32, 1>) {
    z[idx] = x[idx] / y[idx] + x[idx].sqrt();
}

#[kernel(amp, unchecked)]
fn div_chain(idx: Index<1>, x: &Array<f32, 1>, y: &Array<f32, 1>, z: &mut Array<f32, 1>) {
    let mut v = x[idx];
    let w = y[idx];
    for _ in 0..32 {
        v = w / (v + 1.0);
    }
    z[idx] = v;
}

#[kernel(amp, unchecked, fast_math)]
fn div_chain_fast(idx: Index<1>, x: &Array<f32, 1>, y: &Array<f32, 1>, z: &mut Array<f32, 1>) {
    let mut v = x[idx];
    let w = y[idx];
    for _ in 0..32 {
        v = w / (v + 1.0);
    }
    z[idx] = v;
}

#[kernel(amp, unchecked)]
fn sin_cos(idx: Index<1>, x: &Array<f32, 1>, y: &Array<f32, 1>, z: &mut Array<f32, 1>) {
    z[idx] = x[idx].sin() + y[idx].cos();
}

#[kernel(amp, unchecked, fast_math)]
fn sin_cos_fast(idx: Index<1>, x: &Array<f32, 1>, y: &Array<f32, 1>, z: &mut Array<f32, 1>) {
    z[idx] = x[idx].sin() + y[idx].cos();
}

const G_SIN_COS: &str = "
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Y { float y[]; };
layout(std430, binding = 2) writeonly buffer Z { float z[]; };
layout(push_constant) uniform P { uint n; } pc;
void main() {
    uint i = gid();
    if (i >= pc.n) return;
    z[i] = sin(x[i]) + cos(y[i]);
}
";

const G_DIV_SQRT: &str = "
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Y { float y[]; };
layout(std430, binding = 2) writeonly buffer Z { float z[]; };
layout(push_constant) uniform P { uint n; } pc;
void main() {
    uint i = gid();
    if (i >= pc.n) return;
    z[i] = x[i] / y[i] + sqrt(x[i]);
}
";

const G_DIV_CHAIN: &str = "
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Y { float y[]; };
layout(std430, binding = 2) writeonly buffer Z { float z[]; };
layout(push_constant) uniform P { uint n; } pc;
void main() {
    uint i = gid();
    if (i >= pc.n) return;
    float v = x[i];
    float w = y[i];
    for (int k = 0; k < 32; k++) {
        v = w / (v + 1.0);
    }
    z[i] = v;
}
";

type Launch = fn(&Array<f32, 1>, &Array<f32, 1>, &mut Array<f32, 1>) -> Result<(), amp::Error>;

/// One workload of the section: its exact and `fast_math` kernels, the GLSL twin and the CPU's
/// computation of one element.
struct Case {
    name: &'static str,
    shader: &'static str,
    glsl: &'static str,
    exact: Launch,
    fast: Launch,
    work: Work,
    on_cpu: fn(f32, f32) -> f32,
    /// How far the exact kernel may be from the CPU's result for operands `x`, `y`: 0 where it
    /// is correctly rounded, a few ULP where its functions are (`sin`, `cos`: 1 ULP each).
    tolerance: fn(f32, f32) -> f32,
}

/// The distance from `v` to the next float away from zero.
fn ulp(v: f32) -> f32 {
    f32::from_bits(v.abs().to_bits() + 1) - v.abs()
}

fn precision(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = ctx.cfg.n();
    let acc = ctx.acc.clone();
    let xs: Vec<f32> = (0..n).map(|i| 1.0 + (i % 1000) as f32 / 7.0).collect();
    let ys: Vec<f32> = (0..n).map(|i| 0.5 + (i % 777) as f32 / 3.0).collect();
    let a = Array::from_slice([n], &xs)?;
    let b = Array::from_slice([n], &ys)?;
    let mut c_amp = Array::<f32, 1>::new([n])?;
    let mut c_glsl = Array::<f32, 1>::new([n])?;
    let cpu_acc = ctx.native.clone();
    let na = Array::from_slice_on(&cpu_acc, [n], &xs)?;
    let nb = Array::from_slice_on(&cpu_acc, [n], &ys)?;
    let mut nc = Array::<f32, 1>::new_on(&cpu_acc, [n])?;
    let size = format!("{} f32", count(n));
    let groups = fold(&acc, n.div_ceil(64));
    let pc = push(&[n as u32]);

    let div_sqrt_cpu = |x: f32, y: f32| x / y + x.sqrt();
    let div_chain_cpu = |x: f32, y: f32| (0..CHAIN).fold(x, |v, _| y / (v + 1.0));
    let sin_cos_cpu = |x: f32, y: f32| x.sin() + y.cos();
    let cases = [
        Case {
            name: "z = x / y + sqrt(x)",
            shader: "div_sqrt",
            glsl: G_DIV_SQRT,
            exact: |x, y, z| {
                // SAFETY: the kernel indexes only inside its arrays over this extent.
                parallel_for_each(z.extent(), unsafe { div_sqrt(x, y, z) })
            },
            fast: |x, y, z| {
                // SAFETY: as above.
                parallel_for_each(z.extent(), unsafe { div_sqrt_fast(x, y, z) })
            },
            work: Work::Bytes(12.0 * n as f64),
            on_cpu: div_sqrt_cpu,
            tolerance: |_, _| 0.0,
        },
        Case {
            name: "32 dependent divisions per element",
            shader: "div_chain",
            glsl: G_DIV_CHAIN,
            exact: |x, y, z| {
                // SAFETY: the kernel indexes only inside its arrays over this extent.
                parallel_for_each(z.extent(), unsafe { div_chain(x, y, z) })
            },
            fast: |x, y, z| {
                // SAFETY: as above.
                parallel_for_each(z.extent(), unsafe { div_chain_fast(x, y, z) })
            },
            work: Work::Flops(2.0 * CHAIN as f64 * n as f64),
            on_cpu: div_chain_cpu,
            tolerance: |_, _| 0.0,
        },
        Case {
            name: "z = sin(x) + cos(y)",
            shader: "sin_cos",
            glsl: G_SIN_COS,
            exact: |x, y, z| {
                // SAFETY: the kernel indexes only inside its arrays over this extent.
                parallel_for_each(z.extent(), unsafe { sin_cos(x, y, z) })
            },
            fast: |x, y, z| {
                // SAFETY: as above.
                parallel_for_each(z.extent(), unsafe { sin_cos_fast(x, y, z) })
            },
            work: Work::Bytes(12.0 * n as f64),
            on_cpu: sin_cos_cpu,
            // Each function within an ULP, then the sum's rounding.
            tolerance: |x, y| ulp(x.sin()) + ulp(y.cos()) + ulp(x.sin() + y.cos()),
        },
    ];
    for case in cases {
        let Case {
            name,
            shader,
            glsl,
            exact: exact_launch,
            fast: fast_launch,
            work,
            on_cpu,
            tolerance,
        } = case;
        let k = raw(&acc, shader, &format!("{GLSL_1D}{glsl}"), 3, 4)?;
        let mut cpu = vec![0.0f32; n];
        let t_cpu = ctx.time(|| {
            cpu.par_iter_mut()
                .zip(xs.par_iter().zip(&ys))
                .for_each(|(z, (&x, &y))| *z = on_cpu(x, y));
            Ok(())
        })?;
        for (variant, launch) in [("exact", exact_launch), ("fast_math", fast_launch)] {
            let (t_amp, t_glsl) = ctx.time_pair(
                || Ok(launch(&a, &b, &mut c_amp)?),
                || {
                    Ok(k.dispatch(
                        groups,
                        vec![
                            KernelArg::read(&a),
                            KernelArg::read(&b),
                            KernelArg::write(&mut c_glsl),
                        ],
                        &pc,
                    )?)
                },
            )?;
            let t_native = ctx.time_native(|| Ok(launch(&na, &nb, &mut nc)?))?;
            let row = format!("{name}, {variant}");
            ctx.check_native(&row, &t_native, || Ok(nc.to_vec()?), &cpu)?;
            ctx.push_row(workload_row(
                &row,
                size.clone(),
                work,
                [t_amp, t_glsl, t_cpu],
                &t_native,
            ));
            if variant == "exact" {
                let within: Vec<f32> = xs.iter().zip(&ys).map(|(&x, &y)| tolerance(x, y)).collect();
                ctx.checks
                    .push(agrees_with_cpu(&row, &c_amp.to_vec()?, &cpu, &within));
            }
        }
    }
    Ok(())
}

/// Whether the exact kernel computed Rust's results, bit for bit where `within` is 0 and
/// within it elsewhere; the GLSL twin and the `fast_math` kernel are the device's own
/// precision, which Vulkan lets differ.
fn agrees_with_cpu(name: &str, amp: &[f32], cpu: &[f32], within: &[f32]) -> Check {
    let diff = (0..amp.len())
        .find(|&i| {
            let (a, b) = (amp[i], cpu[i]);
            a.to_bits() != b.to_bits() && (a - b).abs() > within[i]
        })
        .map(|i| format!("element {i}: {:?} vs CPU {:?}", amp[i], cpu[i]));
    Check {
        workload: name.into(),
        agree: diff.is_none(),
        detail: diff.unwrap_or_else(|| {
            "amp agrees with the CPU (/ and sqrt bit for bit, sin and cos within an ULP each; GLSL and fast_math: the device's precision)"
                .into()
        }),
    }
}
