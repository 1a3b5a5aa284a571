//! C++ AMP's simple matrix multiplication: one thread per element of `C = A x B`, checked against
//! the CPU. M = N = W = 1024 by default; `cargo run --release --example matmul -- M N W` for others.
use amp::prelude::*;
use std::time::Instant;

#[kernel(amp)]
fn matmul(idx: Index<2>, a: ArrayView<f32, 2>, b: ArrayView<f32, 2>, c: ArrayViewMut<f32, 2>) {
    let row = idx[0];
    let col = idx[1];
    let mut sum = 0.0;
    for k in 0..a.extent()[1] {
        sum += a[[row, k]] * b[[k, col]];
    }
    c[idx] = sum;
}

/// `C (m x n) = A (m x w) * B (w x n)` on the device; returns C and the launch-to-result time.
pub fn multiply(
    a: &[f32],
    b: &[f32],
    m: usize,
    n: usize,
    w: usize,
) -> Result<(Vec<f32>, std::time::Duration), amp::Error> {
    let mut c = vec![0.0f32; m * n];
    let start = Instant::now();
    {
        let av = ArrayView::new([m, w], a)?;
        let bv = ArrayView::new([w, n], b)?;
        let mut cv = ArrayViewMut::new([m, n], &mut c)?;
        cv.discard_data();
        parallel_for_each(cv.extent(), matmul(&av, &bv, &mut cv))?;
        cv.synchronize()?;
    }
    Ok((c, start.elapsed()))
}

/// The same product on the CPU, accumulating in the same order as the kernel.
pub fn multiply_cpu(a: &[f32], b: &[f32], m: usize, n: usize, w: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut sum = 0.0f32;
            for k in 0..w {
                sum += a[i * w + k] * b[k * n + j];
            }
            c[i * n + j] = sum;
        }
    }
    c
}

/// Deterministic inputs with small integer values, so every partial sum is exact in f32 and the
/// device must match the CPU bit for bit.
pub fn inputs(m: usize, n: usize, w: usize) -> (Vec<f32>, Vec<f32>) {
    let a = (0..m * w)
        .map(|i| ((i * 7 + 3) % 17) as f32 - 8.0)
        .collect();
    let b = (0..w * n)
        .map(|i| ((i * 5 + 1) % 13) as f32 - 6.0)
        .collect();
    (a, b)
}

#[allow(dead_code)]
fn main() -> Result<(), amp::Error> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    let (m, n, w) = match args[..] {
        [m, n, w] => (m, n, w),
        _ => (1024, 1024, 1024),
    };
    let acc = Accelerator::default()?;
    let (a, b) = inputs(m, n, w);
    // The first launch pays for the driver's shader compile; time the second.
    multiply(&a, &b, m, n, w)?;
    let (c, elapsed) = multiply(&a, &b, m, n, w)?;
    let cpu_start = Instant::now();
    let expected = multiply_cpu(&a, &b, m, n, w);
    let cpu = cpu_start.elapsed();
    let ok = c == expected;
    let gflops = 2.0 * (m * n * w) as f64 / elapsed.as_secs_f64() / 1e9;
    println!("simple matmul {m} x {n} x {w} on {}", acc.name());
    println!(
        "  device: {:8.2} ms ({gflops:.2} GFLOP/s, transfers included)",
        elapsed.as_secs_f64() * 1e3
    );
    println!("  cpu:    {:8.2} ms (one thread)", cpu.as_secs_f64() * 1e3);
    println!(
        "  result: {}",
        if ok { "matches the CPU" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
