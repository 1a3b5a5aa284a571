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
//! `--help` lists every flag. The benchmark itself is the `amp_bench` library; this binary reads
//! the command line and calls it.

use amp_bench::cli::{Cli, USAGE};
use amp_bench::report::{publish, write_report_dir, Outputs};
use amp_bench::workloads::ALL;
use amp_bench::{instructions, list_devices, run, run_reporting, BoxError, Config};
use std::time::Instant;

fn main() -> Result<(), BoxError> {
    let cli = Cli::parse(std::env::args_os().skip(1))?;
    if cli.help {
        print!("{USAGE}");
        let sections: Vec<&str> = ALL.iter().map(|w| w.section()).collect();
        println!("\nsections, in the order they run: {}", sections.join(", "));
        return Ok(());
    }
    if cli.devices {
        return list_devices();
    }
    let mut cfg = Config {
        tiny: cli.tiny,
        full: cli.full,
        gpu: cli.gpu,
        native: !cli.gpu || cli.native,
        // `--max-buffer-mib N` shrinks the GPU profile (to try it on a small device).
        max_buffer_bytes: cli.max_buffer_bytes.unwrap_or(u64::MAX),
        reps: 7,
        only: cli.only,
        count: cli.count,
    };
    if cfg.count.is_some() {
        // A child of `--instructions`: run the chosen side, then name the pairs.
        let report = run(&cfg)?;
        for row in report.rows.iter().filter(|r| r.glsl.secs().is_some()) {
            println!("{}{}\t{}", instructions::PAIR_PREFIX, row.name, row.size);
        }
        return Ok(());
    }
    if cli.instructions {
        return instructions::count_all(cfg.only.as_deref(), !cli.no_write);
    }
    if let Some(reps) = cli.reps {
        cfg.reps = reps;
    }
    // The GPU profile and report folders never rewrite docs/performance.md.
    let write =
        !cfg.tiny && !cfg.gpu && cli.report_dir.is_none() && cfg.only.is_none() && !cli.no_write;
    let outputs = Outputs {
        report_dir: cli.report_dir,
        write_docs: write,
        chart: cli.chart,
    };
    let started = Instant::now();
    // A report folder gets what was measured after every section, so a run cut short by a
    // time limit (the GPU kit's) keeps it; the end of the run writes it whole.
    let report = match &outputs.report_dir {
        Some(dir) => run_reporting(
            &cfg,
            Some(&mut |report, section| {
                let elapsed = started.elapsed().as_secs_f64();
                write_report_dir(report, &cfg, elapsed, dir, Some(section))
            }),
        )?,
        None => run(&cfg)?,
    };
    if !publish(&report, &cfg, started, &outputs)? {
        std::process::exit(1);
    }
    Ok(())
}
