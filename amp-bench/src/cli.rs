//! The command line of the `amp-bench` binary, parsed with `lexopt`: the flags `--help` lists.

use std::path::PathBuf;

use crate::instructions::{CountRun, Side};
use crate::BoxError;

/// `--help`.
pub const USAGE: &str = "\
amp-bench: every workload as an amp kernel, as hand-written GLSL and on the CPU (and natively)

usage: amp-bench [flags]

  --tiny                a few-ms smoke run (writes nothing)
  --full                also the 1024 x 1024 matrix products
  --gpu                 the GPU profile: GPU sizes, a warm-up, the clocks (nvidia-smi), kernel
                        times of at least 10 runs against the copy yardsticks, the GPU targets
  --native              with --gpu: run the native column too
  --max-buffer-mib N    shrink the GPU profile to buffers of at most N MiB
  --reps N              most timed runs per row (default 7; 8x as many for a checked and
                        unchecked pair of sub-millisecond rows)
  --only SECTION        only the sections whose names contain SECTION (or any of a
                        comma-separated list)
  --no-write            print only (do not rewrite docs/performance.md)
  --report-dir DIR      write bench.md and bench.json into DIR (docs/performance.md untouched)
  --chart PNG           also draw the amp/glslang chart into PNG
  --devices             list the accelerators and exit
  --instructions        count instructions per launch under callgrind (needs valgrind)
  --help, -h            this text

Without --tiny, --gpu, --only, --report-dir or --no-write the run rewrites the generated
section of docs/performance.md and its chart.
";

/// The parsed command line.
#[derive(Debug, Default)]
pub struct Cli {
    pub help: bool,
    pub devices: bool,
    pub tiny: bool,
    pub full: bool,
    pub gpu: bool,
    pub native: bool,
    /// `--max-buffer-mib N`, in bytes.
    pub max_buffer_bytes: Option<u64>,
    pub reps: Option<usize>,
    pub only: Option<String>,
    pub no_write: bool,
    pub report_dir: Option<PathBuf>,
    pub chart: Option<PathBuf>,
    pub instructions: bool,
    /// The child run of `--instructions` (`--count-pair K --count-side amp|glsl
    /// --count-reps R`, which `--help` does not list).
    pub count: Option<CountRun>,
}

impl Cli {
    /// Parses `args` (without the program name). An unknown flag or a missing or malformed
    /// value is an error that names it.
    pub fn parse<I>(args: I) -> Result<Cli, BoxError>
    where
        I: IntoIterator,
        I::Item: Into<std::ffi::OsString>,
    {
        use lexopt::prelude::*;
        let mut cli = Cli::default();
        let (mut pair, mut side, mut count_reps) = (None, None, None);
        let mut p = lexopt::Parser::from_args(args);
        while let Some(arg) = p.next()? {
            match arg {
                Short('h') | Long("help") => cli.help = true,
                Long("devices") => cli.devices = true,
                Long("tiny") => cli.tiny = true,
                Long("full") => cli.full = true,
                Long("gpu") => cli.gpu = true,
                Long("native") => cli.native = true,
                Long("max-buffer-mib") => {
                    let mib: u64 = number(&mut p, "--max-buffer-mib")?;
                    cli.max_buffer_bytes = Some(mib << 20);
                }
                Long("reps") => cli.reps = Some(number(&mut p, "--reps")?),
                Long("only") => cli.only = Some(p.value()?.string()?),
                Long("no-write") => cli.no_write = true,
                Long("report-dir") => cli.report_dir = Some(p.value()?.into()),
                Long("chart") => cli.chart = Some(p.value()?.into()),
                Long("instructions") => cli.instructions = true,
                Long("count-pair") => pair = Some(number(&mut p, "--count-pair")?),
                Long("count-side") => {
                    side = Some(match p.value()?.string()?.as_str() {
                        "amp" => Side::Amp,
                        "glsl" => Side::Glsl,
                        other => {
                            return Err(
                                format!("--count-side must be amp or glsl, not {other:?}").into()
                            )
                        }
                    })
                }
                Long("count-reps") => count_reps = Some(number(&mut p, "--count-reps")?),
                _ => return Err(format!("{} (see --help)", arg.unexpected()).into()),
            }
        }
        if let Some(pair) = pair {
            cli.count = Some(CountRun {
                pair,
                side: side.ok_or("--count-pair needs --count-side amp or glsl")?,
                reps: count_reps.ok_or("--count-pair needs --count-reps N")?,
            });
        }
        Ok(cli)
    }
}

/// The number after `flag`; an error that names the flag when it is missing or not a number.
fn number<T: std::str::FromStr>(p: &mut lexopt::Parser, flag: &str) -> Result<T, BoxError> {
    let value = p.value().map_err(|_| format!("{flag} needs a number"))?;
    value
        .to_str()
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("{flag} needs a number, not {value:?}").into())
}
