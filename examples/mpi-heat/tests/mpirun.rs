//! The solver run by `mpiexec` on this machine: split across ranks it must give the single-rank
//! grid bit for bit, also with its ranks on different accelerators, and a rank that fails must
//! end the job with its error and a non-zero status instead of leaving the others waiting.
//!
//! Needs an MPI implementation's `mpiexec` (`scripts/setup.sh` installs MPICH); Open MPI's works
//! too. The ranks inherit the test's environment, so `AMP_DEVICE` picks their accelerator
//! unless a test sets it per rank.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Longer than any of these runs takes on a loaded 2-core machine; a job still running then
/// has hung.
const JOB_TIMEOUT: Duration = Duration::from_secs(180);

/// One group of ranks of an MPMD launch (`mpiexec -n 1 ... : -n 1 ...`): how many, and the
/// `AMP_DEVICE` they get, if any.
struct Ranks {
    count: usize,
    device: Option<&'static str>,
}

fn ranks(count: usize) -> Ranks {
    Ranks {
        count,
        device: None,
    }
}

fn ranks_on(count: usize, device: &'static str) -> Ranks {
    Ranks {
        count,
        device: Some(device),
    }
}

/// Whether `mpiexec` is Open MPI's, whose options differ from MPICH's.
fn is_open_mpi() -> bool {
    let version = Command::new("mpiexec")
        .arg("--version")
        .output()
        .expect("running `mpiexec --version`: install an MPI implementation (scripts/setup.sh)");
    let text = String::from_utf8_lossy(&version.stdout) + String::from_utf8_lossy(&version.stderr);
    text.contains("Open MPI") || text.contains("OpenRTE")
}

/// Held while a job runs. MPI ranks wait for messages by polling, so jobs run side by side
/// on a 2-core machine would take the cores from each other: the tests run one job at a time.
static ONE_JOB_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs the solver under `mpiexec` with `args`, the groups of ranks one after another, and
/// returns its output; panics if the job outlives [`JOB_TIMEOUT`].
fn mpiexec(groups: &[Ranks], args: &[&str]) -> Output {
    mpiexec_with(groups, args, true)
}

/// [`mpiexec`], with the test's own `AMP_DEVICE` passed to the ranks or not.
fn mpiexec_with(groups: &[Ranks], args: &[&str], inherit_device: bool) -> Output {
    let _one_job = ONE_JOB_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let open_mpi = is_open_mpi();
    let mut command = Command::new("mpiexec");
    for (i, group) in groups.iter().enumerate() {
        if i > 0 {
            command.arg(":");
        }
        command.args(["-n", &group.count.to_string()]);
        if let Some(device) = group.device {
            if open_mpi {
                command.args(["-x", &format!("AMP_DEVICE={device}")]);
            } else {
                command.args(["-env", "AMP_DEVICE", device]);
            }
        }
        command.arg(env!("CARGO_BIN_EXE_mpi-heat")).args(args);
    }
    if !inherit_device {
        command.env_remove("AMP_DEVICE");
    }
    // CI runs as root, which Open MPI refuses unless told; MPICH ignores these.
    command
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    run_with_timeout(command)
}

/// Runs `command` in a process group of its own and waits for it; on a timeout the whole group
/// (the launcher and its ranks) is killed and the test fails.
fn run_with_timeout(mut command: Command) -> Output {
    use std::os::unix::process::CommandExt;
    let described = format!("{command:?}");
    let child = command
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("starting {described}: {e}"));
    let group = child.id();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(child.wait_with_output()));
    match finished.recv_timeout(JOB_TIMEOUT) {
        Ok(output) => output.unwrap_or_else(|e| panic!("waiting for {described}: {e}")),
        Err(_) => {
            // The group's id is the launcher's pid, given as a negative number to `kill`.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{group}")])
                .status();
            panic!("{described} still ran after {JOB_TIMEOUT:?}: the job hung");
        }
    }
}

/// A fresh path for a grid file in this test's scratch folder.
fn scratch_file(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mpi-heat");
    std::fs::create_dir_all(&dir).expect("creating the scratch folder");
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// Solves `grid_args` with the ranks of `groups` and returns rank 0's summary line and the grid
/// file's bytes.
fn solve(groups: &[Ranks], grid_args: &[&str], grid_file: &str) -> (String, Vec<u8>) {
    solve_with(groups, grid_args, grid_file, true)
}

/// [`solve`], with the test's own `AMP_DEVICE` passed to the ranks or not.
fn solve_with(
    groups: &[Ranks],
    grid_args: &[&str],
    grid_file: &str,
    inherit_device: bool,
) -> (String, Vec<u8>) {
    let path = scratch_file(grid_file);
    let mut args = grid_args.to_vec();
    let path_arg = path.to_string_lossy().into_owned();
    args.extend(["--grid-out", &path_arg]);
    let output = mpiexec_with(groups, &args, inherit_device);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the job failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    // With `AMP_VALIDATION=1` (scripts/test.sh) the ranks on Vulkan run under the validation
    // layer, which prints what it reports.
    assert!(
        !stderr.contains("[amp validation"),
        "the validation layer reported problems:\n{stderr}"
    );
    let summary = stdout
        .lines()
        .find(|l| l.contains("grid checksum"))
        .unwrap_or_else(|| panic!("no summary line in:\n{stdout}\n{stderr}"))
        .to_owned();
    let grid = std::fs::read(&path).expect("reading the grid rank 0 wrote");
    (summary, grid)
}

/// The summary without its first words (`mpi-heat: N ranks,`), which name the rank count.
fn result_part(summary: &str) -> &str {
    summary
        .split_once("ranks, ")
        .map_or(summary, |(_, rest)| rest)
}

/// 34 rows: the 32 interior rows split evenly over 2 ranks and unevenly over 3 (11, 11, 10).
const GRID: [&str; 4] = ["--rows", "34", "--cols", "24"];

#[test]
fn split_runs_match_the_single_rank_grid_bit_for_bit() {
    // To convergence on 2 ranks: the runs must also stop at the same step.
    let (one_summary, one_grid) = solve(&[ranks(1)], &GRID, "one-rank.bin");
    assert_eq!(one_grid.len(), 34 * 24 * 4);
    assert!(
        one_summary.contains(" 0 cells changing"),
        "the run should converge: {one_summary}"
    );
    let (summary, grid) = solve(&[ranks(2)], &GRID, "two-ranks.bin");
    // Same steps, same residual, same checksum; then the grids themselves, bit for bit.
    assert_eq!(result_part(&summary), result_part(&one_summary));
    assert!(grid == one_grid, "2 ranks computed another grid");

    // 3 ranks give the middle one neighbours on both sides. They are more ranks than this
    // machine has cores, which polling MPI ranks make slow, so for fewer steps.
    let steps = [&GRID[..], &["--max-steps", "60"]].concat();
    let (one_summary, one_grid) = solve(&[ranks(1)], &steps, "one-rank-60.bin");
    let (summary, grid) = solve(&[ranks(3)], &steps, "three-ranks-60.bin");
    assert!(summary.contains(" 60 steps"), "{summary}");
    assert_eq!(result_part(&summary), result_part(&one_summary));
    assert!(grid == one_grid, "3 ranks computed another grid");
}

/// Each rank takes the device its own environment names. The grid is small enough that no value
/// is ever a denormal (the smallest is 4^-32, where heat first reaches the bottom row), so even
/// a device that flushes denormals to zero computes the same bits.
#[test]
fn ranks_on_different_accelerators_compute_the_same_grid() {
    let (one_summary, one_grid) = solve(&[ranks_on(1, "cpu")], &GRID, "cpu.bin");
    let (summary, grid) = solve(
        &[ranks_on(1, "cpu"), ranks_on(1, "vulkan")],
        &GRID,
        "cpu-and-vulkan.bin",
    );
    assert_eq!(result_part(&summary), result_part(&one_summary));
    assert!(
        grid == one_grid,
        "the native and Vulkan ranks computed another grid"
    );
}

/// A rank without `AMP_DEVICE` takes its device by its rank on the machine (a GPU, else the
/// native CPU accelerator), through a collective call the rank with `AMP_DEVICE` must join too.
#[test]
fn ranks_with_and_without_amp_device_run_together() {
    let (one_summary, one_grid) = solve(&[ranks_on(1, "cpu")], &GRID, "alone.bin");
    let (summary, grid) = solve_with(
        &[ranks_on(1, "cpu"), ranks(1)],
        &GRID,
        "with-and-without.bin",
        false,
    );
    assert_eq!(result_part(&summary), result_part(&one_summary));
    assert!(grid == one_grid, "the two ranks computed another grid");
}

#[test]
fn a_failing_rank_fails_the_job_with_its_error() {
    let started = Instant::now();
    let output = mpiexec(&[ranks(1), ranks_on(1, "no-such-device")], &GRID);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "the job succeeded although rank 1 had no device:\n{stderr}"
    );
    assert!(
        stderr.contains("mpi-heat: rank 1 of 2: ") && stderr.contains("\"no-such-device\""),
        "rank 1's error is not reported:\n{stderr}"
    );
    // Rank 0 waits for rank 1's halo row; MPI_Abort must end it at once, not the timeout.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the failed job took {:?} to end",
        started.elapsed()
    );
}
