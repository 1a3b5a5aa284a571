//! Where a run's results go: the tables on stdout, the report folder (`--report-dir`),
//! docs/performance.md and the chart.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::json::{profile_name, report_json};
use super::measurement::{KERNEL_TABLE_NOTE, TUNED_NOTE, YARDSTICK_NOTE};
use super::{bounds_table, chart, diagnostics_table, targets_table, Report};
use crate::{BoxError, Config};

/// Where a run's results go besides stdout.
#[derive(Clone, Debug, Default)]
pub struct Outputs {
    /// `--report-dir`: bench.md and bench.json are written into this folder.
    pub report_dir: Option<PathBuf>,
    /// Whether docs/performance.md (and its chart) is rewritten.
    pub write_docs: bool,
    /// `--chart`: the amp/glslang chart is drawn into this PNG too.
    pub chart: Option<PathBuf>,
}

/// Prints the tables of `report` (a run of `cfg` started at `started`) and the mismatches,
/// then writes what `outputs` asks for. Returns whether every section ran and every check
/// agreed.
pub fn publish(
    report: &Report,
    cfg: &Config,
    started: Instant,
    outputs: &Outputs,
) -> Result<bool, BoxError> {
    let table = report.table();
    let bounds = bounds_table(&report.bounds);
    let notes = report.native_notes();
    let targets = report.targets();
    let targets_md = targets_table(&targets);
    println!(
        "device: {}; native: {}; validation layer: {}",
        report.device,
        report.native_device,
        if report.validation { "on" } else { "off" }
    );
    println!("{table}");
    if !notes.is_empty() {
        println!("Not run natively (–):\n{notes}");
    }
    println!("Native targets\n\n{targets_md}");
    let diagnostics = diagnostics_table(&report.diagnostics);
    if !report.diagnostics.is_empty() {
        println!("Native diagnostics\n\n{diagnostics}");
    }
    println!("Bounds checking cost\n\n{bounds}");
    let mut ok = report.failures.is_empty();
    for f in &report.failures {
        eprintln!("FAILED section {f}");
    }
    for c in &report.checks {
        if !c.agree {
            ok = false;
            eprintln!("MISMATCH in {}: {}", c.workload, c.detail);
        }
    }
    let gpu_targets = report.gpu_targets();
    let gpu_targets_md = targets_table(&gpu_targets);
    println!("GPU targets\n\n{gpu_targets_md}");
    let kernels_md = report.kernel_table();
    let yardsticks_md = report.yardstick_table();
    let clocks_md = report.clock_table();
    let conditions = report.conditions();
    println!("{conditions}");
    println!("Yardsticks of the memory-bound rows\n\n{yardsticks_md}");
    if !clocks_md.is_empty() {
        println!("Clocks (nvidia-smi)\n\n{clocks_md}");
    }
    println!("Kernel time (timestamp queries) beside wall time\n\n{kernels_md}");
    let tuned_md = report.tuned_table();
    if !tuned_md.is_empty() {
        println!("Autotuned launch shapes\n\n{tuned_md}");
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "{} of {} checks agree across amp, glslang, CPU and native ({elapsed:.1} s in all)",
        report.checks.iter().filter(|c| c.agree).count(),
        report.checks.len(),
    );
    if let Some(dir) = &outputs.report_dir {
        write_report_dir(report, cfg, elapsed, dir, None)?;
        println!("wrote {}", dir.display());
    }
    if outputs.write_docs {
        let date = Command::new("date")
            .arg("+%Y-%m-%d")
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_default();
        let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!(
                "\nRows marked – in the native column did not run there: the native CPU \
                 accelerator returned `amp::Error::NativeUnsupported`. They pick the native \
                 column up as soon as the native back end translates them.\n\n{notes}"
            )
        };
        let met = targets.iter().filter(|t| t.met() == Some(true)).count();
        let missed = targets.iter().filter(|t| t.met() == Some(false)).count();
        let unmeasured = targets.iter().filter(|t| t.met().is_none()).count();
        let section = format!(
            "Measured {date} on `{}` ({cores} CPU cores), `cargo run --release -p amp-bench{}`. \
             Times are medians after a warm-up run; rates in parentheses; amp/glslang above 1 \
             means the amp kernel is slower. {conditions}\n\
             Columns: **amp** is the `#[kernel(amp)]` kernel on the Vulkan device above, \
             **glslang** hand-written GLSL on the same device, **CPU** plain Rust (rayon where \
             it parallelises), **native** the same amp kernel on the native CPU accelerator \
             (`Accelerator::cpu()`, `{}`) with its data in arrays on that accelerator. \
             native/CPU below 1 means the native kernel beats the plain Rust; amp/native is how \
             many times faster the native accelerator runs the kernel than the Vulkan device.\n\n\
             {table}{notes}\n\
             ### Native targets\n\n\
             Every workload natively at most 1.5x the plain Rust/rayon time (vector add and \
             saxpy 1.2x); at least 10x faster than lavapipe on vector add, the simple matrix \
             product, the reductions and the scan; the first native launch of a kernel within \
             1 ms. This run: {met} met, {missed} missed, {unmeasured} not measured.\n\n\
             {targets_md}\n{}\
             ### Yardsticks of the memory-bound rows\n\n{YARDSTICK_NOTE}\n\n{yardsticks_md}\n\
             ### Kernel time beside wall time\n\n{KERNEL_TABLE_NOTE}\n\n{kernels_md}\n\
             ### Bounds checking cost\n\n\
             Kernels check every view and array access by default; `#[kernel(amp, unchecked)]` \
             turns the checks off. The same kernel body both ways, timed in alternation, on the \
             Vulkan device and on the native CPU accelerator:\n\n\
             {bounds}\n",
            report.device,
            if cfg.full { " -- --full" } else { "" },
            report.native_device,
            if report.diagnostics.is_empty() {
                String::new()
            } else {
                format!(
                    "Variants measured in the same run to explain the native results:\n\n\
                     {diagnostics}\n"
                )
            },
        );
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/performance.md");
        write_section(&path, &section)?;
        println!("wrote {}", path.display());
        let png = path.with_extension("png");
        match chart::ratio_chart(
            &png,
            &format!("amp vs hand-written GLSL on {}", report.device),
            &report.bars(),
        ) {
            Ok(()) => println!("wrote {}", png.display()),
            Err(e) => eprintln!("no chart: {e}"),
        }
    }
    if let Some(png) = &outputs.chart {
        let title = format!("amp vs hand-written GLSL on {}", report.device);
        chart::ratio_chart(png, &title, &report.bars())?;
        println!("wrote {}", png.display());
    }
    Ok(ok)
}

const BEGIN: &str = "<!-- bench:begin (generated by `cargo run --release -p amp-bench`) -->";
const END: &str = "<!-- bench:end -->";

/// Replaces the marked section of `path` with `section` (creating the file or the markers).
pub fn write_section(path: &Path, section: &str) -> std::io::Result<()> {
    let old = std::fs::read_to_string(path).unwrap_or_else(|_| "# Performance\n\n".into());
    let block = format!("{BEGIN}\n{section}{END}\n");
    let new = match (old.find(BEGIN), old.find(END)) {
        (Some(b), Some(e)) if e > b => format!(
            "{}{block}{}",
            &old[..b],
            &old[e + END.len()..].trim_start_matches('\n')
        ),
        _ => format!("{}\n{block}", old.trim_end()),
    };
    std::fs::write(path, new)
}

/// Writes `dir/bench.md` and `dir/bench.json` for `report` (a run of `cfg`, `elapsed` seconds
/// so far). `partial` names the last section run when more were to come: the GPU kit's runs
/// have a time limit, and a run cut short keeps what it measured.
pub fn write_report_dir(
    report: &Report,
    cfg: &Config,
    elapsed: f64,
    dir: &Path,
    partial: Option<&str>,
) -> Result<(), BoxError> {
    let table = report.table();
    let bounds = bounds_table(&report.bounds);
    let gpu_targets = report.gpu_targets();
    let gpu_targets_md = targets_table(&gpu_targets);
    let kernels_md = report.kernel_table();
    let yardsticks_md = report.yardstick_table();
    let clocks_md = report.clock_table();
    let conditions = match partial {
        Some(section) => format!(
            "**Partial: the run had reached the end of section `{section}`.**\n\n{}",
            report.conditions()
        ),
        None => report.conditions(),
    };
    std::fs::create_dir_all(dir)?;
    let clocks = if clocks_md.is_empty() {
        String::new()
    } else {
        format!(
            "### Clocks\n\n`nvidia-smi --query-gpu={}` before and after each section.\n\n\
             {clocks_md}\n",
            crate::clocks::QUERY
        )
    };
    let tuned_md = report.tuned_table();
    let tuned = if tuned_md.is_empty() {
        String::new()
    } else {
        format!("### Autotuned launch shapes\n\n{TUNED_NOTE}\n\n{tuned_md}\n")
    };
    let md = format!(
        "Device: `{}`; native: `{}`; profile: {}; validation layer: {}; {:.1} s.\n\n\
         {conditions}\n{table}\n\
         ### GPU targets\n\n{gpu_targets_md}\n\
         ### Yardsticks of the memory-bound rows\n\n{YARDSTICK_NOTE}\n\n{yardsticks_md}\n\
         ### Kernel time beside wall time\n\n{KERNEL_TABLE_NOTE}\n\n{kernels_md}\n\
         {tuned}{clocks}\
         ### Bounds checking cost\n\n{bounds}\n\
         ### Checks\n\n{} of {} agree.\n{}{}",
        report.device,
        report.native_device,
        profile_name(cfg),
        if report.validation { "on" } else { "off" },
        elapsed,
        report.checks.iter().filter(|c| c.agree).count(),
        report.checks.len(),
        report
            .checks
            .iter()
            .filter(|c| !c.agree)
            .map(|c| format!("- MISMATCH in {}: {}\n", c.workload, c.detail))
            .collect::<String>(),
        if report.failures.is_empty() {
            String::new()
        } else {
            format!(
                "\n### Failed sections\n\n{}",
                report
                    .failures
                    .iter()
                    .map(|f| format!("- {f}\n"))
                    .collect::<String>()
            )
        },
    );
    std::fs::write(dir.join("bench.md"), md)?;
    std::fs::write(
        dir.join("bench.json"),
        report_json(report, &gpu_targets, cfg, elapsed),
    )?;
    Ok(())
}
