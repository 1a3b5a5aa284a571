//! The targets a run is judged by: the native targets row by row, and the GPU targets.

use super::{Report, Row};

impl Report {
    /// The native targets, row by row: met, missed or not measured.
    pub fn targets(&self) -> Vec<Target> {
        let lavapipe = self.device_is_cpu_driver;
        let mut out = Vec::new();
        for r in &self.rows {
            if let Some(limit) = first_launch_limit(&r.name) {
                out.push(Target::new(
                    r,
                    "first native launch",
                    "<=",
                    limit,
                    r.native.secs(),
                ));
                continue;
            }
            if !is_workload(r) {
                continue;
            }
            let limit = if r.name.starts_with("vector add") || r.name.starts_with("saxpy") {
                1.2
            } else if r.name.starts_with("rodinia ") {
                // Ported programs against their serial plain Rust.
                1.0
            } else if r.name.starts_with("conv ") {
                // A tiled kernel on every core against one loop of plain Rust.
                0.75
            } else {
                1.5
            };
            out.push(Target::new(
                r,
                "native/CPU",
                "<=",
                limit,
                r.native_over_cpu(),
            ));
            if needs_10x(&r.name) {
                let what = if lavapipe {
                    "lavapipe(amp)/native"
                } else {
                    "amp/native (the Vulkan device is not a CPU driver: informative)"
                };
                out.push(Target::new(r, what, ">=", 10.0, r.amp_over_native()));
            }
        }
        out
    }
}

/// Whether `r` is a workload row (one with a CPU time to compare with; the launch, transfer
/// and build rows are not).
fn is_workload(r: &Row) -> bool {
    r.cpu.secs().is_some()
        && !r.name.starts_with("host to device")
        && !r.name.starts_with("device to host")
}

/// The workloads that must run natively at least 10x faster than on lavapipe.
fn needs_10x(name: &str) -> bool {
    ["vector add", "matmul, simple", "reduce ", "exclusive scan"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// The first-launch row's limit in seconds.
fn first_launch_limit(name: &str) -> Option<f64> {
    name.starts_with("first launch").then_some(1e-3)
}

impl Report {
    /// The first row whose name starts with `prefix`.
    fn row(&self, prefix: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.name.starts_with(prefix))
    }

    /// The row whose name starts with `prefix` that ran fastest on the amp side (the first
    /// such row where none has a time).
    fn fastest(&self, prefix: &str) -> Option<&Row> {
        let rows = || self.rows.iter().filter(|r| r.name.starts_with(prefix));
        rows()
            .filter(|r| r.amp.secs().is_some())
            .min_by(|a, b| {
                a.amp
                    .secs()
                    .partial_cmp(&b.amp.secs())
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
            .or_else(|| rows().next())
    }

    /// The GPU targets, judged from this run's rows: the memory-bound rows' bandwidth by
    /// median kernel time against the best yardstick (without yardsticks or kernel times: by
    /// wall time against the better of the amp and GLSL copy rows), the tiled product against
    /// the simple one, sort throughput, the launch chain against the hand-recorded floor. On a
    /// CPU driver they are informative only.
    pub fn gpu_targets(&self) -> Vec<Target> {
        let mut out = Vec::new();
        let copy = self.row(COPY_ROW).and_then(|r| {
            let best = r
                .amp
                .rate_in("GB/s")
                .into_iter()
                .chain(r.glsl.rate_in("GB/s"));
            best.reduce(f64::max)
        });
        let by_wall = |r: &Row| Some(r.amp.rate_in("GB/s")? / copy?);
        for (prefix, limit) in [
            ("vector add", 0.8),
            (PLACED_ROW, 0.8),
            (COPY_ROW, 0.8),
            ("amp::algorithms::sum", 0.6),
            ("amp::algorithms::exclusive_scan", 0.6),
        ] {
            let Some(i) = self.rows.iter().position(|r| r.name.starts_with(prefix)) else {
                continue;
            };
            let r = &self.rows[i];
            let kernel = self
                .kernel_rows
                .iter()
                .find(|k| k.row == i)
                .and_then(|k| k.amp_kernel.as_ref());
            let target = match self.of_best_yardstick(&r.amp, kernel) {
                Some(v) => Target::new(
                    r,
                    "amp GB/s by median kernel time / best yardstick GB/s",
                    ">=",
                    limit,
                    Some(v),
                ),
                None => Target::new(
                    r,
                    "amp GB/s / copy-kernel GB/s (wall time)",
                    ">=",
                    limit,
                    by_wall(r),
                ),
            };
            out.push(target);
        }
        if let (Some(simple), Some(tiled)) = (self.row("matmul, simple"), self.row("matmul, tiled"))
        {
            out.push(Target::new(
                tiled,
                "simple time / tiled time (amp)",
                ">=",
                2.0,
                simple.amp.secs().zip(tiled.amp.secs()).map(|(s, t)| s / t),
            ));
        }
        // The faster of the register-tiled kernels (4 x 4 and 8 x 8 per thread).
        if let Some(register) = self.fastest("matmul, register-tiled") {
            out.push(Target::new(
                register,
                "TFLOP/s (amp, wall time)",
                ">=",
                25.0,
                register.amp.rate_in("GFLOP/s").map(|g| g / 1e3),
            ));
            if let Some(simple) = self.row("matmul, simple") {
                out.push(Target::new(
                    register,
                    "simple time / register-tiled time (amp)",
                    ">=",
                    2.0,
                    simple
                        .amp
                        .secs()
                        .zip(register.amp.secs())
                        .map(|(s, t)| s / t),
                ));
            }
        }
        for r in self
            .rows
            .iter()
            .filter(|r| r.name.starts_with("amp::algorithms::sort"))
        {
            // 4 bytes per 32-bit key: G keys/s = GB/s / 4.
            out.push(Target::new(
                r,
                "G keys/s (amp)",
                ">=",
                15.0,
                r.amp.rate_in("GB/s").map(|g| g / 4.0),
            ));
        }
        if let Some(r) = self.row("chain of") {
            out.push(Target::new(
                r,
                "async chain / hand-recorded floor",
                "<=",
                1.3,
                r.ratio(),
            ));
        }
        out
    }
}

/// One native target of one row.
#[derive(Clone, Debug)]
pub struct Target {
    pub row: String,
    pub size: String,
    /// What is compared (`native/CPU`).
    pub what: String,
    /// `<=` or `>=`.
    pub op: &'static str,
    pub limit: f64,
    /// The measured value; `None` when the row has no native time.
    pub value: Option<f64>,
}

impl Target {
    fn new(r: &Row, what: &str, op: &'static str, limit: f64, value: Option<f64>) -> Target {
        Target {
            row: r.name.clone(),
            size: r.size.clone(),
            what: what.into(),
            op,
            limit,
            value,
        }
    }

    /// `Some(true)` met, `Some(false)` missed, `None` not measured.
    pub fn met(&self) -> Option<bool> {
        let v = self.value?;
        Some(if self.op == "<=" {
            v <= self.limit
        } else {
            v >= self.limit
        })
    }
}

/// The copy row's name: its bandwidth is the yardstick of the GPU targets.
pub(crate) const COPY_ROW: &str = "copy (out = a; the device's copy-kernel bandwidth)";

/// The vector add on arrays created with `AccessType::None`.
pub(crate) const PLACED_ROW: &str =
    "vector add, arrays in device-local memory (`AccessType::None`)";
