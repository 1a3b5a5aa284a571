//! The cells, rows and checks a workload builds from its measurements.

use super::{Cell, Check, Native, Row};

/// Work of a row, for its rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Work {
    /// Bytes read plus bytes written (each once): the row is memory-bound, its rate is GB/s.
    Bytes(f64),
    /// Floating-point operations: the rate is GFLOP/s.
    Flops(f64),
}

impl Work {
    /// The rate of this work done in `secs`, in its unit (`4.09 GB/s`).
    pub fn rate(self, secs: f64) -> String {
        match self {
            Work::Bytes(b) => format!("{:.2} GB/s", b / secs / 1e9),
            Work::Flops(f) => format!("{:.2} GFLOP/s", f / secs / 1e9),
        }
    }

    /// The bytes of memory-bound work.
    pub fn bytes(self) -> Option<f64> {
        match self {
            Work::Bytes(b) => Some(b),
            Work::Flops(_) => None,
        }
    }
}

/// A timed cell's rate: its text (`4.09 GB/s`, `12.0 µs/launch`) and, when it was computed
/// from one, the work it measures, from which the rate by kernel time is computed exactly.
#[derive(Clone, Debug, PartialEq)]
pub struct Rate {
    pub text: String,
    pub work: Option<Work>,
}

impl From<String> for Rate {
    /// A rate that is only text.
    fn from(text: String) -> Rate {
        Rate { text, work: None }
    }
}

pub(crate) fn timed(secs: f64, work: Work) -> Cell {
    Cell::Time {
        secs,
        rate: Some(Rate {
            text: work.rate(secs),
            work: Some(work),
        }),
    }
}

pub(crate) fn workload_row(
    name: &str,
    size: String,
    work: Work,
    t: [f64; 3],
    native: &Native,
) -> Row {
    Row {
        name: name.into(),
        size,
        amp: timed(t[0], work),
        glsl: timed(t[1], work),
        cpu: timed(t[2], work),
        native: native_cell(native, Some(work)),
    }
}

pub(crate) fn native_cell(native: &Native, work: Option<Work>) -> Cell {
    match (native, work) {
        (Ok(secs), Some(work)) => timed(*secs, work),
        (Ok(secs), None) => Cell::Time {
            secs: *secs,
            rate: None,
        },
        (Err(why), _) => Cell::Unsupported(why.clone()),
    }
}

/// Whether the native result agrees with the CPU's (a separate check per workload, named
/// `<workload> (native)`).
pub(crate) fn check_native<T: PartialEq + std::fmt::Debug>(
    name: &str,
    native: &[T],
    cpu: &[T],
) -> Check {
    let diff = if native.len() != cpu.len() {
        Some(format!("length {} vs {}", native.len(), cpu.len()))
    } else {
        native
            .iter()
            .zip(cpu)
            .position(|(a, b)| a != b)
            .map(|i| format!("element {i}: {:?} vs CPU {:?}", native[i], cpu[i]))
    };
    Check {
        workload: format!("{name} (native)"),
        agree: diff.is_none(),
        detail: diff.map_or_else(
            || "native agrees with the CPU".into(),
            |d| format!("native: {d}"),
        ),
    }
}

pub(crate) fn check<T: PartialEq + std::fmt::Debug>(
    name: &str,
    amp: &[T],
    glsl: &[T],
    cpu: &[T],
) -> Check {
    let first_diff = |x: &[T]| -> Option<String> {
        if x.len() != cpu.len() {
            return Some(format!("length {} vs {}", x.len(), cpu.len()));
        }
        x.iter()
            .zip(cpu)
            .position(|(a, b)| a != b)
            .map(|i| format!("element {i}: {:?} vs CPU {:?}", x[i], cpu[i]))
    };
    let (a, g) = (first_diff(amp), first_diff(glsl));
    Check {
        workload: name.into(),
        agree: a.is_none() && g.is_none(),
        detail: match (a, g) {
            (None, None) => "all three agree".into(),
            (a, g) => format!(
                "amp: {}; glslang: {}",
                a.unwrap_or_else(|| "ok".into()),
                g.unwrap_or_else(|| "ok".into())
            ),
        },
    }
}
