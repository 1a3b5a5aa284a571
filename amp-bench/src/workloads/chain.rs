//! A chain of dependent launches against the same dispatches recorded by hand.

use amp::prelude::*;

use super::{Ctx, Workload};
use crate::glsl::{compile_glsl, G_CHAIN};
use crate::kernels::vadd;
use crate::report::{check, Cell, Native, Row};
use crate::{raw_vulkan, BoxError};

/// The launch chain.
pub struct Chain;

impl Workload for Chain {
    fn section(&self) -> &'static str {
        "chain"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        launch_chain(ctx)
    }
}

/// A chain of dependent launches of a small kernel (`vadd` with an array of ones) over two
/// `Array`s (ping-pong: each launch reads what the previous one wrote) followed by one read, three ways: asynchronous
/// launches (batched by the runtime), the same launches each followed by a wait (the
/// synchronous launches of earlier versions: one submission and one fence wait per launch),
/// and the floor, the same dispatches recorded by hand into one command buffer with a barrier
/// between consecutive ones (`raw_vulkan::RawChain`).
fn launch_chain(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let (launches, n) = if ctx.cfg.tiny { (20, 64) } else { (1000, 64) };
    let floor = raw_vulkan::RawChain::new(ctx.acc.name(), &compile_glsl("chain", G_CHAIN)?, n)?;
    // The vector add with an array of ones: `b = a + 1` (the floor reads no ones).
    let ones = Array::from_slice_on(&ctx.acc, [n], &vec![1.0f32; n])?;
    let mut a = Array::<f32, 1>::new_on(&ctx.acc, [n])?;
    let mut b = Array::<f32, 1>::new_on(&ctx.acc, [n])?;
    let view = ctx.acc.default_view();
    let mut chain = |wait_each: bool| -> Result<Vec<u32>, BoxError> {
        a.copy_from_slice(&vec![0.0; n])?;
        for i in 0..launches {
            if i % 2 == 0 {
                // SAFETY: the kernel indexes only inside its views over this extent.
                parallel_for_each(a.extent(), unsafe { vadd(&a, &ones, &mut b) })?;
            } else {
                // SAFETY: the kernel indexes only inside its views over this extent.
                parallel_for_each(a.extent(), unsafe { vadd(&b, &ones, &mut a) })?;
            }
            if wait_each {
                view.wait()?;
            }
        }
        // One read (of `a`, as the floor reads its buffer 0), compared as bits.
        Ok(a.to_vec()?.into_iter().map(f32::to_bits).collect())
    };
    // Even launches write `b`, odd ones `a`: after an even number of launches `a` holds it.
    let want = vec![(launches as f32).to_bits(); n];
    let (mut got_async, mut got_sync, mut got_floor) = (Vec::new(), Vec::new(), Vec::new());
    let (t_async, t_floor) = ctx.time_pair(
        || {
            got_async = chain(false)?;
            Ok(())
        },
        || {
            floor.reset();
            got_floor = floor.run(launches)?;
            Ok(())
        },
    )?;
    let t_sync = ctx.time(|| {
        got_sync = chain(true)?;
        Ok(())
    })?;
    // The same chain on the native accelerator, its arrays in host memory.
    let native = ctx.native.clone();
    let n_ones = Array::from_slice_on(&native, [n], &vec![1.0f32; n])?;
    let mut na = Array::<f32, 1>::new_on(&native, [n])?;
    let mut nb = Array::<f32, 1>::new_on(&native, [n])?;
    let mut got_native = Vec::new();
    let t_native = ctx.time_native(|| {
        na.copy_from_slice(&vec![0.0; n])?;
        for i in 0..launches {
            if i % 2 == 0 {
                // SAFETY: the kernel indexes only inside its views over this extent.
                parallel_for_each_on(&native, na.extent(), unsafe { vadd(&na, &n_ones, &mut nb) })?;
            } else {
                // SAFETY: the kernel indexes only inside its views over this extent.
                parallel_for_each_on(&native, na.extent(), unsafe { vadd(&nb, &n_ones, &mut na) })?;
            }
        }
        got_native = na.to_vec()?.into_iter().map(f32::to_bits).collect();
        Ok(())
    })?;
    ctx.check_native("launch chain", &t_native, || Ok(got_native.clone()), &want)?;
    let per_launch = |t: &Native| match t {
        Ok(secs) => Cell::Time {
            secs: *secs,
            rate: Some(format!("{:.1} µs/launch", secs * 1e6 / launches as f64).into()),
        },
        Err(why) => Cell::Unsupported(why.clone()),
    };
    ctx.checks
        .push(check("launch chain", &got_async, &got_floor, &want));
    ctx.checks.push(check(
        "launch chain, synchronous",
        &got_sync,
        &got_floor,
        &want,
    ));
    let name = format!("chain of {launches} dependent launches over 2 `Array`s + 1 read");
    ctx.push_row(Row {
        name: format!("{name} (glslang column: the dispatches recorded by hand in raw `ash`)"),
        size: format!("{n} elements"),
        amp: Cell::Time {
            secs: t_async,
            rate: Some(format!("{:.1} µs/launch", t_async * 1e6 / launches as f64).into()),
        },
        glsl: Cell::Time {
            secs: t_floor,
            rate: Some(format!("{:.1} µs/launch", t_floor * 1e6 / launches as f64).into()),
        },
        cpu: Cell::None,
        native: per_launch(&t_native),
    });
    ctx.push_row(Row {
        name: format!("{name}, each launch waited for (synchronous) vs the same floor"),
        size: format!("{n} elements"),
        amp: Cell::Time {
            secs: t_sync,
            rate: Some(format!("{:.1} µs/launch", t_sync * 1e6 / launches as f64).into()),
        },
        glsl: Cell::Time {
            secs: t_floor,
            rate: Some(format!("{:.1} µs/launch", t_floor * 1e6 / launches as f64).into()),
        },
        cpu: Cell::None,
        // Native launches always finish before they return: the row above is synchronous.
        native: Cell::None,
    });
    Ok(())
}
