//! The byte row: a threshold over `u8` pixels, bytes in and bytes out. The amp kernel reads and
//! writes one byte per thread (packed four to a word on a Vulkan device, see
//! docs/kernel-language.md, "Small integers"); the GLSL baseline is what a hand-tuning user
//! writes without 8-bit storage, one thread per word doing its four bytes with plain stores;
//! the CPU column is rayon over the bytes.

use amp::prelude::*;
use amp::KernelArg;
use rayon::prelude::*;

use super::Ctx;
use crate::glsl::{fold, push, raw, GLSL_1D};
use crate::report::{check, count, workload_row, Work};
use crate::BoxError;

/// The threshold the row applies.
const LEVEL: u8 = 100;

/// Pixels above `level` become white; the others are halved.
#[kernel(amp)]
fn threshold_u8(idx: Index<1>, a: ArrayView<u8, 1>, out: ArrayViewMut<u8, 1>, level: u8) {
    let x = a[idx];
    out[idx] = if x > level { 255 } else { x / 2 };
}

fn threshold(x: u8, level: u8) -> u8 {
    if x > level {
        255
    } else {
        x / 2
    }
}

const G_THRESHOLD_WORDS: &str = "
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer C { uint c[]; };
layout(push_constant) uniform P { uint words; uint level; } pc;
void main() {
    uint w = gid();
    if (w >= pc.words) return;
    uint x = a[w];
    uint r = 0u;
    for (uint k = 0u; k < 32u; k += 8u) {
        uint b = (x >> k) & 255u;
        r |= (b > pc.level ? 255u : b / 2u) << k;
    }
    c[w] = r;
}
";

pub(super) fn bytes_row(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    // A whole number of words, so that the baseline's threads each own one.
    let n = ctx.cfg.n() / 4 * 4;
    let acc = ctx.acc.clone();
    let xs: Vec<u8> = (0..n)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let a = Array::from_slice([n], &xs)?;
    let mut c_amp = Array::<u8, 1>::new([n])?;
    let mut c_glsl = Array::<u8, 1>::new([n])?;
    let k = raw(
        &acc,
        "threshold_words",
        &format!("{GLSL_1D}{G_THRESHOLD_WORDS}"),
        2,
        8,
    )?;
    let words = n / 4;
    let groups = fold(&acc, words.div_ceil(64));
    let pc = push(&[words as u32, u32::from(LEVEL)]);
    let (t_amp, t_glsl) = ctx.time_pair(
        || {
            Ok(parallel_for_each(
                Extent::new([n]),
                threshold_u8(&a.view(), &mut c_amp.view_mut(), LEVEL),
            )?)
        },
        || {
            Ok(k.dispatch(
                groups,
                vec![KernelArg::read(&a), KernelArg::write(&mut c_glsl)],
                &pc,
            )?)
        },
    )?;
    let mut cpu = vec![0u8; n];
    let t_cpu = ctx.time(|| {
        cpu.par_iter_mut()
            .zip(xs.par_iter())
            .for_each(|(c, &x)| *c = threshold(x, LEVEL));
        Ok(())
    })?;
    let cpu_acc = ctx.native.clone();
    let na = Array::from_slice_on(&cpu_acc, [n], &xs)?;
    let mut nc = Array::<u8, 1>::new_on(&cpu_acc, [n])?;
    let t_native = ctx.time_native(|| {
        Ok(parallel_for_each_on(
            &cpu_acc,
            Extent::new([n]),
            threshold_u8(&na.view(), &mut nc.view_mut(), LEVEL),
        )?)
    })?;
    ctx.check_native(BYTES_ROW, &t_native, || Ok(nc.to_vec()?), &cpu)?;
    ctx.push_row(workload_row(
        BYTES_ROW,
        format!("{} u8", count(n)),
        Work::Bytes(2.0 * n as f64),
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    ctx.checks
        .push(check(BYTES_ROW, &c_amp.to_vec()?, &c_glsl.to_vec()?, &cpu));
    Ok(())
}

/// The row's name.
const BYTES_ROW: &str = "u8 threshold (bytes in, bytes out)";
