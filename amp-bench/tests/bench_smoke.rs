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
    // Device time from timestamp queries beside the wall time of the rows that launch: the
    // median of the timed runs, the fastest no slower.
    assert!(
        report
            .kernel_rows
            .iter()
            .any(|k| report.rows[k.row].name == "vector add"
                && k.amp_kernel
                    .is_some_and(|s| s.median > 0.0 && s.min <= s.median && s.samples >= 1)),
        "{:?}",
        report.kernel_rows
    );
    assert_eq!(
        report.kernel_table().lines().count(),
        report.kernel_rows.len() + 2
    );
    // The yardsticks of the memory-bound rows: the driver's buffer copy, the `uvec4` copy
    // kernel and its two `uint` forms over the copy row's bytes, 10 timed dispatches each,
    // their copies checked on the device (and, under the validation layer, reported clean).
    assert_eq!(report.yardsticks.len(), 4, "{:?}", report.yardsticks);
    for y in &report.yardsticks {
        assert_eq!((y.stats.samples, y.bytes), (10, 4.0 * 65536.0), "{y:?}");
        assert!(y.gb_per_s().is_finite() && y.gb_per_s() > 0.0, "{y:?}");
        let name = format!("yardstick: {}", y.name);
        assert!(report.checks.iter().any(|c| c.workload == name), "{name}");
    }
    assert!(report.yardstick_table().contains("(best)"));
    // Memory-bound rows are set against the best of them; other rows are not.
    for k in &report.kernel_rows {
        let r = &report.rows[k.row];
        let of_best = report.of_best_yardstick(&r.amp, k.amp_kernel.as_ref());
        let memory_bound = r.amp.work().and_then(|w| w.bytes()).is_some();
        assert_eq!(
            of_best.is_some(),
            memory_bound && k.amp_kernel.is_some(),
            "{}",
            r.name
        );
        assert!(
            of_best.is_none_or(|x| x.is_finite() && x > 0.0),
            "{}",
            r.name
        );
    }
    // The validation layer's state is the run's; no warm-up or clocks outside the GPU profile.
    assert_eq!(report.validation, amp::validation_enabled());
    assert!(report.conditions().contains(if report.validation {
        "**on**"
    } else {
        "**off**"
    }));
    assert!(report.warm_up.is_none() && report.clocks.samples.is_empty());
    assert!(report.clocks.note.is_none());
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
    // the histogram, the tile scan, the three grid stencils and the LU update (offset
    // indices), both ways.
    assert_eq!(report.bounds.len(), 10);
    assert!(report.bounds.iter().all(|b| b.ratio().is_finite()));
    assert_eq!(bench::bounds_table(&report.bounds).lines().count(), 12);
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
                "vector add, arrays in device-local memory (`AccessType::None`)",
                "vector add, 2-D (rows of 4,093; GLSL: the same elements in 1-D)",
                "u8 threshold (bytes in, bytes out)"
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
/// copy kernel, the device-local placement) run and agree, the device is warmed up first, the
/// clocks are logged (or the report says why not), kernel times are medians of at least 10
/// runs, the GPU targets are judged against the best yardstick, and the report folder says all
/// of it.
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
        report
            .rows
            .iter()
            .all(|r| r.size == "256K f32" || r.size == "256K u8" || r.size == "64 x 4093 f32"),
        "{:?}",
        report.rows
    );
    let warm = report.warm_up.as_ref().expect("the GPU profile warms up");
    assert!(warm.seconds >= 1.0 && warm.dispatches > 0, "{warm:?}");
    // nvidia-smi's clocks before and after each section, or one note saying why there are none.
    match &report.clocks.note {
        Some(note) => assert!(
            note.contains("nvidia-smi") && report.clocks.samples.is_empty(),
            "{note}"
        ),
        None => {
            let sections: Vec<&str> = report
                .clocks
                .samples
                .iter()
                .map(|c| c.section.as_str())
                .collect();
            for s in ["first", "warm-up", "yardsticks", "vector"] {
                assert!(sections.contains(&s), "{sections:?}");
            }
            assert!(report.clocks.samples.iter().all(|c| !c.gpus.is_empty()));
        }
    }
    assert_eq!(report.yardsticks.len(), 4);
    assert!(report
        .yardsticks
        .iter()
        .all(|y| y.bytes == f64::from(1 << 20)));
    assert!(!report.kernel_rows.is_empty());
    for k in &report.kernel_rows {
        for s in [k.amp_kernel, k.glsl_kernel].into_iter().flatten() {
            assert!(s.samples >= 10, "{k:?}");
        }
    }
    let targets = report.gpu_targets();
    assert!(
        targets.iter().any(|t| t.row.starts_with("copy")
            && t.what.contains("best yardstick")
            && t.value.is_some()),
        "{targets:?}"
    );
    // The report folder: the tables, and every new fact in the JSON.
    let dir = std::env::temp_dir().join(format!("amp-bench-gpu-{}", std::process::id()));
    let outputs = bench::Outputs {
        report_dir: Some(dir.clone()),
        write_docs: false,
        chart: None,
    };
    assert!(bench::publish(&report, &cfg, std::time::Instant::now(), &outputs).unwrap());
    let md = std::fs::read_to_string(dir.join("bench.md")).unwrap();
    for part in [
        "validation layer:",
        "Warm-up before the timed sections",
        "### Yardsticks of the memory-bound rows",
        "amp / best yardstick",
    ] {
        assert!(md.contains(part), "no {part:?} in bench.md");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("bench.json")).unwrap()).unwrap();
    assert_eq!(json["profile"], "gpu");
    assert_eq!(json["validation_layer"], report.validation);
    assert!(json["warm_up"]["dispatches"].as_u64().unwrap() > 0);
    assert_eq!(json["yardsticks"].as_array().unwrap().len(), 4);
    assert!(json["clocks"]["note"].is_string() || !json["clocks"]["samples"][0].is_null());
    let copy = json["kernel_times"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["workload"].as_str().unwrap().starts_with("copy"))
        .expect("the copy row's kernel times");
    assert!(copy["amp_kernel_runs"].as_u64().unwrap() >= 10);
    assert!(copy["amp_of_best_yardstick"].as_f64().unwrap() > 0.0);
    assert_eq!(copy["bytes"].as_f64(), Some(2.0 * f64::from(1 << 20)));
    let _ = std::fs::remove_dir_all(dir);
}
