//! The benchmark (the `amp_bench` library) at its tiny size: every workload runs once through the
//! amp kernel, the hand-written GLSL (compiled by `glslangValidator`), the CPU and the amp kernel
//! on the native CPU accelerator, and the results must agree. Timings are not checked.

use amp_bench as bench;

/// The benchmark times launches on the process's default view, with profiling switched on and
/// off around them: two runs at once in this process would take each other's kernel times.
static ONE_RUN_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_run_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_RUN_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[test]
fn every_workload_agrees_at_tiny_size() {
    let _one = one_run_at_a_time();
    let report = bench::run(&bench::Config::tiny()).expect("the benchmark runs");
    assert!(report.checks.len() >= 14, "{} checks", report.checks.len());
    let failed: Vec<String> = report
        .checks
        .iter()
        .filter(|c| !c.agree)
        .map(|c| format!("{}: {}", c.workload, c.detail))
        .collect();
    assert!(failed.is_empty(), "results differ:\n{}", failed.join("\n"));
    assert!(
        report.failures.is_empty(),
        "sections failed:\n{}",
        report.failures.join("\n")
    );
    // Device time from timestamp queries beside the wall time of the rows that launch.
    assert!(
        report
            .kernel_rows
            .iter()
            .any(|k| report.rows[k.row].name == "vector add"
                && k.amp_kernel.is_some_and(|s| s > 0.0)),
        "{:?}",
        report.kernel_rows
    );
    // The amp and glslang columns ran on a Vulkan device, the native column on the native CPU
    // accelerator.
    assert!(
        !report.device.starts_with("native CPU"),
        "{}",
        report.device
    );
    assert!(report.native_device.starts_with("native CPU"));
    // The native column ran and was checked against the CPU wherever it is supported: the
    // kernels every native back end translates at least (plain indices, scalars, arrays) ...
    let native_checked = |w: &str| {
        report
            .checks
            .iter()
            .any(|c| c.workload == format!("{w} (native)"))
    };
    for w in [
        "first launch",
        "vector add",
        "saxpy",
        "matmul simple 64",
        "launch chain",
        "transfers",
    ] {
        assert!(native_checked(w), "no native check of {w}");
    }
    // ... and every row with a native time has its check; rows without one say why ("–").
    for r in &report.rows {
        match &r.native {
            bench::Cell::Unsupported(why) => assert!(!why.is_empty(), "{}", r.name),
            bench::Cell::Time { secs, .. } => assert!(secs.is_finite(), "{}", r.name),
            _ => {}
        }
    }
    let timed_workloads = report
        .rows
        .iter()
        .filter(|r| r.native_over_cpu().is_some())
        .count();
    assert!(
        timed_workloads >= 3,
        "{timed_workloads} native workload rows"
    );
    // The targets cover every workload row, and the notes name every "–" row.
    let targets = report.targets();
    assert!(targets
        .iter()
        .any(|t| t.what == "native/CPU" && t.met().is_some()));
    assert!(targets.iter().any(|t| t.what == "first native launch"));
    assert_eq!(
        bench::targets_table(&targets).lines().count(),
        targets.len() + 2
    );
    let notes = report.native_notes();
    for r in &report.rows {
        if matches!(r.native, bench::Cell::Unsupported(_)) {
            assert!(notes.contains(&r.name), "no note for {}", r.name);
        }
    }
    // Every row renders, and the table has one line per row plus the header.
    let table = report.table();
    assert_eq!(table.lines().count(), report.rows.len() + 2);
    // The bounds-checking cost table: both matrix products, vector add, the tree reduction,
    // the histogram, the tile scan and the two stencils (offset indices), both ways.
    assert_eq!(report.bounds.len(), 8);
    assert!(report.bounds.iter().all(|b| b.ratio().is_finite()));
    assert_eq!(bench::bounds_table(&report.bounds).lines().count(), 10);
    // ... natively too, where the native back end runs the kernels (vector add and the simple
    // product at least).
    let native_bounds = report.bounds.iter().filter(|b| b.native.is_some()).count();
    assert!(native_bounds >= 2, "{native_bounds} native bounds rows");
    // The chart draws: a PNG with one bar per row that has a ratio.
    let bars = report.bars();
    assert!(bars.len() >= 14, "{} bars", bars.len());
    let png = std::env::temp_dir().join(format!("amp-bench-chart-{}.png", std::process::id()));
    bench::chart::ratio_chart(&png, "smoke", &bars).expect("the chart draws");
    let bytes = std::fs::read(&png).expect("the chart was written");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let _ = std::fs::remove_file(png);
}

/// The counting mode of `--instructions` (what each callgrind child runs): one side of one
/// pair, a fixed number of times; every pair of the section is still named, in order.
#[test]
fn counting_children_run_one_side_of_one_pair() {
    let _one = one_run_at_a_time();
    for side in [
        bench::instructions::Side::Amp,
        bench::instructions::Side::Glsl,
    ] {
        let cfg = bench::Config {
            only: Some("vector".into()),
            count: Some(bench::instructions::CountRun {
                pair: 1,
                side,
                reps: 2,
            }),
            ..bench::Config::tiny()
        };
        let report = bench::run(&cfg).expect("the counting run works");
        let names: Vec<&str> = report.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "vector add",
                "saxpy (z = a*x + y)",
                "copy (out = a; the device's copy-kernel bandwidth)",
                "vector add, arrays in device-local memory (`AccessType::None`)"
            ]
        );
        assert!(report.checks.is_empty() && report.bounds.is_empty());
    }
    let args: Vec<String> = [
        "--count-pair",
        "3",
        "--count-side",
        "glsl",
        "--count-reps",
        "5",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let run = bench::cli::Cli::parse(&args)
        .expect("valid flags")
        .count
        .expect("counting");
    assert_eq!(
        (run.pair, run.side, run.reps),
        (3, bench::instructions::Side::Glsl, 5)
    );
    assert!(bench::cli::Cli::parse(Vec::<String>::new())
        .unwrap()
        .count
        .is_none());
    // Every flag of `--help`, with its value; an unknown flag and a malformed number are
    // errors that name them.
    let cli = bench::cli::Cli::parse([
        "--tiny",
        "--full",
        "--gpu",
        "--native",
        "--max-buffer-mib",
        "3",
        "--reps",
        "2",
        "--only",
        "vector",
        "--no-write",
        "--report-dir",
        "out",
        "--chart",
        "c.png",
    ])
    .expect("valid flags");
    assert!(cli.tiny && cli.full && cli.gpu && cli.native && cli.no_write && !cli.help);
    assert_eq!(cli.max_buffer_bytes, Some(3 << 20));
    assert_eq!((cli.reps, cli.only.as_deref()), (Some(2), Some("vector")));
    assert_eq!(cli.report_dir.as_deref(), Some(std::path::Path::new("out")));
    let unknown = bench::cli::Cli::parse(["--bogus"]).unwrap_err().to_string();
    assert!(unknown.contains("--bogus"), "{unknown}");
    let bad = bench::cli::Cli::parse(["--reps", "x"])
        .unwrap_err()
        .to_string();
    assert!(bad.contains("--reps"), "{bad}");
}

/// The GPU profile, shrunk to this device's size with `max_buffer_bytes`: its extra rows (the
/// copy-kernel yardstick, the device-local placement) run and agree, and the GPU targets are
/// judged from them.
#[test]
fn the_gpu_profile_runs_at_a_small_size() {
    let _one = one_run_at_a_time();
    let cfg = bench::Config {
        tiny: false,
        gpu: true,
        native: false,
        max_buffer_bytes: 1 << 20,
        only: Some("vector".into()),
        ..bench::Config::tiny()
    };
    let report = bench::run(&cfg).expect("the benchmark runs");
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    assert!(report.checks.iter().all(|c| c.agree), "{:?}", report.checks);
    assert!(
        report.rows.iter().all(|r| r.size == "256K f32"),
        "{:?}",
        report.rows
    );
    let targets = report.gpu_targets();
    assert!(
        targets
            .iter()
            .any(|t| t.row.starts_with("copy") && t.value.is_some()),
        "{targets:?}"
    );
}
