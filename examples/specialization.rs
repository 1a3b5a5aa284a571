//! What tile sizes given as constants cost: the same `tile_static` matrix multiplication with
//! the tile size as a literal, as a `const` item and as a const-generic parameter. The last two
//! reach the device as SPIR-V specialization constants (one module, specialized when the
//! pipeline is built); the table shows the first launch (pipeline creation plus the driver's
//! compile; run with `MESA_SHADER_CACHE_DISABLE=true` on lavapipe for cold numbers) and the
//! median of later launches.
//!
//! ```text
//! MESA_SHADER_CACHE_DISABLE=true cargo run --release --example specialization
//! ```
use amp::prelude::*;
use std::time::{Duration, Instant};

// The `const` item (`TS`) and const-generic (`S`) forms of the kernel, from the matmul example.
#[path = "matmul.rs"]
#[allow(dead_code)]
mod matmul;
use matmul::{matmul_tiled as const_item, matmul_tiled_by as const_generic};

#[kernel(amp)]
fn literal(
    t: TiledIndex<16, 16>,
    a: ArrayView<f32, 2>,
    b: ArrayView<f32, 2>,
    c: ArrayViewMut<f32, 2>,
) {
    let (row, col) = (t.local[0], t.local[1]);
    #[tile_static]
    let mut la: [[f32; 16]; 16];
    #[tile_static]
    let mut lb: [[f32; 16]; 16];
    let mut sum = 0.0;
    let mut i = 0;
    while i < a.extent()[1] {
        la[row][col] = a[[t.global[0], col + i]];
        lb[row][col] = b[[row + i, t.global[1]]];
        t.barrier.wait();
        for k in 0..16 {
            sum += la[row][k] * lb[k][col];
        }
        t.barrier.wait();
        i += 16;
    }
    c[t.global] = sum;
}

fn time(
    mut launch: impl FnMut() -> Result<(), amp::Error>,
) -> Result<(Duration, Duration), amp::Error> {
    let start = Instant::now();
    launch()?;
    let first = start.elapsed();
    let mut runs = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        launch()?;
        runs.push(start.elapsed());
    }
    runs.sort();
    Ok((first, runs[runs.len() / 2]))
}

fn main() -> Result<(), amp::Error> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    let acc = Accelerator::default()?;
    let ha = vec![1.0f32; n * n];
    let hb = vec![2.0f32; n * n];
    let mut hc = vec![0.0f32; n * n];
    let va = ArrayView::new([n, n], &ha)?;
    let vb = ArrayView::new([n, n], &hb)?;
    let mut vc = ArrayViewMut::new([n, n], &mut hc)?;
    let e = vc.extent().tile::<16, 16>();
    println!(
        "tile_static matmul {n} x {n} x {n}, 16 x 16 tiles, on {}",
        acc.name()
    );
    println!(
        "  {:<24} {:>14} {:>14}",
        "tile size given as", "first launch", "median"
    );
    let (f, m) = time(|| parallel_for_each(e, literal(&va, &vb, &mut vc)))?;
    println!(
        "  {:<24} {:>11.2} ms {:>11.2} ms",
        "literal 16",
        f.as_secs_f64() * 1e3,
        m.as_secs_f64() * 1e3
    );
    let (f, m) = time(|| parallel_for_each(e, const_item(&va, &vb, &mut vc)))?;
    println!(
        "  {:<24} {:>11.2} ms {:>11.2} ms",
        "const TS: usize = 16",
        f.as_secs_f64() * 1e3,
        m.as_secs_f64() * 1e3
    );
    let (f, m) = time(|| parallel_for_each(e, const_generic::<16>(&va, &vb, &mut vc)))?;
    println!(
        "  {:<24} {:>11.2} ms {:>11.2} ms",
        "const generic ::<16>",
        f.as_secs_f64() * 1e3,
        m.as_secs_f64() * 1e3
    );
    vc.synchronize()?;
    drop(vc);
    assert!(hc.iter().all(|&x| x == 2.0 * n as f32));
    Ok(())
}
