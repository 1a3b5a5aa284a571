//! The yardsticks of the memory-bound rows: the driver's buffer copy and a hand-written
//! `uvec4` copy kernel over the copy row's bytes, on a device of their own
//! ([`crate::yardstick`]); in the GPU profile, first the warm-up before the timed sections.

use super::{Ctx, Workload};
use crate::measure::KERNEL_SAMPLES;
use crate::report::{Check, KernelStats, WarmUp, Yardstick};
use crate::yardstick::{validation_messages, CopyMethod, Yardsticks};
use crate::BoxError;

/// Seconds of busy work before the GPU profile's timed sections.
pub(crate) const WARM_UP_SECS: f64 = 1.0;

/// The yardsticks (and the GPU profile's warm-up). Runs after the first launch, before every
/// other section, whatever `--only` picks: every memory-bound row is judged against it.
pub struct CopyYardsticks;

impl Workload for CopyYardsticks {
    fn section(&self) -> &'static str {
        "yardsticks"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        yardsticks(ctx)
    }
}

fn yardsticks(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    // The copy row's bytes: n `f32`s.
    let bytes = (ctx.cfg.n() * 4) as u64;
    let messages = validation_messages();
    let y = Yardsticks::new(
        ctx.acc.device_path(),
        ctx.acc.name(),
        bytes,
        KERNEL_SAMPLES as u32,
        ctx.acc.validation_enabled(),
    )?;
    if ctx.cfg.gpu {
        let (seconds, dispatches) = y.warm_up(WARM_UP_SECS)?;
        eprintln!("amp-bench: warmed the device up: {dispatches} copy kernels in {seconds:.2} s");
        ctx.warm_up = Some(WarmUp {
            seconds,
            dispatches,
        });
        ctx.clocks.sample("warm-up", "after");
    }
    let mib = bytes as f64 / f64::from(1 << 20);
    for (method, name) in [
        (
            CopyMethod::Driver,
            "`vkCmdCopyBuffer` (the driver's copy)".to_owned(),
        ),
        (
            CopyMethod::Uvec4Kernel,
            format!(
                "GLSL `uvec4` grid-stride copy kernel ({} workgroups of 256)",
                y.groups()
            ),
        ),
        (
            CopyMethod::UintKernel,
            format!(
                "GLSL `uint` grid-stride copy kernel (the same {} workgroups, 4-byte accesses)",
                y.groups()
            ),
        ),
        (
            CopyMethod::UintRunKernel,
            format!(
                "GLSL `uvec4` copy kernel's loop with four neighbouring `uint` accesses per \
                 step (the same {} workgroups)",
                y.groups()
            ),
        ),
    ] {
        let (times, bad) = y.time(method, KERNEL_SAMPLES as u32)?;
        ctx.checks.push(Check {
            workload: format!("yardstick: {name}"),
            agree: bad == 0,
            detail: if bad == 0 {
                format!("{mib:.0} MiB copied, every word checked on the device")
            } else {
                format!("{bad} of {} uvec4s differ from the source", bytes / 16)
            },
        });
        let stats = KernelStats::of(&times).ok_or("no yardstick time")?;
        ctx.yardsticks.push(Yardstick {
            name,
            bytes: bytes as f64,
            stats,
        });
    }
    drop(y);
    // Under the validation layer (`AMP_VALIDATION`), the raw `ash` code is held to it too.
    if ctx.acc.validation_enabled() {
        let reported = validation_messages() - messages;
        ctx.checks.push(Check {
            workload: "yardsticks: validation layer".into(),
            agree: reported == 0,
            detail: format!("{reported} warnings or errors (printed on stderr)"),
        });
    }
    Ok(())
}
