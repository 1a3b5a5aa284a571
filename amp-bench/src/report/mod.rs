//! The report of a run: its rows (one per workload and implementation), the agreement checks,
//! the diagnostics and the bounds-checking cost, and how they are written (Markdown tables,
//! JSON, targets, the chart, docs/performance.md).

pub mod chart;
mod json;
mod measurement;
mod publish;
mod rows;
mod tables;
mod targets;

pub use publish::{publish, write_report_dir, write_section, Outputs};
pub(crate) use rows::{check, check_native, native_cell, timed, workload_row};
pub use rows::{Rate, Work};
pub use tables::{bounds_table, diagnostics_table, targets_table};
pub use targets::Target;
pub(crate) use targets::{COPY_ROW, PLACED_ROW};

/// One cell of the table.
#[derive(Clone, Debug)]
pub enum Cell {
    /// Not measured.
    None,
    /// A median time in seconds and, where meaningful, a rate.
    Time { secs: f64, rate: Option<Rate> },
    /// Free text.
    Text(String),
    /// Not run: the native CPU accelerator cannot launch the kernel yet (the reason, from
    /// `amp::Error::NativeUnsupported`). Renders as "–"; the reasons become notes.
    Unsupported(String),
}

impl Cell {
    /// The median time of a timed cell.
    pub fn secs(&self) -> Option<f64> {
        match self {
            Cell::Time { secs, .. } => Some(*secs),
            _ => None,
        }
    }

    pub(crate) fn render(&self) -> String {
        match self {
            Cell::None => "-".into(),
            Cell::Unsupported(_) => "–".into(),
            Cell::Text(s) => s.clone(),
            Cell::Time { secs, rate } => match rate {
                Some(r) => format!("{} ({})", fmt_time(*secs), r.text),
                None => fmt_time(*secs),
            },
        }
    }
}

/// One row: a workload and its implementations.
#[derive(Clone, Debug)]
pub struct Row {
    pub name: String,
    pub size: String,
    /// The amp kernel on the Vulkan device.
    pub amp: Cell,
    /// Hand-written GLSL on the same Vulkan device.
    pub glsl: Cell,
    /// Plain Rust (rayon where it parallelises).
    pub cpu: Cell,
    /// The same amp kernel on the native CPU accelerator (`Accelerator::cpu()`).
    pub native: Cell,
}

impl Row {
    /// amp time over glslang time.
    pub fn ratio(&self) -> Option<f64> {
        Some(self.amp.secs()? / self.glsl.secs()?)
    }

    /// Native time over the plain Rust/rayon time (below 1: the native kernel is faster).
    pub fn native_over_cpu(&self) -> Option<f64> {
        Some(self.native.secs()? / self.cpu.secs()?)
    }

    /// amp (Vulkan device) time over native time: how many times faster native runs.
    pub fn amp_over_native(&self) -> Option<f64> {
        Some(self.amp.secs()? / self.native.secs()?)
    }
}

/// Whether the three results of a workload agree.
#[derive(Clone, Debug)]
pub struct Check {
    pub workload: String,
    pub agree: bool,
    pub detail: String,
}

/// Everything one run of the benchmark measured.
#[derive(Clone, Debug)]
pub struct Report {
    pub device: String,
    /// Whether the Vulkan device is a CPU driver (lavapipe): the 10x targets apply.
    pub device_is_cpu_driver: bool,
    /// The native CPU accelerator's name.
    pub native_device: String,
    pub rows: Vec<Row>,
    pub checks: Vec<Check>,
    /// What bounds checking costs: the same kernels checked (the default) and `unchecked`.
    pub bounds: Vec<BoundsCost>,
    /// Variants of workloads that explain the native column's results.
    pub diagnostics: Vec<Diagnostic>,
    /// Sections that failed with an error (`section: error`); the run goes on without them.
    pub failures: Vec<String>,
    /// Device (timestamp) time beside wall time for the rows that launched on the device.
    pub kernel_rows: Vec<KernelRow>,
    /// Whether the Vulkan validation layer was on for the run (it costs host time per launch).
    pub validation: bool,
    /// The memory-bound rows' yardsticks: the driver's buffer copy and a hand-written
    /// `uvec4` copy kernel, timed with timestamp queries on the same device.
    pub yardsticks: Vec<Yardstick>,
    /// The GPU profile's warm-up before its timed sections.
    pub warm_up: Option<WarmUp>,
    /// The GPU's clocks before and after each section (the GPU profile, where `nvidia-smi` is
    /// present).
    pub clocks: ClockLog,
    /// The launch shapes the Vulkan device's autotuner chose for simple kernels during the run.
    pub tuned: Vec<amp::TunedShape>,
}

impl Report {
    /// The best yardstick of the run: the highest bandwidth of [`Report::yardsticks`], in GB/s.
    pub fn best_yardstick(&self) -> Option<&Yardstick> {
        self.yardsticks
            .iter()
            .max_by(|a, b| a.gb_per_s().total_cmp(&b.gb_per_s()))
    }
}

/// Device times of repeated runs of one piece of work, from timestamp queries: each sample is
/// the sum of the times of the launches one run made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelStats {
    /// How many runs were timed.
    pub samples: usize,
    pub min: f64,
    pub median: f64,
}

impl KernelStats {
    /// The statistics of `times` (seconds); `None` when there are none.
    pub fn of(times: &[f64]) -> Option<KernelStats> {
        if times.is_empty() {
            return None;
        }
        let mut v = times.to_vec();
        let median = crate::measure::median(&mut v);
        Some(KernelStats {
            samples: v.len(),
            min: v[0],
            median,
        })
    }
}

/// The device time of one row's work from timestamp queries, to set beside the row's wall
/// time: what a launch costs on the host (recording, submission, the wait) is the difference.
#[derive(Clone, Debug)]
pub struct KernelRow {
    /// The row's index in [`Report::rows`].
    pub row: usize,
    pub amp_kernel: Option<KernelStats>,
    pub glsl_kernel: Option<KernelStats>,
}

/// One yardstick of the memory-bound rows: a copy of `bytes` bytes, timed with timestamp
/// queries around each of `stats.samples` dispatches.
#[derive(Clone, Debug)]
pub struct Yardstick {
    /// What ran (`vkCmdCopyBuffer`).
    pub name: String,
    /// Bytes of one buffer; a copy reads and writes them once.
    pub bytes: f64,
    pub stats: KernelStats,
}

impl Yardstick {
    /// Bytes read plus written over the median time, in GB/s.
    pub fn gb_per_s(&self) -> f64 {
        2.0 * self.bytes / self.stats.median / 1e9
    }
}

/// The GPU profile's warm-up: a copy kernel in a loop for at least a second, so that the
/// timed sections do not start on an idle GPU's clocks.
#[derive(Clone, Debug)]
pub struct WarmUp {
    pub seconds: f64,
    pub dispatches: usize,
}

pub use crate::clocks::{ClockLog, ClockSample};

/// A measurement that explains a native result: one variant of a workload.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub workload: String,
    pub size: String,
    /// What ran (`the kernel's algorithm in plain Rust`).
    pub variant: String,
    pub secs: f64,
}

/// One row of the bounds-checking cost table.
#[derive(Clone, Debug)]
pub struct BoundsCost {
    pub workload: String,
    pub size: String,
    /// Median seconds with bounds checks (the default).
    pub checked: f64,
    /// Median seconds with `#[kernel(amp, unchecked)]`.
    pub unchecked: f64,
    /// The same two on the native CPU accelerator (checked, unchecked), timed in alternation;
    /// `None` where it cannot run the kernel.
    pub native: Option<(f64, f64)>,
}

impl BoundsCost {
    /// Checked time over unchecked time.
    pub fn ratio(&self) -> f64 {
        self.checked / self.unchecked
    }
}

/// The native column of a row: its median time, or why the native CPU accelerator did not
/// run it.
pub type Native = Result<f64, String>;

impl Cell {
    /// The number of this cell's rate when it is given in `unit` (`GB/s`, `GFLOP/s`).
    pub(crate) fn rate_in(&self, unit: &str) -> Option<f64> {
        match self {
            Cell::Time {
                rate: Some(rate), ..
            } => rate.text.strip_suffix(unit)?.trim().parse().ok(),
            _ => None,
        }
    }

    /// The work of this cell's rate (bytes read and written, or floating-point operations),
    /// when the rate was computed from one.
    pub fn work(&self) -> Option<Work> {
        match self {
            Cell::Time {
                rate: Some(rate), ..
            } => rate.work,
            _ => None,
        }
    }
}

/// `16M`, `64K`.
pub(crate) fn count(n: usize) -> String {
    if n >= 1 << 20 {
        format!("{}M", n >> 20)
    } else {
        format!("{}K", n >> 10)
    }
}

pub(crate) fn fmt_time(secs: f64) -> String {
    if secs >= 1.0 {
        format!("{secs:.2} s")
    } else if secs >= 1e-3 {
        format!("{:.2} ms", secs * 1e3)
    } else {
        format!("{:.1} µs", secs * 1e6)
    }
}
