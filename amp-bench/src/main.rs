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

use amp_bench::report::{publish, Outputs};
use amp_bench::workloads::ALL;
use amp_bench::{instructions, list_devices, run, BoxError, Config};
use std::path::PathBuf;
use std::time::Instant;

/// `--help`.
const USAGE: &str = "\
amp-bench: every workload as an amp kernel, as hand-written GLSL and on the CPU (and natively)

usage: amp-bench [flags]

  --tiny                a few-ms smoke run (writes nothing)
  --full                also the 1024 x 1024 matrix products
  --gpu                 the GPU profile: GPU sizes, the copy-kernel yardstick and the GPU targets
  --native              with --gpu: run the native column too
  --max-buffer-mib N    shrink the GPU profile to buffers of at most N MiB
  --reps N              most timed runs per row (default 7)
  --only SECTION        only the sections whose names contain SECTION
  --no-write            print only (do not rewrite docs/performance.md)
  --report-dir DIR      write bench.md and bench.json into DIR (docs/performance.md untouched)
  --chart PNG           also draw the amp/glslang chart into PNG
  --devices             list the accelerators and exit
  --instructions        count instructions per launch under callgrind (needs valgrind)
  --help, -h            this text

Without --tiny, --gpu, --only, --report-dir or --no-write the run rewrites the generated
section of docs/performance.md and its chart.
";

fn main() -> Result<(), BoxError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{USAGE}");
        let sections: Vec<&str> = ALL.iter().map(|w| w.section()).collect();
        println!("\nsections, in the order they run: {}", sections.join(", "));
        return Ok(());
    }
    if args.iter().any(|a| a == "--devices") {
        return list_devices();
    }
    let gpu = args.iter().any(|a| a == "--gpu");
    let mut cfg = Config {
        tiny: args.iter().any(|a| a == "--tiny"),
        full: args.iter().any(|a| a == "--full"),
        gpu,
        native: !gpu || args.iter().any(|a| a == "--native"),
        // `--max-buffer-mib N` shrinks the GPU profile (to try it on a small device).
        max_buffer_bytes: match args.iter().position(|a| a == "--max-buffer-mib") {
            Some(i) => {
                args.get(i + 1)
                    .and_then(|s| s.parse::<u64>().ok())
                    .ok_or("--max-buffer-mib needs a number")?
                    << 20
            }
            None => u64::MAX,
        },
        reps: 7,
        only: args
            .iter()
            .position(|a| a == "--only")
            .and_then(|i| args.get(i + 1).cloned()),
        count: instructions::CountRun::from_args(&args)?,
    };
    if cfg.count.is_some() {
        // A child of `--instructions`: run the chosen side, then name the pairs.
        let report = run(&cfg)?;
        for row in report.rows.iter().filter(|r| r.glsl.secs().is_some()) {
            println!("{}{}\t{}", instructions::PAIR_PREFIX, row.name, row.size);
        }
        return Ok(());
    }
    if args.iter().any(|a| a == "--instructions") {
        let write = !args.iter().any(|a| a == "--no-write");
        return instructions::count_all(cfg.only.as_deref(), write);
    }
    if let Some(i) = args.iter().position(|a| a == "--reps") {
        cfg.reps = args
            .get(i + 1)
            .and_then(|s| s.parse().ok())
            .ok_or("--reps needs a number")?;
    }
    let report_dir = args
        .iter()
        .position(|a| a == "--report-dir")
        .map(|i| args.get(i + 1).ok_or("--report-dir needs a folder"))
        .transpose()?
        .map(PathBuf::from);
    // The GPU profile and report folders never rewrite docs/performance.md.
    let write = !cfg.tiny
        && !cfg.gpu
        && report_dir.is_none()
        && cfg.only.is_none()
        && !args.iter().any(|a| a == "--no-write");
    let outputs = Outputs {
        report_dir,
        write_docs: write,
        chart: args
            .iter()
            .position(|a| a == "--chart")
            .and_then(|i| args.get(i + 1))
            .map(PathBuf::from),
    };
    let started = Instant::now();
    let report = run(&cfg)?;
    if !publish(&report, &cfg, started, &outputs)? {
        std::process::exit(1);
    }
    Ok(())
}
