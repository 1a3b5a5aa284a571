//! C++ AMP's matrix multiplication, five ways, each checked against the CPU:
//! simple (one thread per element of C), tiled without `tile_static` (the same work, launched
//! in tiles), tiled with `tile_static` (each tile stages blocks of A and B in shared memory),
//! and register-tiled (each thread a 4 x 4 or an 8 x 8 block of C in a local array, the tile's
//! blocks of A and B double-buffered in `tile_static` memory: the shape of a fast GPU product).
//! M = N = W = 1024 with 16 x 16 tiles, then the seed's small case (C = 2 x 4, W = 6) with
//! 2 x 2 tiles. `cargo run --release --example matmul -- M N W` for another size (multiples of 16).
use amp::prelude::*;
use std::time::{Duration, Instant};

pub const TS: usize = 16;

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

/// A `BLOCK x BLOCK` block of C per 16 x 16 tile: thread `(ty, tx)` accumulates the `RT x RT`
/// elements at rows `ty + 16 i` and columns `tx + 16 j` of the block in a local array
/// (neighbouring threads write neighbouring columns, and read neighbouring `tile_static`
/// words). The tile stages `BLOCK x BK` of A and `BK x BLOCK` of B per step, `BLOCK * BK / 256`
/// elements of each per thread, into one of two buffers while it multiplies the other: one
/// barrier per step. Out-of-range elements load as zero, so any M, N, W work; the launch is
/// `[ceil(M / BLOCK) * 16, ceil(N / BLOCK) * 16]` threads ([`register_tiled_grid`]). Each
/// element of C adds its products in the order of `k`, as the CPU does.
///
/// `BLOCK` is `16 * RT`, and `BLOCK * BK` a multiple of 256: a separate parameter because an
/// array's length is one name, in the kernel language as in Rust's const generics
/// ([`multiply`] launches `<4, 16, 64>` and `<8, 8, 128>`, and checks the three agree at build
/// time). The 8 x 8 form makes 64 multiply-adds per 16 `tile_static` reads, against 16 per 8
/// in the 4 x 4 one: the shape fast single-precision products take on GPUs.
///
/// The analyses prove it race-free: each thread writes its own `RT * RT` elements of C (row
/// `t.tile[0] * (TS * RT) + ty + i * TS` with `ty < TS` and `i < RT` is a mixed-radix number,
/// one thread per element; the tile's origin is written `TS * RT` rather than `BLOCK` for
/// that), and the double buffer's half `step % 2` is written while half `(step - 1) % 2` is
/// read.
#[kernel(amp)]
pub fn matmul_register_tiled<const RT: usize, const BK: usize, const BLOCK: usize>(
    t: TiledIndex<TS, TS>,
    a: ArrayView<f32, 2>,
    b: ArrayView<f32, 2>,
    c: ArrayViewMut<f32, 2>,
) {
    let (m, w, n) = (a.extent()[0], a.extent()[1], b.extent()[1]);
    let (ty, tx) = (t.local[0], t.local[1]);
    let (row0, col0) = (t.tile[0] * (TS * RT), t.tile[1] * (TS * RT));
    let me = ty * TS + tx;
    #[tile_static]
    let mut loc_a: [[[f32; BK]; BLOCK]; 2];
    #[tile_static]
    let mut loc_b: [[[f32; BLOCK]; BK]; 2];
    let mut sums = [[0.0f32; RT]; RT];
    let steps = w.div_ceil(BK);
    let mut step = 0;
    while step <= steps {
        // Stage step `step` into buffer `step % 2` while the tile multiplies step - 1.
        if step < steps {
            let (buf, k0) = (step % 2, step * BK);
            for part in 0..(BLOCK * BK / (TS * TS)) {
                let e = me + part * TS * TS;
                let (ar, ac) = (e / BK, e % BK);
                let (gr, gc) = (row0 + ar, k0 + ac);
                loc_a[buf][ar][ac] = if gr < m && gc < w { a[[gr, gc]] } else { 0.0 };
                let (br, bc) = (e / BLOCK, e % BLOCK);
                let (hr, hc) = (k0 + br, col0 + bc);
                loc_b[buf][br][bc] = if hr < w && hc < n { b[[hr, hc]] } else { 0.0 };
            }
        }
        if step > 0 {
            let buf = (step - 1) % 2;
            let ks = BK.min(w - (step - 1) * BK);
            for k in 0..ks {
                let mut col_a = [0.0f32; RT];
                let mut row_b = [0.0f32; RT];
                for i in 0..RT {
                    col_a[i] = loc_a[buf][ty + i * TS][k];
                    row_b[i] = loc_b[buf][k][tx + i * TS];
                }
                for i in 0..RT {
                    for j in 0..RT {
                        sums[i][j] += col_a[i] * row_b[j];
                    }
                }
            }
        }
        t.barrier.wait();
        step += 1;
    }
    for i in 0..RT {
        for j in 0..RT {
            let (r, col) = (row0 + ty + i * TS, col0 + tx + j * TS);
            if r < m && col < n {
                c[[r, col]] = sums[i][j];
            }
        }
    }
}

/// The launch of [`matmul_register_tiled`] with `BLOCK x BLOCK` blocks for an `m x n` C,
/// checking at build time that its parameters agree.
pub fn register_tiled_grid<const RT: usize, const BK: usize, const BLOCK: usize>(
    m: usize,
    n: usize,
) -> TiledExtent<TS, TS> {
    const { assert!(BLOCK == TS * RT && (BLOCK * BK).is_multiple_of(TS * TS)) };
    let threads = |len: usize| len.div_ceil(BLOCK) * TS;
    Extent::new([threads(m), threads(n)]).tile::<TS, TS>()
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
    /// 64 x 64 blocks of C per 16 x 16 tile, 4 x 4 per thread ([`matmul_register_tiled`]).
    RegisterTiled,
    /// 128 x 128 blocks of C per 16 x 16 tile, 8 x 8 per thread (the same kernel).
    RegisterTiled8,
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
            Variant::RegisterTiled => parallel_for_each(
                register_tiled_grid::<4, 16, 64>(m, n),
                matmul_register_tiled::<4, 16, 64>(&av, &bv, &mut cv),
            )?,
            Variant::RegisterTiled8 => parallel_for_each(
                register_tiled_grid::<8, 8, 128>(m, n),
                matmul_register_tiled::<8, 8, 128>(&av, &bv, &mut cv),
            )?,
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
        (Variant::RegisterTiled, "register-tiled, 4 x 4 each"),
        (Variant::RegisterTiled8, "register-tiled, 8 x 8 each"),
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
