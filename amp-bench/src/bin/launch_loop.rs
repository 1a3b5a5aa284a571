//! Profiling aid for launch overhead: empty-kernel launches interleaved with round trips of
//! the benchmark's raw `ash` floor loop (`amp-bench/src/raw_vulkan.rs`), so machine load
//! hits both alike. Prints medians, the median of the pairwise ratios, and the minima.
//!
//! `cargo run --release -p amp-bench --bin launch_loop -- N` times `N` of each (needs
//! `glslangValidator` for the raw loop's shader); `... -- N amp` runs only `N` amp launches,
//! e.g. under `valgrind --tool=callgrind` (deterministic instruction counts); `... -- N chain`
//! runs `N` dependent asynchronous launches over two arrays and one read (the batched path;
//! with `LP_NUM_THREADS=0` the driver's share is smallest).
use amp::prelude::*;
use amp_bench::raw_vulkan;
use std::time::Instant;

#[kernel(amp)]
fn empty(_idx: Index<1>) {}

#[kernel(amp, unchecked)]
fn plus_one(idx: Index<1>, a: &Array<f32, 1>, b: &mut Array<f32, 1>) {
    b[idx] = a[idx] + 1.0;
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// The raw loop's empty compute shader, compiled by `glslangValidator`.
fn empty_shader() -> Result<Vec<u8>, Box<dyn std::error::Error + Send + Sync>> {
    let dir = std::env::temp_dir().join(format!("amp-launch-loop-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let (src, out) = (dir.join("empty.comp"), dir.join("empty.spv"));
    std::fs::write(
        &src,
        "#version 450\nlayout(local_size_x = 64) in;\nvoid main() {}\n",
    )?;
    let status = std::process::Command::new("glslangValidator")
        .args(["-V", "-o"])
        .arg(&out)
        .arg(&src)
        .stdout(std::process::Stdio::null())
        .status()?;
    if !status.success() {
        return Err("glslangValidator failed".into());
    }
    let bytes = std::fs::read(&out)?;
    std::fs::remove_dir_all(&dir)?;
    Ok(bytes)
}

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(2000);
    let amp_only = args.get(2).is_some_and(|a| a == "amp");
    if args.get(2).is_some_and(|a| a == "chain") {
        // `N` dependent asynchronous launches ping-ponging between two arrays, then one read:
        // the per-launch cost of the batched path (run under callgrind with LP_NUM_THREADS=0).
        let mut a = Array::<f32, 1>::from_slice([64], &[0.0; 64])?;
        let mut b = Array::<f32, 1>::new([64])?;
        // SAFETY: the kernel indexes only inside its views over this extent.
        parallel_for_each(a.extent(), unsafe { plus_one(&a, &mut b) })?;
        b.to_vec()?;
        let t = Instant::now();
        for i in 0..n {
            if i % 2 == 0 {
                // SAFETY: the kernel indexes only inside its views over this extent.
                parallel_for_each(a.extent(), unsafe { plus_one(&a, &mut b) })?;
            } else {
                // SAFETY: the kernel indexes only inside its views over this extent.
                parallel_for_each(b.extent(), unsafe { plus_one(&b, &mut a) })?;
            }
        }
        let last = if n % 2 == 1 { b.to_vec()? } else { a.to_vec()? };
        println!(
            "{:.2} us per launch, last value {}",
            t.elapsed().as_secs_f64() * 1e6 / n as f64,
            last[0]
        );
        return Ok(());
    }
    // Launches are asynchronous: each is waited for, so every sample is a round trip.
    let view = amp::Accelerator::default()?.default_view();
    parallel_for_each(Extent::new([1]), empty())?;
    view.wait()?;
    if amp_only {
        let t = Instant::now();
        for _ in 0..n {
            parallel_for_each(Extent::new([1]), empty())?;
            view.wait()?;
        }
        println!(
            "{:.1} us per launch",
            t.elapsed().as_secs_f64() * 1e6 / n as f64
        );
        return Ok(());
    }
    let bytes = empty_shader()?;
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let name = amp::Accelerator::default()?.name().to_owned();
    let raw = raw_vulkan::RawLoop::new(&name, &words)?;
    let (mut ta, mut tr) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let t = Instant::now();
        raw.round_trip()?;
        tr.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        parallel_for_each(Extent::new([1]), empty())?;
        view.wait()?;
        ta.push(t.elapsed().as_secs_f64());
    }
    let mut ratios: Vec<f64> = ta.iter().zip(&tr).map(|(a, r)| a / r).collect();
    let pair = median(&mut ratios);
    let (amin, rmin) = (
        ta.iter().cloned().fold(f64::MAX, f64::min),
        tr.iter().cloned().fold(f64::MAX, f64::min),
    );
    let (a, r) = (median(&mut ta), median(&mut tr));
    println!(
        "amp {:.1} us  raw {:.1} us  ratio {:.3}  pairwise {:.3}  min {:.1}/{:.1} = {:.3}",
        a * 1e6,
        r * 1e6,
        a / r,
        pair,
        amin * 1e6,
        rmin * 1e6,
        amin / rmin
    );
    Ok(())
}
