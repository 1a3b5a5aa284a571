//! Soak test: many launches, each with fresh views (and every hundredth on a fresh accelerator
//! view), checking every result and printing the process's resident memory and the runtime's
//! live Vulkan objects as it goes. Both must stay flat after warm-up.
//!
//! ```text
//! cargo run --release --example soak            # 100,000 launches
//! cargo run --release --example soak -- 1000000 # or as many as you like
//! ```
//!
//! `tests/leaks.rs` runs the same loop, bounded, as a test.
use amp::prelude::*;
use amp::ObjectCounts;

#[kernel(amp)]
fn accumulate(idx: Index<1>, x: ArrayView<i32, 1>, y: ArrayViewMut<i32, 1>, a: i32) {
    y[idx] = y[idx] + x[idx] * a;
}

/// Elements per view: small, so the loop measures per-launch overhead, not copies.
pub const LEN: usize = 64;

/// The state of the process after some launches.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// Launches done so far.
    pub launches: usize,
    /// Resident memory of the process in bytes (`VmRSS` of `/proc/self/status`; 0 where that
    /// file does not exist).
    pub rss_bytes: u64,
    /// The runtime's live Vulkan objects.
    pub objects: ObjectCounts,
}

/// Resident memory of this process in bytes, 0 where `/proc` is unavailable.
pub fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

fn sample(launches: usize) -> Sample {
    Sample {
        launches,
        rss_bytes: rss_bytes(),
        objects: amp::live_object_counts(),
    }
}

/// One launch with fresh views over `x` and `y`: `y += x * a` on `target`.
fn launch_once<T: amp::LaunchTarget>(
    target: &T,
    x: &[i32],
    y: &mut [i32],
    a: i32,
) -> Result<(), Error> {
    let xv = ArrayView::new([x.len()], x)?;
    let mut yv = ArrayViewMut::new([y.len()], y)?;
    parallel_for_each_on(target, yv.extent(), accumulate(&xv, &mut yv, a))?;
    yv.synchronize()
}

/// Runs `launches` launches, checking each result; calls `on_sample` after the first
/// `warm_up` launches and then every `every` launches (and at the end). Returns the samples.
pub fn run(
    launches: usize,
    warm_up: usize,
    every: usize,
    mut on_sample: impl FnMut(&Sample),
) -> Result<Vec<Sample>, Error> {
    let acc = Accelerator::default()?;
    let x: Vec<i32> = (0..LEN as i32).map(|i| i * 3 - 50).collect();
    let mut y = vec![0i32; LEN];
    let mut want = y.clone();
    let mut samples = Vec::new();
    for i in 0..launches {
        let a = (i % 7) as i32 - 3;
        if i % 100 == 99 {
            launch_once(&acc.create_view()?, &x, &mut y, a)?;
        } else {
            launch_once(&acc, &x, &mut y, a)?;
        }
        for (w, &xi) in want.iter_mut().zip(&x) {
            *w = w.wrapping_add(xi.wrapping_mul(a));
        }
        assert_eq!(y, want, "launch {i} computed a wrong result");
        let done = i + 1;
        if done == warm_up
            || (done > warm_up && (done - warm_up).is_multiple_of(every))
            || done == launches
        {
            let s = sample(done);
            on_sample(&s);
            samples.push(s);
        }
    }
    Ok(samples)
}

#[allow(dead_code)]
fn main() -> Result<(), Error> {
    let launches: usize = match std::env::args().nth(1) {
        Some(n) => n.parse().expect("the number of launches"),
        None => 100_000,
    };
    let acc = Accelerator::default()?;
    println!("{launches} launches on {}", acc.description());
    let start = std::time::Instant::now();
    let samples = run(launches, 1000.min(launches), 10_000, |s| {
        println!(
            "{:>9} launches  rss {:>7.1} MiB  allocations {}  memory blocks {}  pipelines {}  command pools {}  descriptor pools {}",
            s.launches,
            s.rss_bytes as f64 / (1 << 20) as f64,
            s.objects.allocations,
            s.objects.memory_blocks,
            s.objects.pipelines,
            s.objects.command_pools,
            s.objects.descriptor_pools,
        );
    })?;
    let elapsed = start.elapsed();
    println!(
        "{:.1} us per launch",
        elapsed.as_secs_f64() * 1e6 / launches as f64
    );
    if let (Some(first), Some(last)) = (samples.first(), samples.last()) {
        let growth = last.rss_bytes as i64 - first.rss_bytes as i64;
        println!(
            "after warm-up: rss {:+.2} MiB, objects {}",
            growth as f64 / (1 << 20) as f64,
            if first.objects == last.objects {
                "unchanged"
            } else {
                "CHANGED"
            }
        );
    }
    if amp::validation_enabled() {
        println!("validation messages: {}", amp::validation_message_count());
    }
    Ok(())
}
