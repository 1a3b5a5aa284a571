//! The workloads: one file per section of the benchmark, each a [`Workload`], and [`run`],
//! which runs them in the order of [`ALL`].

mod algorithms;
mod bounds;
mod build;
mod bytes;
mod chain;
mod conv;
mod divergent;
mod first_launch;
mod histogram;
mod launch;
mod matmul;
mod multi;
mod nbody;
mod precision;
mod reductions;
mod rodinia;
mod scan;
mod stencils;
mod textures;
mod transfers;
mod transpose;
mod vector;
mod yardsticks;

use amp::prelude::*;
use amp::DeviceType;
use std::time::Instant;

use crate::context::Ctx;
use crate::devices::vulkan_device;
use crate::report::Report;
use crate::{instructions, BoxError, Config};

/// One section of the benchmark: a workload, or a group of related ones, measured every way it
/// runs (the amp kernel, its hand-written GLSL twin, the CPU, the native CPU accelerator).
///
/// The trait is small on purpose: a name and one method. A section adds its rows, agreement
/// checks and diagnostics to the [`Ctx`] it is given and returns; [`run`] decides which
/// sections run (`--only`), in which order ([`ALL`]), and what a failing section costs (only
/// itself: the run goes on without it).
pub trait Workload {
    /// The section's name: what `--only` matches (a substring of it) and what the progress
    /// lines on stderr and the failed sections of the report name.
    fn section(&self) -> &'static str;

    /// Runs every measurement of the section, adding its rows and checks to `ctx`.
    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError>;
}

/// Every section, in the order a run measures them: the first launch of a kernel in the process
/// before anything else, then the yardsticks of the memory-bound rows (and the GPU profile's
/// warm-up), the bounds-checking cost last.
pub const ALL: [&dyn Workload; 22] = [
    &first_launch::FirstLaunch,
    &yardsticks::CopyYardsticks,
    &vector::Vector,
    &matmul::Matmul,
    &reductions::Reductions,
    &transpose::Transpose,
    &histogram::Histogram,
    &scan::Scan,
    &conv::Conv,
    &stencils::Stencils,
    &nbody::Nbody,
    &divergent::Divergent,
    &precision::Precision,
    &algorithms::Algorithms,
    &textures::Textures,
    &launch::Launch,
    &chain::Chain,
    &multi::Multi,
    &transfers::Transfers,
    &build::Build,
    &rodinia::Rodinia,
    &bounds::Bounds,
];

/// Runs every measurement of `cfg` and returns the table's rows and the agreement checks.
pub fn run(cfg: &Config) -> Result<Report, BoxError> {
    run_reporting(cfg, None)
}

/// What [`run_reporting`] calls after each section: what was measured so far, and the
/// section's name.
pub type AfterSection<'a> = &'a mut dyn FnMut(&Report, &str) -> Result<(), BoxError>;

/// [`run`], handing what was measured so far to `after_section` (when given) after each
/// section, so that a run cut short keeps it.
pub fn run_reporting(
    cfg: &Config,
    mut after_section: Option<AfterSection<'_>>,
) -> Result<Report, BoxError> {
    let t0 = Instant::now();
    let native = Accelerator::cpu()?;
    let native_init = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let acc = vulkan_device()?;
    let init = t0.elapsed().as_secs_f64();
    let cfg = &Config {
        max_buffer_bytes: cfg
            .max_buffer_bytes
            .min(u64::from(acc.limits().max_storage_buffer_range)),
        ..cfg.clone()
    };
    let mut ctx = Ctx {
        cfg,
        acc,
        native,
        rows: Vec::new(),
        checks: Vec::new(),
        diagnostics: Vec::new(),
        pairs: std::cell::Cell::new(0),
        pending_kernel: std::cell::Cell::new(None),
        kernel_rows: Vec::new(),
        init,
        native_init,
        bounds: Vec::new(),
        yardsticks: Vec::new(),
        warm_up: None,
        clocks: Default::default(),
    };
    if cfg.count.is_some() {
        // Only the sections with amp/glslang pairs; `--only` names one.
        for workload in ALL {
            let name = workload.section();
            if cfg.runs(name) && instructions::SECTIONS.contains(&name) {
                workload.run(&mut ctx)?;
            }
        }
        return Ok(Report {
            device: ctx.acc.name().to_owned(),
            device_is_cpu_driver: ctx.acc.device_type() == DeviceType::Cpu,
            native_device: ctx.native.name().to_owned(),
            rows: ctx.rows,
            checks: Vec::new(),
            bounds: Vec::new(),
            diagnostics: Vec::new(),
            failures: Vec::new(),
            kernel_rows: Vec::new(),
            validation: ctx.acc.validation_enabled(),
            yardsticks: Vec::new(),
            warm_up: None,
            tuned: ctx.acc.tuned_shapes(),
            clocks: ctx.clocks,
        });
    }
    // A section that fails is reported and the others still run: on a device met for the
    // first time (the GPU kit's one run), one failure must not cost every other number.
    let mut failures = Vec::new();
    for workload in ALL {
        let name = workload.section();
        // The yardsticks run whatever `--only` picks: the memory-bound rows are judged
        // against them (and the GPU profile warms up there).
        if cfg.runs(name) || name == "yardsticks" {
            ctx.pending_kernel.set(None);
            // The GPU profile logs the clocks around each section (nothing without nvidia-smi).
            if cfg.gpu {
                ctx.clocks.sample(name, "before");
            }
            let t0 = Instant::now();
            let result = workload.run(&mut ctx);
            let secs = t0.elapsed().as_secs_f64();
            if cfg.gpu {
                ctx.clocks.sample(name, "after");
            }
            match result {
                Ok(()) => eprintln!("amp-bench: section {name} done in {secs:.1} s"),
                Err(e) => {
                    eprintln!("amp-bench: section {name} FAILED after {secs:.1} s: {e}");
                    failures.push(format!("{name}: {e}"));
                }
            }
            if let Some(after_section) = after_section.as_deref_mut() {
                after_section(&report_of(&ctx, &failures), name)?;
            }
        }
    }
    Ok(report_of(&ctx, &failures))
}

/// What `ctx` measured so far, with the failed sections `failures`.
fn report_of(ctx: &Ctx<'_>, failures: &[String]) -> Report {
    Report {
        device: ctx.acc.name().to_owned(),
        device_is_cpu_driver: ctx.acc.device_type() == DeviceType::Cpu,
        native_device: ctx.native.name().to_owned(),
        rows: ctx.rows.clone(),
        checks: ctx.checks.clone(),
        bounds: ctx.bounds.clone(),
        diagnostics: ctx.diagnostics.clone(),
        failures: failures.to_vec(),
        kernel_rows: ctx.kernel_rows.clone(),
        validation: ctx.acc.validation_enabled(),
        yardsticks: ctx.yardsticks.clone(),
        warm_up: ctx.warm_up.clone(),
        clocks: ctx.clocks.clone(),
        tuned: ctx.acc.tuned_shapes(),
    }
}
