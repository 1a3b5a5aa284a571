//! The 2-D heat equation, solved by Jacobi iteration on a grid split across MPI ranks by rows,
//! each rank on its own accelerator.
//!
//! ```text
//! cargo build --release -p amp-mpi-heat
//! mpirun -np 4 target/release/mpi-heat --rows 4096 --cols 4096
//! ```
//!
//! The grid's top edge is held at 1.0, its other edges at 0.0; heat flows in from the top
//! until no cell changes by more than the tolerance, or for `--max-steps` steps. Every rank owns
//! a band of rows and keeps one halo row above and one below it. A step launches the Jacobi
//! kernel over the band (the launch is recorded and runs asynchronously), copies the band's
//! first and last rows to the host (which waits for the kernel), swaps them with the
//! neighbouring ranks (`MPI_Sendrecv`) and writes what arrived into the halo rows. The residual
//! is the number of cells that changed by more than the tolerance: `amp::algorithms::sum` on
//! each rank, then an `MPI_Allreduce`.
//!
//! Devices: a rank whose environment sets `AMP_DEVICE` uses that device; otherwise the ranks
//! on one machine take its GPUs in turn (node-local rank `k` gets GPU `k % gpus`), and a
//! machine without a GPU runs its ranks on the native CPU accelerator.
//!
//! A rank that fails (a device that does not exist, any `amp::Error`) prints the error and
//! calls `MPI_Abort`, which ends every rank of the job: the neighbours waiting for its halo
//! rows do not hang, and `mpirun` exits with a non-zero status.

mod exchange;
mod options;
mod solver;

use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Threading;
use std::process::ExitCode;
use std::time::Instant;

use options::Options;
use solver::{Band, Solver};

type BoxError = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    // Funneled, not Single: the accelerator runs threads of its own (the native accelerator's
    // pool, the Vulkan driver's), though only this thread calls MPI.
    let Some((universe, provided)) = mpi::initialize_with_threading(Threading::Funneled) else {
        eprintln!("mpi-heat: MPI could not be initialized");
        return ExitCode::FAILURE;
    };
    let world = universe.world();
    if provided < Threading::Funneled {
        fail(
            &world,
            "the MPI library does not support MPI_THREAD_FUNNELED".into(),
        );
    }
    match run(&world) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => fail(&world, error),
    }
}

/// Reports `error` and ends the whole job: the other ranks may be waiting for this one in a
/// halo exchange or a reduction, and only `MPI_Abort` ends them.
fn fail(world: &SimpleCommunicator, error: BoxError) -> ! {
    say(&format!(
        "mpi-heat: rank {} of {}: {error}",
        world.rank(),
        world.size()
    ));
    // The launcher forwards each rank's output as it reads it, and MPI_Abort tears the job
    // down at once: without a pause the error line can still be in the pipe when the launcher
    // ends (seen with MPICH's hydra), and the job fails without saying why.
    std::thread::sleep(std::time::Duration::from_millis(300));
    world.abort(1)
}

fn run(world: &SimpleCommunicator) -> Result<(), BoxError> {
    let options = Options::parse(std::env::args().skip(1))?;
    let (rank, ranks) = (world.rank() as usize, world.size() as usize);
    let band = Band::of_rank(rank, ranks, options.rows)?;
    let accelerator = choose_accelerator(world)?;
    say(&format!(
        "mpi-heat: rank {rank} of {ranks}: rows {}..{} on {} ({})",
        band.first,
        band.first + band.rows,
        accelerator.name(),
        accelerator.device_path()
    ));
    let mut solver = Solver::new(&accelerator, band, options.rows, options.cols)?;
    let neighbours = exchange::Neighbours::of_rank(world, rank, ranks);

    let mut steps = 0;
    let mut changing = 0u64;
    let mut times = StepTimes::default();
    while steps < options.max_steps {
        let started = Instant::now();
        solver.compute(options.tolerance)?;
        times.compute.push(started.elapsed().as_secs_f64());
        if options.timing {
            // Timed alone, the exchange would also count the wait for a slower neighbour.
            world.barrier();
        }
        let started = Instant::now();
        solver.exchange_halos(&neighbours)?;
        times.exchange.push(started.elapsed().as_secs_f64());
        let started = Instant::now();
        // The residual is a count of cells, an integer: its sum is the same in any order and
        // on any number of ranks, so a split run stops at the same step as a single one. (A
        // sum of the cells' float changes would round differently when the grid is split.)
        let local = solver.changing_cells()?;
        world.all_reduce_into(&u64::from(local), &mut changing, SystemOperation::sum());
        times.residual.push(started.elapsed().as_secs_f64());
        steps += 1;
        if changing == 0 {
            break;
        }
    }

    let grid = solver.gather(world, rank, ranks, options.rows)?;
    let slowest = slowest_rank_medians(world, &times);
    if let Some(grid) = grid {
        println!(
            "mpi-heat: {ranks} ranks, {} x {} grid, {steps} steps, {changing} cells changing by more \
             than {:e}, grid checksum {:016x}",
            options.rows,
            options.cols,
            options.tolerance,
            checksum(&grid)
        );
        if options.timing {
            println!(
                "mpi-heat: per step (median, slowest rank): compute {:.3} ms, halo exchange \
                 {:.3} ms, residual {:.3} ms",
                slowest[0] * 1e3,
                slowest[1] * 1e3,
                slowest[2] * 1e3
            );
        }
        if let Some(path) = &options.grid_out {
            let bytes: Vec<u8> = grid.iter().flat_map(|v| v.to_le_bytes()).collect();
            std::fs::write(path, bytes)
                .map_err(|e| format!("writing the grid to {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// Writes `line` to stderr in one piece, so that the ranks' lines do not interleave.
fn say(line: &str) {
    use std::io::Write;
    // Nothing useful can be done when stderr is gone.
    let _ = std::io::stderr().write_all(format!("{line}\n").as_bytes());
}

/// The rank's accelerator: the one `AMP_DEVICE` names when the rank's environment sets it
/// (`mpirun -np 1 -env AMP_DEVICE cpu ./mpi-heat : -np 1 -env AMP_DEVICE vulkan ./mpi-heat`
/// with MPICH, `-x AMP_DEVICE=cpu` with Open MPI), else GPU `k % gpus` of this machine for its
/// `k`-th rank, else the native CPU accelerator.
fn choose_accelerator(world: &SimpleCommunicator) -> Result<amp::Accelerator, BoxError> {
    // The ranks that share this machine's memory are the ranks on this machine. The split is a
    // collective call, made by every rank, also those whose `AMP_DEVICE` is set: the others
    // would wait in it for them.
    let node = world.split_shared(world.rank());
    let local_rank = node.rank() as usize;
    if std::env::var_os("AMP_DEVICE").is_some_and(|v| !v.is_empty()) {
        return Ok(amp::Accelerator::default()?);
    }
    let gpus: Vec<amp::Accelerator> = amp::Accelerator::all()?
        .into_iter()
        .filter(|a| {
            matches!(
                a.device_type(),
                amp::DeviceType::DiscreteGpu
                    | amp::DeviceType::IntegratedGpu
                    | amp::DeviceType::VirtualGpu
            )
        })
        .collect();
    let accelerator = match gpus.get(local_rank % gpus.len().max(1)) {
        Some(gpu) => gpu.clone(),
        None => amp::Accelerator::cpu()?,
    };
    if !amp::Accelerator::set_default(&accelerator) {
        return Err("the default accelerator was chosen before the rank's device".into());
    }
    Ok(accelerator)
}

/// The seconds each step of a rank spent in each part.
#[derive(Debug, Default)]
struct StepTimes {
    /// Launching the kernel and waiting for the band's edge rows.
    compute: Vec<f64>,
    /// Swapping edge rows with the neighbours and writing the halos.
    exchange: Vec<f64>,
    /// Counting the band's changing cells and the all-reduce.
    residual: Vec<f64>,
}

/// The medians of every rank's step times (compute, exchange, residual), each the slowest
/// rank's: a step is as slow as its slowest rank. Medians, not means: on a shared machine a
/// rank that loses its core for a time slice makes a few steps far slower than the rest.
fn slowest_rank_medians(world: &SimpleCommunicator, times: &StepTimes) -> [f64; 3] {
    let median = |values: &[f64]| {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted.get(sorted.len() / 2).copied().unwrap_or(0.0)
    };
    let mine = [
        median(&times.compute),
        median(&times.exchange),
        median(&times.residual),
    ];
    let mut slowest = [0.0f64; 3];
    world.all_reduce_into(&mine[..], &mut slowest[..], SystemOperation::max());
    slowest
}

/// FNV-1a over the grid's bits: equal checksums for equal grids, bit for bit.
fn checksum(grid: &[f32]) -> u64 {
    grid.iter()
        .flat_map(|v| v.to_bits().to_le_bytes())
        .fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
        })
}
