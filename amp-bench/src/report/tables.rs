//! The report's tables in Markdown.

use super::{fmt_time, BoundsCost, Cell, Diagnostic, Report, Target};

impl Report {
    /// The rows with an amp/glslang ratio, labelled for the chart.
    pub fn bars(&self) -> Vec<(String, f64)> {
        self.rows
            .iter()
            .filter_map(|r| {
                let label = r.name.split(" (").next().unwrap_or(&r.name);
                Some((format!("{label}, {}", r.size), r.ratio()?))
            })
            .collect()
    }

    /// The table in Markdown.
    pub fn table(&self) -> String {
        let mut s = String::from(
            "| workload | size | amp | glslang | CPU | native | amp/glslang | native/CPU | \
             amp/native |\n|---|---|---|---|---|---|---|---|---|\n",
        );
        let ratio = |r: Option<f64>| match r {
            Some(x) => format!("{x:.2}"),
            None => "-".into(),
        };
        for r in &self.rows {
            s += &format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.name,
                r.size,
                r.amp.render(),
                r.glsl.render(),
                r.cpu.render(),
                r.native.render(),
                ratio(r.ratio()),
                ratio(r.native_over_cpu()),
                ratio(r.amp_over_native()),
            );
        }
        s
    }

    /// Why rows show "–" in the native column: each distinct reason once, with its rows.
    pub fn native_notes(&self) -> String {
        let mut reasons: Vec<(String, Vec<String>)> = Vec::new();
        for r in &self.rows {
            if let Cell::Unsupported(why) = &r.native {
                match reasons.iter_mut().find(|(w, _)| w == why) {
                    Some((_, rows)) => rows.push(r.name.clone()),
                    None => reasons.push((why.clone(), vec![r.name.clone()])),
                }
            }
        }
        reasons
            .iter()
            .map(|(why, rows)| format!("- {}: {why}\n", rows.join("; ")))
            .collect()
    }
}

/// The diagnostics table in Markdown.
pub fn diagnostics_table(rows: &[Diagnostic]) -> String {
    let mut s = String::from("| workload | size | variant | time |\n|---|---|---|---|\n");
    for d in rows {
        s += &format!(
            "| {} | {} | {} | {} |\n",
            d.workload,
            d.size,
            d.variant,
            fmt_time(d.secs)
        );
    }
    s
}

/// The targets table in Markdown.
pub fn targets_table(targets: &[Target]) -> String {
    let mut s = String::from(
        "| workload | size | measure | target | value | |\n|---|---|---|---|---|---|\n",
    );
    for t in targets {
        let time = t.what.starts_with("first");
        let fmt = |x: f64| {
            if time {
                fmt_time(x)
            } else {
                format!("{x:.2}")
            }
        };
        let value = t.value.map_or("–".into(), fmt);
        let verdict = match t.met() {
            Some(true) => "met",
            Some(false) => "**missed**",
            None => "not measured (no native time)",
        };
        s += &format!(
            "| {} | {} | {} | {} {} | {} | {} |\n",
            t.row,
            t.size,
            t.what,
            t.op,
            fmt(t.limit),
            value,
            verdict
        );
    }
    s
}

/// The bounds-checking cost table in Markdown.
pub fn bounds_table(rows: &[BoundsCost]) -> String {
    let mut s = String::from(
        "| workload | size | checked | unchecked | checked/unchecked | native checked | \
         native unchecked | native checked/unchecked |\n|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let native = match r.native {
            Some((c, u)) => format!("{} | {} | {:.3}", fmt_time(c), fmt_time(u), c / u),
            None => "– | – | –".into(),
        };
        s += &format!(
            "| {} | {} | {} | {} | {:.3} | {native} |\n",
            r.workload,
            r.size,
            fmt_time(r.checked),
            fmt_time(r.unchecked),
            r.ratio()
        );
    }
    s
}
