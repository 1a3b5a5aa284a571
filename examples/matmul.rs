//! C++ AMP's matrix multiplication, three ways, each checked against the CPU:
//! simple (one thread per element of C), tiled without `tile_static` (the same work, launched
//! in tiles), and tiled with `tile_static` (each tile stages blocks of A and B in shared memory).
//! M = N = W = 1024 with 16 x 16 tiles, then the seed's small case (C = 2 x 4, W = 6) with
//! 2 x 2 tiles. `cargo run --release --example matmul -- M N W` for another size (multiples of 16).
use amp::prelude::*;
use std::time::{Duration, Instant};

const TS: usize = 16;

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

#[kernel(amp)]
fn matmul_tiled_global(
    t: TiledIndex<TS, TS>,
    a: ArrayView<f32, 2>,
    b: ArrayView<f32, 2>,
    c: ArrayViewMut<f32, 2>,
) {
    let row = t.global[0];
    let col = t.global[1];
    let mut sum = 0.0;
    for k in 0..a.extent()[1] {
        sum += a[[row, k]] * b[[k, col]];
    }
    c[t.global] = sum;
}

#[kernel(amp)]
pub fn matmul_tiled(
    t: TiledIndex<TS, TS>,
    a: ArrayView<f32, 2>,
    b: ArrayView<f32, 2>,
    c: ArrayViewMut<f32, 2>,
) {
    let (row, col) = (t.local[0], t.local[1]);
    #[tile_static]
    let mut loc_a: [[f32; TS]; TS];
    #[tile_static]
    let mut loc_b: [[f32; TS]; TS];
    let mut sum = 0.0;
    let mut i = 0;
    while i < a.extent()[1] {
        loc_a[row][col] = a[[t.global[0], col + i]];
        loc_b[row][col] = b[[row + i, t.global[1]]];
        t.barrier.wait();
        for k in 0..TS {
            sum += loc_a[row][k] * loc_b[k][col];
        }
        t.barrier.wait();
        i += TS;
    }
    c[t.global] = sum;
}

/// The `tile_static` kernel with the tile size as a const-generic parameter (`::<2>` below).
#[kernel(amp)]
pub fn matmul_tiled_by<const S: usize>(
    t: TiledIndex<S, S>,
    a: ArrayView<f32, 2>,
    b: ArrayView<f32, 2>,
    c: ArrayViewMut<f32, 2>,
) {
    let (row, col) = (t.local[0], t.local[1]);
    #[tile_static]
    let mut loc_a: [[f32; S]; S];
    #[tile_static]
    let mut loc_b: [[f32; S]; S];
    let mut sum = 0.0;
    let mut i = 0;
    while i < a.extent()[1] {
        loc_a[row][col] = a[[t.global[0], col + i]];
        loc_b[row][col] = b[[row + i, t.global[1]]];
        t.barrier.wait();
        for k in 0..S {
            sum += loc_a[row][k] * loc_b[k][col];
        }
        t.barrier.wait();
        i += S;
    }
    c[t.global] = sum;
}

/// Which kernel computes the product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// One thread per element (seed figure 1).
    Simple,
    /// The same, launched in 16 x 16 tiles (figure 4).
    TiledGlobal,
    /// 16 x 16 tiles staged through `tile_static` memory (figure 5).
    TiledStatic,
    /// The `tile_static` kernel with 2 x 2 tiles (a const-generic tile size).
    TiledStatic2,
}

/// `C (m x n) = A (m x w) * B (w x n)` on the device; returns C and the launch-to-result time.
pub fn multiply(
    variant: Variant,
    a: &[f32],
    b: &[f32],
    m: usize,
    n: usize,
    w: usize,
) -> Result<(Vec<f32>, Duration), amp::Error> {
    let mut c = vec![0.0f32; m * n];
    let start = Instant::now();
    {
        let av = ArrayView::new([m, w], a)?;
        let bv = ArrayView::new([w, n], b)?;
        let mut cv = ArrayViewMut::new([m, n], &mut c)?;
        cv.discard_data();
        let e = cv.extent();
        match variant {
            Variant::Simple => parallel_for_each(e, matmul(&av, &bv, &mut cv))?,
            Variant::TiledGlobal => {
                parallel_for_each(e.tile::<TS, TS>(), matmul_tiled_global(&av, &bv, &mut cv))?
            }
            Variant::TiledStatic => {
                parallel_for_each(e.tile::<TS, TS>(), matmul_tiled(&av, &bv, &mut cv))?
            }
            Variant::TiledStatic2 => {
                parallel_for_each(e.tile::<2, 2>(), matmul_tiled_by::<2>(&av, &bv, &mut cv))?
            }
        }
        cv.synchronize()?;
    }
    Ok((c, start.elapsed()))
}

/// The same product on the CPU, accumulating in the same order as the kernels.
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
/// device must match the CPU bit for bit, whatever the order of the additions.
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
    println!("matrix multiplication {m} x {n} x {w} on {}", acc.name());
    let (a, b) = inputs(m, n, w);
    let cpu_start = Instant::now();
    let expected = multiply_cpu(&a, &b, m, n, w);
    println!(
        "  {:<28} {:9.2} ms",
        "cpu (one thread)",
        cpu_start.elapsed().as_secs_f64() * 1e3
    );
    let mut ok = true;
    for (variant, label) in [
        (Variant::Simple, "simple"),
        (Variant::TiledGlobal, "tiled, no tile_static"),
        (Variant::TiledStatic, "tiled, tile_static 16 x 16"),
    ] {
        // The first launch pays for the driver's shader compile; time the second.
        multiply(variant, &a, &b, m, n, w)?;
        let (c, elapsed) = multiply(variant, &a, &b, m, n, w)?;
        let gflops = 2.0 * (m * n * w) as f64 / elapsed.as_secs_f64() / 1e9;
        let matches = c == expected;
        ok &= matches;
        println!(
            "  {label:<28} {:9.2} ms  {gflops:6.2} GFLOP/s  {}",
            elapsed.as_secs_f64() * 1e3,
            if matches {
                "matches the CPU"
            } else {
                "MISMATCH"
            }
        );
    }
    let (sm, sn, sw) = (2, 4, 6);
    let (sa, sb) = inputs(sm, sn, sw);
    let (c, _) = multiply(Variant::TiledStatic2, &sa, &sb, sm, sn, sw)?;
    let small_ok = c == multiply_cpu(&sa, &sb, sm, sn, sw);
    ok &= small_ok;
    println!(
        "  seed case {sm} x {sn} x {sw}, 2 x 2 tiles: {c:?} ({})",
        if small_ok {
            "matches the CPU"
        } else {
            "MISMATCH"
        }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
