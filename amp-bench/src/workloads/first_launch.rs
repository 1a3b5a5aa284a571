//! The first launch of a kernel in the process, and device initialisation.

use amp::prelude::*;
use amp::{KernelArg, RawKernel};
use std::time::Instant;

use super::{Ctx, Workload};
use crate::glsl::{compile_glsl, fold, push, GLSL_1D, G_VADD};
use crate::kernels::{vadd, vadd_first_native};
use crate::measure::native_unsupported;
use crate::report::{check, fmt_time, native_cell, Cell, Native, Row};
use crate::BoxError;

/// The first launch of a kernel in the process and the devices' initialisation; runs before
/// every other section.
pub struct FirstLaunch;

impl Workload for FirstLaunch {
    fn section(&self) -> &'static str {
        "first"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        let (init, native_init) = (ctx.init, ctx.native_init);
        first_launch(ctx, init, native_init)
    }
}

/// The first launch of a kernel in the process (pipeline creation and the driver's compile)
/// against GLSL's tool compile, pipeline creation and first dispatch. Runs before anything else.
fn first_launch(ctx: &mut Ctx<'_>, init: f64, native_init: f64) -> Result<(), BoxError> {
    let n = 64;
    let a = Array::from_slice([n], &vec![1.0f32; n])?;
    let b = Array::from_slice([n], &vec![2.0f32; n])?;
    let mut c = Array::<f32, 1>::new([n])?;
    let mut c2 = Array::<f32, 1>::new([n])?;
    let t = Instant::now();
    // SAFETY: the kernel indexes only inside its views over this extent.
    parallel_for_each(Extent::new([n]), unsafe { vadd(&a, &b, &mut c) })?;
    let amp_first = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let words = compile_glsl("first_vadd", &format!("{GLSL_1D}{G_VADD}"))?;
    let tool = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let k = RawKernel::new(&ctx.acc, &words, "main", 3, 4)?;
    k.dispatch(
        fold(&ctx.acc, n.div_ceil(64)),
        vec![
            KernelArg::read(&a),
            KernelArg::read(&b),
            KernelArg::write(&mut c2),
        ],
        &push(&[n as u32]),
    )?;
    let glsl_first = t.elapsed().as_secs_f64();
    let cache = match std::env::var("MESA_SHADER_CACHE_DISABLE") {
        Ok(v) if v == "true" || v == "1" => "shader cache off",
        _ => "shader cache on",
    };
    // The native first launch: a kernel no column has launched yet, on the native accelerator.
    let na = Array::from_slice_on(&ctx.native, [n], &vec![1.0f32; n])?;
    let nb = Array::from_slice_on(&ctx.native, [n], &vec![2.0f32; n])?;
    let mut nc = Array::<f32, 1>::new_on(&ctx.native, [n])?;
    let t = Instant::now();
    let ran = parallel_for_each_on(
        &ctx.native,
        Extent::new([n]),
        // SAFETY: the kernel indexes only inside its views over this extent.
        unsafe { vadd_first_native(&na, &nb, &mut nc) },
    );
    let native_first = t.elapsed().as_secs_f64();
    let native_first: Native = match ran {
        Ok(()) => Ok(native_first),
        Err(e) => {
            Err(native_unsupported(&BoxError::from(e)).ok_or("the native first launch failed")?)
        }
    };
    ctx.check_native(
        "first launch",
        &native_first,
        || Ok(nc.to_vec()?),
        &vec![3.0f32; n],
    )?;
    ctx.push_row(Row {
        name:
            "device init (Vulkan: `Accelerator::all`, first non-native; native: `Accelerator::cpu`)"
                .into(),
        size: "-".into(),
        amp: Cell::Time {
            secs: init,
            rate: None,
        },
        glsl: Cell::None,
        cpu: Cell::None,
        native: Cell::Time {
            secs: native_init,
            rate: None,
        },
    });
    ctx.push_row(Row {
        name: format!("first launch, vector add ({cache})"),
        size: format!("{n}"),
        amp: Cell::Text(format!("{} (pipeline + dispatch)", fmt_time(amp_first))),
        glsl: Cell::Text(format!(
            "{} (glslangValidator {} + pipeline + dispatch {})",
            fmt_time(tool + glsl_first),
            fmt_time(tool),
            fmt_time(glsl_first)
        )),
        cpu: Cell::None,
        native: native_cell(&native_first, None),
    });
    ctx.checks.push(check(
        "first launch",
        &c.to_vec()?,
        &c2.to_vec()?,
        &vec![3.0f32; n],
    ));
    Ok(())
}
