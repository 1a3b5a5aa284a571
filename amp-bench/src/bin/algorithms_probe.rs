//! Profiling aid for `amp::algorithms`: times sum, exclusive scan and sort of `N` elements
//! (default 16M) beside a vector add over the same `N`, in one process, and prints each one's
//! bandwidth relative to the vector add's (the yardstick for the bandwidth-bound sum
//! and scan). `cargo run --release -p amp-bench --bin algorithms_probe -- [N] [sum|scan|sort]`.

use amp::algorithms;
use amp::prelude::*;
use std::time::Instant;

#[kernel(amp, unchecked)]
fn add(idx: Index<1>, a: &Array<f32, 1>, b: &Array<f32, 1>, c: &mut Array<f32, 1>) {
    c[idx] = a[idx] + b[idx];
}

fn time(mut f: impl FnMut() -> Result<(), amp::Error>) -> Result<f64, amp::Error> {
    f()?;
    let mut v = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        f()?;
        Accelerator::default()?.default_view().wait()?;
        v.push(t.elapsed().as_secs_f64());
    }
    v.sort_by(f64::total_cmp);
    Ok(v[2])
}

fn main() -> Result<(), amp::Error> {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(16 << 20);
    let only = args.get(2).cloned().unwrap_or_default();
    let a = Array::from_slice([n], &vec![1.0f32; n])?;
    let b = Array::from_slice([n], &vec![2.0f32; n])?;
    let mut c = Array::<f32, 1>::new([n])?;
    // SAFETY: the kernel indexes only inside its views over this extent.
    let t_add = time(|| parallel_for_each(c.extent(), unsafe { add(&a, &b, &mut c) }))?;
    let add_rate = 12.0 * n as f64 / t_add;
    println!(
        "vector add: {:.2} ms, {:.3} GB/s",
        t_add * 1e3,
        add_rate / 1e9
    );
    let report = |name: &str, secs: f64, bytes: f64| {
        let rate = bytes / secs;
        println!(
            "{name}: {:.2} ms, {:.3} GB/s, {:.2}x the vector add's rate",
            secs * 1e3,
            rate / 1e9,
            rate / add_rate
        );
    };
    let ints = Array::from_slice([n], &(0..n as u32).map(|i| i % 1000).collect::<Vec<_>>())?;
    if only.is_empty() || only == "sum" {
        let t = time(|| algorithms::sum(&ints.view()).map(|_| ()))?;
        report("sum u32", t, 4.0 * n as f64);
    }
    if only.is_empty() || only == "scan" {
        let mut out = Array::<u32, 1>::new([n])?;
        let t = time(|| algorithms::exclusive_scan(&ints.view(), &mut out.view_mut()))?;
        report("exclusive scan u32", t, 8.0 * n as f64);
    }
    if only.is_empty() || only == "sort" {
        let mut keys = Array::<u32, 1>::new([n])?;
        let t = time(|| {
            amp::copy(&ints, &mut keys)?;
            algorithms::sort(&mut keys.view_mut())
        })?;
        report("sort u32", t, 8.0 * n as f64);
    }
    Ok(())
}
