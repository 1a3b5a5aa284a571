//! The whole run as JSON (`--report-dir`'s bench.json).

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

/// `s` as a JSON string literal.
fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A number as JSON (`null` when absent or not finite).
fn json_num(x: Option<f64>) -> String {
    match x {
        Some(x) if x.is_finite() => format!("{x:e}"),
        _ => "null".into(),
    }
}

/// One cell as JSON: `{"seconds": s, "rate": "..."}`, a string, or `null`.
fn json_cell(c: &Cell) -> String {
    match c {
        Cell::None => "null".into(),
        Cell::Unsupported(why) => format!("{{\"not_run\": {}}}", json_str(why)),
        Cell::Text(t) => format!("{{\"text\": {}}}", json_str(t)),
        Cell::Time { secs, rate } => format!(
            "{{\"seconds\": {}, \"rate\": {}}}",
            json_num(Some(*secs)),
            rate.as_deref().map_or("null".into(), json_str)
        ),
    }
}

/// A JSON object of already-encoded values, on one line.
fn json_obj(fields: &[(&str, String)]) -> String {
    let body: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{}: {v}", json_str(k)))
        .collect();
    format!("{{{}}}", body.join(", "))
}

/// A JSON array of already-encoded values, one per line.
fn json_list(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.map(|i| format!("    {i}")).collect();
    format!("[\n{}\n  ]", items.join(",\n"))
}

/// The whole run as JSON: device, rows, GPU targets, kernel times, checks, failed sections.
pub(crate) fn report_json(
    report: &Report,
    targets: &[Target],
    cfg: &Config,
    elapsed: f64,
) -> String {
    let rows = json_list(report.rows.iter().map(|r| {
        json_obj(&[
            ("workload", json_str(&r.name)),
            ("size", json_str(&r.size)),
            ("amp", json_cell(&r.amp)),
            ("glslang", json_cell(&r.glsl)),
            ("cpu", json_cell(&r.cpu)),
            ("native", json_cell(&r.native)),
        ])
    }));
    let targets = json_list(targets.iter().map(|t| {
        json_obj(&[
            ("row", json_str(&t.row)),
            ("measure", json_str(&t.what)),
            ("op", json_str(t.op)),
            ("limit", json_num(Some(t.limit))),
            ("value", json_num(t.value)),
            ("met", t.met().map_or("null".into(), |m| m.to_string())),
        ])
    }));
    let kernels = json_list(report.kernel_rows.iter().map(|k| {
        let r = &report.rows[k.row];
        json_obj(&[
            ("workload", json_str(&r.name)),
            ("size", json_str(&r.size)),
            ("amp_wall_seconds", json_num(r.amp.secs())),
            ("amp_kernel_seconds", json_num(k.amp_kernel)),
            ("glslang_wall_seconds", json_num(r.glsl.secs())),
            ("glslang_kernel_seconds", json_num(k.glsl_kernel)),
        ])
    }));
    let checks = json_list(report.checks.iter().map(|c| {
        json_obj(&[
            ("workload", json_str(&c.workload)),
            ("agree", c.agree.to_string()),
            ("detail", json_str(&c.detail)),
        ])
    }));
    let failed: Vec<String> = report.failures.iter().map(|f| json_str(f)).collect();
    let top = [
        ("device", json_str(&report.device)),
        ("native_device", json_str(&report.native_device)),
        ("profile", json_str(profile_name(cfg))),
        ("seconds", json_num(Some(elapsed))),
        ("rows", rows),
        ("gpu_targets", targets),
        ("kernel_times", kernels),
        ("checks", checks),
        ("failed_sections", format!("[{}]", failed.join(", "))),
    ];
    let body: Vec<String> = top
        .iter()
        .map(|(k, v)| format!("  {}: {v}", json_str(k)))
        .collect();
    format!("{{\n{}\n}}\n", body.join(",\n"))
}
