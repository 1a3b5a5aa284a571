//! The performance benchmark: every workload three ways on the same device in the same process,
//! (1) the `#[kernel(amp)]` kernel through `parallel_for_each`, (2) equivalent hand-written GLSL
//! compiled at run time by `glslangValidator` and launched with `RawKernel` on the same device
//! buffers, (3) plain Rust on the CPU (rayon where it parallelises). All device data lives in
//! `Array`s, so no transfers are timed except in the transfer rows.
//!
//! ```text
//! cargo run --release -p amp-bench            # default sizes; writes docs/performance.md
//! cargo run --release -p amp-bench -- --full  # also 1024 x 1024 matrix products
//! cargo run --release -p amp-bench -- --tiny  # a few-ms smoke run (writes nothing)
//! ```
//!
//! Other flags: `--no-write` (print only), `--reps N` (most timed runs per row, default 7).
//! Each row is the median of the timed runs after one warm-up run. `MESA_SHADER_CACHE_DISABLE=true`
//! makes the first-launch row a cold compile on lavapipe.
//!
//! The library is the benchmark; the `amp-bench` binary reads the command line and calls [`run`]
//! and [`publish`]. Its parts, one job each:
//!
//! - [`workloads`]: one file per section (vector, matmul, reductions, ...), each a
//!   [`Workload`](workloads::Workload), and [`run`], which runs them in order;
//! - `kernels`: the amp kernels the workloads share; `glsl`: their hand-written GLSL twins and
//!   how they are compiled and dispatched;
//! - [`context`]: what a workload measures with and adds to ([`Ctx`](context::Ctx));
//! - [`measure`]: statistics, timers, the repetition budget, [`settle`];
//! - [`report`]: rows, cells, checks, targets, the Markdown tables, JSON, the chart and
//!   docs/performance.md;
//! - [`cli`] (the binary's command line), [`config`], [`devices`], [`instructions`] (`--instructions`) and [`raw_vulkan`] (the raw
//!   `ash` floors of the launch rows);
//! - `yardstick`: the raw `ash` yardsticks of the memory-bound rows (the driver's buffer copy
//!   and a `uvec4` copy kernel) and the GPU profile's warm-up; [`clocks`]: the GPU's clocks
//!   from `nvidia-smi` around each section of the GPU profile.

pub mod cli;
pub mod clocks;
pub mod config;
pub mod context;
pub mod devices;
mod glsl;
pub mod instructions;
mod kernels;
pub mod measure;
pub mod raw_vulkan;
pub mod report;
pub mod workloads;
mod yardstick;

/// Any failure of the benchmark.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

pub use config::Config;
pub use devices::list_devices;
pub use measure::settle;
pub use report::{
    bounds_table, chart, diagnostics_table, publish, targets_table, write_report_dir,
    write_section, BoundsCost, Cell, Check, Diagnostic, KernelRow, KernelStats, Native, Outputs,
    Rate, Report, Row, Target, WarmUp, Work, Yardstick,
};
pub use workloads::{run, run_reporting};
