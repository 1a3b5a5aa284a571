//! The device side of a round in a child process (this test binary again), so that a driver
//! that never finishes compiling or running one function cannot stall the run: the parent
//! watches the child's progress, and after [`stall`] without any it kills the child, records
//! that function as hung, and starts a new child after it. (Seen on lavapipe, Mesa 22.3: a
//! compile that recursed for over ten minutes on a function with a loop, `mul_add` and `%`.)

use crate::gen::{self, Rng};
use crate::{device, host, opaque};
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// What the child does: `seed round n opaque start [only,...]`.
const TASK: &str = "AMP_DIFF_CHILD";
/// Where the child writes its lines.
const OUT: &str = "AMP_DIFF_CHILD_OUT";
/// How long a function may take (compile and run) before it counts as hung
/// (`AMP_DIFF_STALL=seconds` sets another).
fn stall() -> Duration {
    Duration::from_secs(
        std::env::var("AMP_DIFF_STALL")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(30),
    )
}

/// Per test function, its device result (bits per input row) or an error (`"not run"` for
/// one not asked for).
pub type Results = Vec<Result<Vec<u64>, String>>;

/// The round's program and inputs, generated as the parent generated them.
pub fn round(seed: u64, round: usize, n: usize) -> (gen::Program, Vec<Vec<Vec<u64>>>) {
    let mut rng = Rng::new(seed ^ (round as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let program = gen::program(&mut rng, &format!("r{round}"), n);
    let inputs = host::inputs_of(&mut rng, &program);
    (program, inputs)
}

/// Runs the device side of round `round` (its `n` test functions, or those in `only`) in
/// child processes; a function that hangs gets an `Err` starting with "hung". `Err` when a
/// child failed outside a function (the validation layer reported, the device was lost, ...).
pub fn run(
    dir: &Path,
    seed: u64,
    round: usize,
    n: usize,
    opaque: bool,
    only: Option<&[usize]>,
) -> Result<Results, String> {
    let mut results: Vec<Option<Result<Vec<u64>, String>>> = vec![None; n];
    let out = dir.join(format!("device{round}-{}.txt", opaque as u8));
    let mut start = 0;
    while start < n {
        let _ = std::fs::remove_file(&out);
        let only_list = only.map_or(String::new(), |o| {
            o.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(",")
        });
        let mut child = spawn(
            &format!("{seed} {round} {n} {} {start} {only_list}", opaque as u8),
            &out,
        );
        let mut current = None;
        let mut progress = Instant::now();
        let mut seen = 0;
        let status = loop {
            let text = std::fs::read_to_string(&out).unwrap_or_default();
            let lines: Vec<&str> = text
                .split_inclusive('\n')
                .filter(|l| l.ends_with('\n'))
                .collect();
            if lines.len() > seen {
                progress = Instant::now();
                for line in &lines[seen..] {
                    let (i, rest) = line.trim_end().split_once(' ').expect("an index");
                    let i: usize = i.parse().expect("an index");
                    match rest.split_once(' ').unwrap_or((rest, "")) {
                        ("start", _) => current = Some(i),
                        ("ok", values) => {
                            current = None;
                            results[i] = Some(Ok(values
                                .split(',')
                                .filter(|v| !v.is_empty())
                                .map(|v| v.parse().expect("bits"))
                                .collect()));
                        }
                        (_, message) => {
                            current = None;
                            results[i] = Some(Err(message.replace('\u{1}', "\n")));
                        }
                    }
                }
                seen = lines.len();
            }
            if let Some(status) = child.try_wait().expect("the child's status") {
                break Some(status);
            }
            if progress.elapsed() > stall() {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        match (status, current) {
            (Some(status), None) if status.success() => break,
            (None, Some(i)) => {
                results[i] = Some(Err(format!(
                    "hung: the driver did not finish compiling and running it in {} s",
                    stall().as_secs()
                )));
                start = i + 1;
            }
            (status, current) => {
                return Err(format!(
                    "the device-side process (round {round}, opaque: {opaque}) failed: \
                     {status:?}, in function {current:?}; rerun with AMP_DIFF_SEED={seed}"
                ));
            }
        }
    }
    Ok(results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err("not run".into())))
        .collect())
}

fn spawn(task: &str, out: &Path) -> Child {
    Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "device_side_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(TASK, task)
        .env(OUT, out)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("the device-side process")
}

/// The child's side (a test that does nothing unless [`TASK`] is set).
pub fn child_main() {
    let Ok(task) = std::env::var(TASK) else {
        return;
    };
    let words: Vec<&str> = task.split(' ').collect();
    let num = |i: usize| -> u64 { words[i].parse().expect("a number") };
    let (seed, round_no, n, opaque, start) = (
        num(0),
        num(1) as usize,
        num(2) as usize,
        num(3) == 1,
        num(4) as usize,
    );
    let only: Option<Vec<usize>> = words
        .get(5)
        .filter(|w| !w.is_empty())
        .map(|w| w.split(',').map(|i| i.parse().expect("an index")).collect());
    let (program, inputs) = round(seed, round_no, n);
    let program = if opaque {
        opaque::program(&program)
    } else {
        program
    };
    let mut out = std::fs::File::create(std::env::var_os(OUT).expect("the output file"))
        .expect("the output file");
    let acc = amp::Accelerator::default().expect("a Vulkan device");
    for (i, t) in program.tests.iter().enumerate().skip(start) {
        if only.as_ref().is_some_and(|o| !o.contains(&i)) {
            continue;
        }
        writeln!(out, "{i} start").unwrap();
        out.flush().unwrap();
        let line = match device::run_one(&acc, &program, t, &inputs[i], opaque) {
            Ok(values) => {
                let v: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                format!("{i} ok {}", v.join(","))
            }
            Err(e) => format!("{i} err {}", e.replace('\n', "\u{1}")),
        };
        writeln!(out, "{line}").unwrap();
        out.flush().unwrap();
    }
    crate::common::assert_validation_clean();
}
