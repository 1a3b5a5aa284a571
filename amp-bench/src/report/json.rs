//! The whole run as JSON (`--report-dir`'s bench.json), through `serde_json`.
//!
//! The layout: `{"device", "native_device", "profile", "seconds", "rows": [{"workload", "size",
//! "amp", "glslang", "cpu", "native"}], "gpu_targets": [{"row", "measure", "op", "limit",
//! "value", "met"}], "kernel_times": [{"workload", "size", "amp_wall_seconds",
//! "amp_kernel_seconds", "glslang_wall_seconds", "glslang_kernel_seconds"}], "checks":
//! [{"workload", "agree", "detail"}], "failed_sections": [..]}`. A cell is `null` (not
//! measured), `{"seconds": s, "rate": "..." | null}`, `{"text": ".."}` or `{"not_run": "why"}`;
//! a number that is absent or not finite is `null`.

use serde::Serialize;

use super::{Cell, Report, Target};
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
            rate: rate.as_deref(),
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
    amp_wall_seconds: Option<f64>,
    amp_kernel_seconds: Option<f64>,
    glslang_wall_seconds: Option<f64>,
    glslang_kernel_seconds: Option<f64>,
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
    seconds: Option<f64>,
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
        seconds: finite(Some(elapsed)),
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
                JsonKernelTimes {
                    workload: &r.name,
                    size: &r.size,
                    amp_wall_seconds: finite(r.amp.secs()),
                    amp_kernel_seconds: finite(k.amp_kernel),
                    glslang_wall_seconds: finite(r.glsl.secs()),
                    glslang_kernel_seconds: finite(k.glsl_kernel),
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
