//! The whole run as JSON (`--report-dir`'s bench.json), through `serde_json`.
//!
//! The layout: `{"device", "native_device", "profile", "validation_layer", "seconds",
//! "warm_up": {"seconds", "dispatches"} | null, "clocks": {"query", "note", "samples":
//! [{"section", "when", "gpus": [[field, ..]]}]}, "yardsticks": [{"name", "bytes", "runs",
//! "median_seconds", "min_seconds", "gb_per_s", "best"}], "rows": [{"workload", "size", "amp",
//! "glslang", "cpu", "native"}], "gpu_targets": [{"row", "measure", "op", "limit", "value",
//! "met"}], "kernel_times": [{"workload", "size", "bytes", "amp_wall_seconds",
//! "amp_kernel_seconds", "amp_kernel_min_seconds", "amp_kernel_runs", "amp_gb_per_s",
//! "amp_of_best_yardstick", and the same six for "glslang_"}], "checks": [{"workload",
//! "agree", "detail"}], "failed_sections": [..]}`. The kernel seconds are medians of the
//! timed runs; `bytes` (read plus written) and the GB/s are those of memory-bound rows only.
//! A cell is `null` (not measured), `{"seconds": s, "rate": "..." | null}`, `{"text": ".."}`
//! or `{"not_run": "why"}`; a number that is absent or not finite is `null`.

use serde::Serialize;

use super::{Cell, KernelStats, Report, Target};
use crate::clocks::QUERY;
use crate::Config;

/// The profile's name in reports.
pub(crate) fn profile_name(cfg: &Config) -> &'static str {
    match (cfg.tiny, cfg.gpu) {
        (true, _) => "tiny",
        (false, true) => "gpu",
        (false, false) => "default",
    }
}

/// A finite number, else `None` (`null`).
fn finite(x: Option<f64>) -> Option<f64> {
    x.filter(|x| x.is_finite())
}

/// One cell (`None`: not measured, `null`).
#[derive(Serialize)]
#[serde(untagged)]
enum JsonCell<'a> {
    Time {
        seconds: Option<f64>,
        rate: Option<&'a str>,
    },
    Text {
        text: &'a str,
    },
    NotRun {
        not_run: &'a str,
    },
}

fn cell(c: &Cell) -> Option<JsonCell<'_>> {
    match c {
        Cell::None => None,
        Cell::Time { secs, rate } => Some(JsonCell::Time {
            seconds: finite(Some(*secs)),
            rate: rate.as_ref().map(|r| r.text.as_str()),
        }),
        Cell::Text(text) => Some(JsonCell::Text { text }),
        Cell::Unsupported(why) => Some(JsonCell::NotRun { not_run: why }),
    }
}

#[derive(Serialize)]
struct JsonRow<'a> {
    workload: &'a str,
    size: &'a str,
    amp: Option<JsonCell<'a>>,
    glslang: Option<JsonCell<'a>>,
    cpu: Option<JsonCell<'a>>,
    native: Option<JsonCell<'a>>,
}

#[derive(Serialize)]
struct JsonTarget<'a> {
    row: &'a str,
    measure: &'a str,
    op: &'a str,
    limit: Option<f64>,
    value: Option<f64>,
    met: Option<bool>,
}

#[derive(Serialize)]
struct JsonKernelTimes<'a> {
    workload: &'a str,
    size: &'a str,
    bytes: Option<f64>,
    amp_wall_seconds: Option<f64>,
    amp_kernel_seconds: Option<f64>,
    amp_kernel_min_seconds: Option<f64>,
    amp_kernel_runs: Option<usize>,
    amp_gb_per_s: Option<f64>,
    amp_of_best_yardstick: Option<f64>,
    glslang_wall_seconds: Option<f64>,
    glslang_kernel_seconds: Option<f64>,
    glslang_kernel_min_seconds: Option<f64>,
    glslang_kernel_runs: Option<usize>,
    glslang_gb_per_s: Option<f64>,
    glslang_of_best_yardstick: Option<f64>,
}

#[derive(Serialize)]
struct JsonYardstick<'a> {
    name: &'a str,
    /// Bytes of one buffer; the copy reads and writes them.
    bytes: f64,
    runs: usize,
    median_seconds: Option<f64>,
    min_seconds: Option<f64>,
    gb_per_s: Option<f64>,
    best: bool,
}

#[derive(Serialize)]
struct JsonWarmUp {
    seconds: Option<f64>,
    dispatches: usize,
}

#[derive(Serialize)]
struct JsonClockSample<'a> {
    section: &'a str,
    when: &'a str,
    gpus: &'a [Vec<String>],
}

#[derive(Serialize)]
struct JsonClocks<'a> {
    query: &'a str,
    note: Option<&'a str>,
    samples: Vec<JsonClockSample<'a>>,
}

#[derive(Serialize)]
struct JsonCheck<'a> {
    workload: &'a str,
    agree: bool,
    detail: &'a str,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    device: &'a str,
    native_device: &'a str,
    profile: &'a str,
    validation_layer: bool,
    seconds: Option<f64>,
    warm_up: Option<JsonWarmUp>,
    clocks: JsonClocks<'a>,
    yardsticks: Vec<JsonYardstick<'a>>,
    rows: Vec<JsonRow<'a>>,
    gpu_targets: Vec<JsonTarget<'a>>,
    kernel_times: Vec<JsonKernelTimes<'a>>,
    checks: Vec<JsonCheck<'a>>,
    failed_sections: &'a [String],
}

/// The whole run as JSON: device, rows, GPU targets, kernel times, checks, failed sections.
pub(crate) fn report_json(
    report: &Report,
    targets: &[Target],
    cfg: &Config,
    elapsed: f64,
) -> String {
    let json = JsonReport {
        device: &report.device,
        native_device: &report.native_device,
        profile: profile_name(cfg),
        validation_layer: report.validation,
        seconds: finite(Some(elapsed)),
        warm_up: report.warm_up.as_ref().map(|w| JsonWarmUp {
            seconds: finite(Some(w.seconds)),
            dispatches: w.dispatches,
        }),
        clocks: JsonClocks {
            query: QUERY,
            note: report.clocks.note.as_deref(),
            samples: report
                .clocks
                .samples
                .iter()
                .map(|c| JsonClockSample {
                    section: &c.section,
                    when: &c.when,
                    gpus: &c.gpus,
                })
                .collect(),
        },
        yardsticks: report
            .yardsticks
            .iter()
            .map(|y| JsonYardstick {
                name: &y.name,
                bytes: y.bytes,
                runs: y.stats.samples,
                median_seconds: finite(Some(y.stats.median)),
                min_seconds: finite(Some(y.stats.min)),
                gb_per_s: finite(Some(y.gb_per_s())),
                best: report.best_yardstick().map(|b| b.name.as_str()) == Some(y.name.as_str()),
            })
            .collect(),
        rows: report
            .rows
            .iter()
            .map(|r| JsonRow {
                workload: &r.name,
                size: &r.size,
                amp: cell(&r.amp),
                glslang: cell(&r.glsl),
                cpu: cell(&r.cpu),
                native: cell(&r.native),
            })
            .collect(),
        gpu_targets: targets
            .iter()
            .map(|t| JsonTarget {
                row: &t.row,
                measure: &t.what,
                op: t.op,
                limit: finite(Some(t.limit)),
                value: finite(t.value),
                met: t.met(),
            })
            .collect(),
        kernel_times: report
            .kernel_rows
            .iter()
            .map(|k| {
                let r = &report.rows[k.row];
                let (amp, glsl) = (k.amp_kernel.as_ref(), k.glsl_kernel.as_ref());
                let median = |s: Option<&KernelStats>| finite(s.map(|s| s.median));
                let min = |s: Option<&KernelStats>| finite(s.map(|s| s.min));
                JsonKernelTimes {
                    workload: &r.name,
                    size: &r.size,
                    bytes: r.amp.work().or(r.glsl.work()).and_then(|w| w.bytes()),
                    amp_wall_seconds: finite(r.amp.secs()),
                    amp_kernel_seconds: median(amp),
                    amp_kernel_min_seconds: min(amp),
                    amp_kernel_runs: amp.map(|s| s.samples),
                    amp_gb_per_s: finite(Report::kernel_gb_per_s(&r.amp, amp)),
                    amp_of_best_yardstick: finite(report.of_best_yardstick(&r.amp, amp)),
                    glslang_wall_seconds: finite(r.glsl.secs()),
                    glslang_kernel_seconds: median(glsl),
                    glslang_kernel_min_seconds: min(glsl),
                    glslang_kernel_runs: glsl.map(|s| s.samples),
                    glslang_gb_per_s: finite(Report::kernel_gb_per_s(&r.glsl, glsl)),
                    glslang_of_best_yardstick: finite(report.of_best_yardstick(&r.glsl, glsl)),
                }
            })
            .collect(),
        checks: report
            .checks
            .iter()
            .map(|c| JsonCheck {
                workload: &c.workload,
                agree: c.agree,
                detail: &c.detail,
            })
            .collect(),
        failed_sections: &report.failures,
    };
    let mut text = serde_json::to_string_pretty(&json).expect("the report serializes");
    text.push('\n');
    text
}
