//! The GPU's clocks, temperature and power as `nvidia-smi` reports them, sampled before and
//! after each section of the GPU profile: a row measured while the clocks were low or the
//! chip was hot says so in the report. Where `nvidia-smi` is absent (another vendor, a CPU
//! driver) the log holds one note instead.

use std::process::Command;

/// The fields asked of `nvidia-smi --query-gpu` (one line per GPU).
pub const QUERY: &str = "index,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw";

/// The column titles of [`QUERY`]'s fields, in order.
pub const COLUMNS: [&str; 6] = [
    "GPU",
    "SM clock",
    "memory clock",
    "max SM clock",
    "temperature (°C)",
    "power",
];

/// The clock samples of a run, or why there are none.
#[derive(Clone, Debug, Default)]
pub struct ClockLog {
    pub samples: Vec<ClockSample>,
    /// Why no (more) samples were taken: `nvidia-smi` is not installed, or it failed. Set
    /// once; no sample is tried after it.
    pub note: Option<String>,
}

/// One reading: where in the run it was taken and one line per GPU, its fields in the order
/// of [`QUERY`].
#[derive(Clone, Debug)]
pub struct ClockSample {
    /// The section (`vector`) or step (`warm-up`).
    pub section: String,
    /// `before` or `after`.
    pub when: String,
    pub gpus: Vec<Vec<String>>,
}

impl ClockLog {
    /// Takes a sample labelled `section` and `when`, unless an earlier attempt found no
    /// `nvidia-smi` or saw it fail (said once, on stderr and in the note, and not an error).
    pub fn sample(&mut self, section: &str, when: &str) {
        if self.note.is_some() {
            return;
        }
        match read() {
            Ok(gpus) => self.samples.push(ClockSample {
                section: section.into(),
                when: when.into(),
                gpus,
            }),
            Err(note) => {
                eprintln!("amp-bench: {note}");
                self.note = Some(note);
            }
        }
    }
}

/// One line per GPU from `nvidia-smi`, split into fields; why not, when it is absent or fails.
fn read() -> Result<Vec<Vec<String>>, String> {
    let out = Command::new("nvidia-smi")
        .arg(format!("--query-gpu={QUERY}"))
        .arg("--format=csv,noheader")
        .output();
    let out = match out {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err("nvidia-smi not found: no clock log".into())
        }
        Err(e) => return Err(format!("nvidia-smi did not run ({e}): no clock log")),
    };
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        let why = why.trim();
        let why = if why.is_empty() { text.trim() } else { why };
        return Err(format!(
            "nvidia-smi failed ({}): {why}; no clock log",
            out.status
        ));
    }
    let gpus: Vec<Vec<String>> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split(',').map(|f| f.trim().to_owned()).collect())
        .collect();
    if gpus.is_empty() {
        return Err("nvidia-smi listed no GPU: no clock log".into());
    }
    Ok(gpus)
}
