//! How the device was measured, in Markdown: the conditions of the run (validation layer,
//! warm-up, clocks), the yardsticks of the memory-bound rows, and each row's kernel time
//! (median of repeated timestamped runs) with its bandwidth against the best yardstick.

use super::{fmt_time, Cell, KernelStats, Report};
use crate::clocks::COLUMNS;

impl Report {
    /// The GB/s of a memory-bound cell (one whose rate counts bytes read and written) by the
    /// median kernel time `k`.
    pub fn kernel_gb_per_s(cell: &Cell, k: Option<&KernelStats>) -> Option<f64> {
        let k = k.filter(|k| k.median > 0.0)?;
        Some(cell.work()?.bytes()? / k.median / 1e9)
    }

    /// [`Report::kernel_gb_per_s`] over the best yardstick's GB/s.
    pub fn of_best_yardstick(&self, cell: &Cell, k: Option<&KernelStats>) -> Option<f64> {
        Some(Self::kernel_gb_per_s(cell, k)? / self.best_yardstick()?.gb_per_s())
    }

    /// One paragraph on the run's conditions: the validation layer, the warm-up, the clock
    /// log's state.
    pub fn conditions(&self) -> String {
        let mut s = format!(
            "Vulkan validation layer: **{}** for this run{}.",
            if self.validation { "on" } else { "off" },
            if self.validation {
                " (it adds host time to every launch; time without it)"
            } else {
                ""
            }
        );
        if let Some(w) = &self.warm_up {
            s += &format!(
                " Warm-up before the timed sections: {} dispatches of the `uvec4` copy kernel \
                 in {:.2} s.",
                w.dispatches, w.seconds
            );
        }
        if let Some(note) = &self.clocks.note {
            s += &format!(" Clocks: {note}.");
        }
        s.push('\n');
        s
    }

    /// The yardstick table in Markdown.
    pub fn yardstick_table(&self) -> String {
        let mut s = String::from(
            "| yardstick | bytes read + written | kernel time: median (fastest, runs) | GB/s by \
             median |\n|---|---|---|---|\n",
        );
        let best = self.best_yardstick().map(|b| b.name.as_str());
        for y in &self.yardsticks {
            s += &format!(
                "| {}{} | 2 x {} | {} | {:.2} |\n",
                y.name,
                if Some(y.name.as_str()) == best {
                    " (best)"
                } else {
                    ""
                },
                binary_size(y.bytes),
                stats(Some(&y.stats)),
                y.gb_per_s(),
            );
        }
        s
    }

    /// The autotuned launch shapes in Markdown: per kernel and size class the shape chosen,
    /// its time against the default shape's (the shortest of each one's tries, by device
    /// timestamps), and every shape tried; empty when nothing was tuned.
    pub fn tuned_table(&self) -> String {
        if self.tuned.is_empty() {
            return String::new();
        }
        let shape = |s: &amp::LaunchShape| format!("{} x {}", s.workgroup_size, s.items_per_thread);
        let time = |t: Option<f64>| t.map_or("-".to_owned(), fmt_time);
        let mut s = String::from(
            "| kernel | indices | chosen (threads x indices) | its time | default's time | chosen/default | tried |
|---|---|---|---|---|---|---|
",
        );
        for t in &self.tuned {
            let chosen = t.chosen.as_ref().map_or("tuning".to_owned(), shape);
            let of = |want: Option<amp::LaunchShape>| {
                t.tried
                    .iter()
                    .find(|s| Some(s.shape) == want)
                    .and_then(|s| s.seconds)
            };
            let (chosen_t, default_t) = (of(t.chosen), t.tried.first().and_then(|s| s.seconds));
            let ratio = match (chosen_t, default_t) {
                (Some(c), Some(d)) if d > 0.0 => format!("{:.2}", c / d),
                _ => "-".to_owned(),
            };
            let tried = if t.from_file {
                "(read from the tuning file)".to_owned()
            } else {
                t.tried
                    .iter()
                    .map(|s| format!("{} {}", shape(&s.shape), time(s.seconds)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            s += &format!(
                "| {} | 2^{} | {chosen} | {} | {} | {ratio} | {tried} |\n",
                t.kernel,
                t.indices.ilog2(),
                time(chosen_t),
                time(default_t),
            );
        }
        s
    }

    /// The clock log in Markdown: one line per sample and GPU; empty without samples.
    pub fn clock_table(&self) -> String {
        if self.clocks.samples.is_empty() {
            return String::new();
        }
        let mut s = format!(
            "| section | when | {} |\n|---|---|{}\n",
            COLUMNS.join(" | "),
            "---|".repeat(COLUMNS.len())
        );
        for c in &self.clocks.samples {
            for gpu in &c.gpus {
                s += &format!("| {} | {} | {} |\n", c.section, c.when, gpu.join(" | "));
            }
        }
        s
    }

    /// The kernel-time table in Markdown: each row's wall times beside its kernel times
    /// (median of repeated runs, fastest, runs), the rate by the median kernel time, and for
    /// memory-bound rows that rate over the best yardstick's.
    pub fn kernel_table(&self) -> String {
        let mut s = String::from(
            "| workload | size | amp wall | amp kernel: median (fastest, runs) | amp rate by \
             kernel time | amp / best yardstick | glslang wall | glslang kernel: median \
             (fastest, runs) | glslang rate by kernel time | glslang / best yardstick \
             |\n|---|---|---|---|---|---|---|---|---|---|\n",
        );
        let t = |x: Option<f64>| x.map_or("-".into(), fmt_time);
        let rate = |cell: &Cell, k: Option<&KernelStats>| match (cell.work(), k) {
            (Some(work), Some(k)) if k.median > 0.0 => work.rate(k.median),
            _ => "-".into(),
        };
        // Two decimals, four below 0.1 (a CPU driver's rows against its own copy).
        let ratio = |x: Option<f64>| {
            x.map_or("-".into(), |x| {
                if x < 0.1 {
                    format!("{x:.4}")
                } else {
                    format!("{x:.2}")
                }
            })
        };
        for k in &self.kernel_rows {
            let r = &self.rows[k.row];
            let (amp, glsl) = (k.amp_kernel.as_ref(), k.glsl_kernel.as_ref());
            s += &format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.name,
                r.size,
                t(r.amp.secs()),
                stats(amp),
                rate(&r.amp, amp),
                ratio(self.of_best_yardstick(&r.amp, amp)),
                t(r.glsl.secs()),
                stats(glsl),
                rate(&r.glsl, glsl),
                ratio(self.of_best_yardstick(&r.glsl, glsl)),
            );
        }
        s
    }
}

/// `1 GiB`, `256 KiB`.
fn binary_size(bytes: f64) -> String {
    let (value, unit) = [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")]
        .into_iter()
        .map(|(scale, unit)| (bytes / scale as f64, unit))
        .find(|(value, _)| *value >= 1.0)
        .unwrap_or((bytes, "B"));
    format!("{value} {unit}")
}

/// `1.20 ms (1.18 ms, 10)`, or `-`.
fn stats(k: Option<&KernelStats>) -> String {
    k.map_or("-".into(), |k| {
        format!(
            "{} ({}, {})",
            fmt_time(k.median),
            fmt_time(k.min),
            k.samples
        )
    })
}

/// What the kernel-time table is, for the reports.
pub(crate) const KERNEL_TABLE_NOTE: &str = "Device time from timestamp queries around each \
    dispatch, a run's launches summed: the median of up to 10 timed runs (at least 10 in the GPU \
    profile, 3 for a run over half a second), the fastest run and the number of runs beside it, \
    next to the row's median wall time (the difference is what the launches cost on the host). \
    The rate is the row's work over the median kernel time; for memory-bound rows (GB/s: bytes \
    read plus bytes written) the next column divides it by the best yardstick's GB/s.";

/// What the yardstick table is, for the reports.
pub(crate) const YARDSTICK_NOTE: &str = "The same bytes as the copy row, copied on the same \
    device with nothing of amp-rs in between (raw `ash`, a device of its own, buffers in \
    device-local memory): the driver's `vkCmdCopyBuffer`, a hand-written GLSL `uvec4` \
    grid-stride copy kernel and the same kernel with `uint` accesses, each timed with timestamp queries around each of 10 dispatches \
    after an untimed one, and checked word for word on the device. GB/s counts the bytes read \
    plus the bytes written.";

/// What the autotuned launch shapes table shows.
pub(crate) const TUNED_NOTE: &str = "The Vulkan device's autotuner (`AMP_AUTOTUNE`, on by \
    default for GPUs): for each simple kernel launched over 2^20 indices or more, per size class, the \
    first launches tried each shape twice in turn, the device's default first, and the \
    shape with the shortest try runs the later launches. Times are the shortest try of each \
    shape by device timestamps, during the run's own launches (warm-ups included).";
