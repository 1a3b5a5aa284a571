//! Launch overhead: the round trip of an empty kernel against the raw `ash` floor.

use amp::prelude::*;
use std::time::Instant;

use super::{Ctx, Workload};
use crate::glsl::{compile_glsl, raw, G_EMPTY};
use crate::kernels::empty;
use crate::measure::{median, native_unsupported, settle};
use crate::report::{Cell, Native, Row};
use crate::{raw_vulkan, BoxError};

/// The launch-overhead rows.
pub struct Launch;

impl Workload for Launch {
    fn section(&self) -> &'static str {
        "launch"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        launch_overhead(ctx)
    }
}

/// Round trip of an empty kernel over one thread: amp's launch against `RawKernel`'s.
fn launch_overhead(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let reps = match (ctx.cfg.count.is_some(), ctx.cfg.tiny) {
        (true, _) => 0,
        (false, true) => 5,
        (false, false) => 1000,
    };
    let k = raw(&ctx.acc, "empty", G_EMPTY, 0, 0)?;
    let words = compile_glsl("empty", G_EMPTY)?;
    // The floor: a loop written against ash alone, on its own device handle, timed in
    // alternation with the runtime's launches so both see the same machine state.
    let floor = raw_vulkan::RawLoop::new(ctx.acc.name(), &words)?;
    floor.round_trip()?;
    parallel_for_each(Extent::new([1]), empty())?;
    k.dispatch([1, 1, 1], Vec::new(), &[])?;
    let mut ta = Vec::new();
    let mut tg = Vec::new();
    let mut tr = Vec::new();
    let mut tn = Vec::new();
    let native = ctx.native.clone();
    let native_launch = || -> Result<(), BoxError> {
        Ok(parallel_for_each_on(&native, Extent::new([1]), empty())?)
    };
    let native_ok: Native = match native_launch() {
        Ok(()) => Ok(0.0),
        Err(e) => Err(native_unsupported(&e).ok_or(e)?),
    };
    if ctx.cfg.count.is_some() {
        // Instruction counting: the same two comparisons, as pairs.
        let raw_loop = || floor.round_trip();
        ctx.time_pair(
            || {
                parallel_for_each(Extent::new([1]), empty())?;
                settle()
            },
            raw_loop,
        )?;
        ctx.time_pair(
            || {
                k.dispatch([1, 1, 1], Vec::new(), &[])?;
                settle()
            },
            raw_loop,
        )?;
        (ta, tg, tr) = (vec![1.0], vec![1.0], vec![1.0]);
    }
    for _ in 0..reps {
        let t = Instant::now();
        floor.round_trip()?;
        tr.push(t.elapsed().as_secs_f64());
        // A round trip: the launch and the wait for it.
        let t = Instant::now();
        parallel_for_each(Extent::new([1]), empty())?;
        settle()?;
        ta.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        k.dispatch([1, 1, 1], Vec::new(), &[])?;
        settle()?;
        tg.push(t.elapsed().as_secs_f64());
        if native_ok.is_ok() {
            // Native launches finish before they return: the launch is the round trip.
            let t = Instant::now();
            native_launch()?;
            tn.push(t.elapsed().as_secs_f64());
        }
    }
    let cell = |v: &mut Vec<f64>| Cell::Time {
        secs: median(v),
        rate: None,
    };
    ctx.push_row(Row {
        name:
            "launch overhead, empty kernel (glslang column: minimal raw `ash` submit-and-wait loop)"
                .into(),
        size: "1 thread".into(),
        amp: cell(&mut ta),
        glsl: cell(&mut tr),
        cpu: Cell::None,
        native: match native_ok {
            Ok(_) if !tn.is_empty() => cell(&mut tn),
            Ok(_) => Cell::None,
            Err(why) => Cell::Unsupported(why),
        },
    });
    ctx.push_row(Row {
        name: "launch overhead, `RawKernel` empty dispatch (amp column) vs the raw `ash` loop"
            .into(),
        size: "1 thread".into(),
        amp: cell(&mut tg),
        glsl: cell(&mut tr),
        cpu: Cell::None,
        native: Cell::None,
    });
    Ok(())
}
