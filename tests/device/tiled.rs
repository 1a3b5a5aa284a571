//! The tiled model (C++ AMP's `tiled_extent`, `tiled_index`, `tile_static` and `tile_barrier`),
//! end to end through `#[kernel(amp)]`, checked against the CPU: tiled launches of every rank,
//! the relations between a tiled index's positions, the tiling examples, const-generic tile
//! sizes, every `tile_static` element type and shape, tree reductions and a transpose through
//! shared memory, every barrier and fence, the errors of a launch over an extent that is not a
//! multiple of its tile (and `pad()` / `truncate()`), and outer `const` items in simple kernels.
//!
//! Tiles and matrices stay small: a software device (lavapipe) runs barriers slowly.

use crate::common;
use common::{assert_validation_clean, Rng};

use amp::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

#[path = "../../examples/tile_average.rs"]
mod tile_average;
#[path = "../../examples/tile_sum.rs"]
mod tile_sum;

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

/// `assert_validation_clean` for proptest bodies.
fn check_clean() -> Result<(), TestCaseError> {
    if std::env::var_os("AMP_VALIDATION").is_some_and(|v| v == "1") {
        prop_assert!(
            amp::validation_enabled(),
            "AMP_VALIDATION=1 but the validation layer is not active"
        );
    }
    prop_assert_eq!(amp::validation_message_count(), 0);
    Ok(())
}

fn fail(e: amp::Error) -> TestCaseError {
    TestCaseError::fail(format!("amp error: {e}"))
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 6,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Row-major positions of an extent, each padded with zeros to three components.
fn positions(dims: &[usize]) -> Vec<[usize; 3]> {
    let mut out = Vec::new();
    let d = |k: usize| dims.get(k).copied().unwrap_or(1);
    for i in 0..d(0) {
        for j in 0..d(1) {
            for k in 0..d(2) {
                out.push([i, j, k]);
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Tiled C = A + B of rank 1, 2, 3
// ---------------------------------------------------------------------------------------------

#[kernel(amp)]
fn add_tiled1(
    t: TiledIndex<7>,
    a: ArrayView<i32, 1>,
    b: ArrayView<i32, 1>,
    c: ArrayViewMut<i32, 1>,
) {
    c[t.global] = a[t.global] + b[t.global];
}

#[kernel(amp)]
fn add_tiled2(
    t: TiledIndex<9, 49>,
    a: ArrayView<i32, 2>,
    b: ArrayView<i32, 2>,
    c: ArrayViewMut<i32, 2>,
) {
    c[t.global] = a[t.global] + b[t.global];
}

#[kernel(amp)]
fn add_tiled3(
    t: TiledIndex<2, 3, 7>,
    a: ArrayView<f32, 3>,
    b: ArrayView<f32, 3>,
    c: ArrayViewMut<f32, 3>,
) {
    c[t.global] = a[t.global] + b[t.global];
}

#[test]
fn tiled_add_rank1() -> Result<(), amp::Error> {
    let n = 7 * 50;
    let mut rng = Rng(1);
    let a = rng.vec_i32(n, -1_000_000, 1_000_000);
    let b = rng.vec_i32(n, -1_000_000, 1_000_000);
    let mut c = vec![i32::MIN; n];
    {
        let av = ArrayView::new([n], &a)?;
        let bv = ArrayView::new([n], &b)?;
        let mut cv = ArrayViewMut::new([n], &mut c)?;
        cv.discard_data();
        parallel_for_each(cv.extent().tile::<7>(), add_tiled1(&av, &bv, &mut cv))?;
        cv.synchronize()?;
    }
    let expected: Vec<i32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(c, expected);
    assert_validation_clean();
    Ok(())
}

#[test]
fn tiled_add_rank2() -> Result<(), amp::Error> {
    let (rows, cols) = (18, 98);
    let mut rng = Rng(2);
    let a = rng.vec_i32(rows * cols, -1_000_000, 1_000_000);
    let b = rng.vec_i32(rows * cols, -1_000_000, 1_000_000);
    let mut c = vec![i32::MIN; rows * cols];
    {
        let av = ArrayView::new([rows, cols], &a)?;
        let bv = ArrayView::new([rows, cols], &b)?;
        let mut cv = ArrayViewMut::new([rows, cols], &mut c)?;
        cv.discard_data();
        let domain = cv.extent().tile::<9, 49>();
        assert_eq!(domain.num_tiles(), 2 * 2);
        parallel_for_each(domain, add_tiled2(&av, &bv, &mut cv))?;
        cv.synchronize()?;
    }
    let expected: Vec<i32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(c, expected);
    assert_validation_clean();
    Ok(())
}

#[test]
fn tiled_add_rank3() -> Result<(), amp::Error> {
    let dims = [4, 6, 14];
    let n = dims.iter().product();
    let mut rng = Rng(3);
    // Integers, so the sums are exact.
    let a: Vec<f32> = rng
        .vec_i32(n, -5000, 5000)
        .into_iter()
        .map(|v| v as f32)
        .collect();
    let b: Vec<f32> = rng
        .vec_i32(n, -5000, 5000)
        .into_iter()
        .map(|v| v as f32 * 0.5)
        .collect();
    let mut c = vec![f32::NAN; n];
    {
        let av = ArrayView::new(dims, &a)?;
        let bv = ArrayView::new(dims, &b)?;
        let mut cv = ArrayViewMut::new(dims, &mut c)?;
        cv.discard_data();
        parallel_for_each(cv.extent().tile::<2, 3, 7>(), add_tiled3(&av, &bv, &mut cv))?;
        cv.synchronize()?;
    }
    let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(c, expected);
    assert_validation_clean();
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The relations between global, local, tile, tile_origin and tile_extent
// ---------------------------------------------------------------------------------------------

// Each output holds one position per thread, its components packed in base 256 (dimension 0
// the most significant), at the thread's global position.

#[kernel(amp)]
fn relations1(
    t: TiledIndex<5>,
    global: ArrayViewMut<u32, 1>,
    local: ArrayViewMut<u32, 1>,
    which: ArrayViewMut<u32, 1>,
    origin: ArrayViewMut<u32, 1>,
    shape: ArrayViewMut<u32, 1>,
) {
    global[t.global] = t.global[0] as u32;
    local[t.global] = t.local[0] as u32;
    which[t.global] = t.tile[0] as u32;
    origin[t.global] = t.tile_origin[0] as u32;
    shape[t.global] = t.tile_extent[0] as u32;
}

/// Two threads per tile and more tiles than one row of workgroups holds (65535 on most
/// devices): the runtime folds the tiles onto a second grid dimension.
#[kernel(amp)]
fn relations1_folded(
    t: TiledIndex<2>,
    global: ArrayViewMut<u32, 1>,
    local: ArrayViewMut<u32, 1>,
    which: ArrayViewMut<u32, 1>,
) {
    global[t.global] = t.global[0] as u32;
    local[t.global] = t.local[0] as u32;
    which[t.global] = t.tile[0] as u32;
}

/// Tiles of two rows and more tile rows than one column of workgroups holds (65,535 along y
/// on GPUs and lavapipe): the runtime folds the rows onto z.
#[kernel(amp)]
fn relations2_folded(t: TiledIndex<2, 1>, row: ArrayViewMut<u32, 2>, which: ArrayViewMut<u32, 2>) {
    row[t.global] = t.global[0] as u32;
    which[t.global] = t.tile[0] as u32 * 4 + t.local[0] as u32 * 2 + t.global[1] as u32;
}

// `g` is `t.global`: one element per thread, which the race checker proves.
#[kernel(amp)]
fn relations2(
    t: TiledIndex<4, 8>,
    global: ArrayViewMut<u32, 2>,
    local: ArrayViewMut<u32, 2>,
    which: ArrayViewMut<u32, 2>,
    origin: ArrayViewMut<u32, 2>,
    shape: ArrayViewMut<u32, 2>,
) {
    let g = t.global;
    global[g] = (t.global[0] * 256 + t.global[1]) as u32;
    local[g] = (t.local[0] * 256 + t.local[1]) as u32;
    which[g] = (t.tile[0] * 256 + t.tile[1]) as u32;
    origin[g] = (t.tile_origin[0] * 256 + t.tile_origin[1]) as u32;
    shape[g] = (t.tile_extent[0] * 256 + t.tile_extent[1]) as u32;
}

#[kernel(amp)]
fn relations3(
    t: TiledIndex<2, 3, 4>,
    global: ArrayViewMut<u32, 3>,
    local: ArrayViewMut<u32, 3>,
    which: ArrayViewMut<u32, 3>,
    origin: ArrayViewMut<u32, 3>,
) {
    global[t.global] = ((t.global[0] * 256 + t.global[1]) * 256 + t.global[2]) as u32;
    local[t.global] = ((t.local[0] * 256 + t.local[1]) * 256 + t.local[2]) as u32;
    which[t.global] = ((t.tile[0] * 256 + t.tile[1]) * 256 + t.tile[2]) as u32;
    origin[t.global] =
        ((t.tile_origin[0] * 256 + t.tile_origin[1]) * 256 + t.tile_origin[2]) as u32;
}

// A second kernel: five rank-3 views (24 bytes of layout each) overflow 128 push-constant bytes.
#[kernel(amp)]
fn shape3(t: TiledIndex<2, 3, 4>, shape: ArrayViewMut<u32, 3>) {
    shape[t.global] = ((t.tile_extent[0] * 256 + t.tile_extent[1]) * 256 + t.tile_extent[2]) as u32;
}

/// Unpacks `rank` base-256 components (rank 1: the value itself).
fn unpack(v: u32, rank: usize) -> Vec<usize> {
    if rank == 1 {
        return vec![v as usize];
    }
    (0..rank)
        .rev()
        .map(|k| ((v >> (8 * k)) & 0xff) as usize)
        .collect()
}

/// Checks C++ AMP's relations for every thread of a domain of extent `dims` tiled by
/// `[T0, T1, T2]`, from the packed outputs `[global, local, tile, tile_origin, tile_extent]`
/// (`None` for the ones a kernel does not write).
fn check_relations<const T0: usize, const T1: usize, const T2: usize>(
    dims: &[usize],
    out: [Option<&[u32]>; 5],
) {
    let rank = dims.len();
    let tile = &[T0, T1, T2][..rank];
    for (lin, pos) in positions(dims).into_iter().enumerate() {
        let p = &pos[..rank];
        let [g, l, w, o, s] = out.map(|f| f.map(|f| unpack(f[lin], rank)));
        // The reference: C++ AMP's relations, computed on the host.
        let host = TiledIndex::<T0, T1, T2>::new(p);
        let (host_l, host_w, host_o) = (
            host.local.as_array(),
            host.tile.as_array(),
            host.tile_origin.as_array(),
        );
        let g = g.expect("every kernel writes global");
        assert_eq!(g, p, "global at {p:?}");
        for d in 0..rank {
            assert_eq!(host_l[d], p[d] % tile[d]);
            assert_eq!(host_w[d], p[d] / tile[d]);
            assert_eq!(host_o[d], p[d] - host_l[d]);
            if let Some(l) = &l {
                assert_eq!(l[d], g[d] % tile[d], "local[{d}] = global % tile at {p:?}");
            }
            if let Some(w) = &w {
                assert_eq!(w[d], g[d] / tile[d], "tile[{d}] = global / tile at {p:?}");
            }
            if let Some(o) = &o {
                assert_eq!(
                    o[d],
                    g[d] - g[d] % tile[d],
                    "tile_origin[{d}] = global - local at {p:?}"
                );
                assert_eq!(
                    o[d],
                    g[d] / tile[d] * tile[d],
                    "tile_origin[{d}] = tile * tile_extent at {p:?}"
                );
            }
        }
        if let Some(s) = &s {
            assert_eq!(s, tile, "tile_extent at {p:?}");
        }
    }
}

#[test]
fn relations_rank1() -> Result<(), amp::Error> {
    let dims = [35];
    let mut bufs: [Vec<u32>; 5] = std::array::from_fn(|_| vec![u32::MAX; 35]);
    {
        let [b0, b1, b2, b3, b4] = &mut bufs;
        let mut v0 = ArrayViewMut::new(dims, b0)?;
        let mut v1 = ArrayViewMut::new(dims, b1)?;
        let mut v2 = ArrayViewMut::new(dims, b2)?;
        let mut v3 = ArrayViewMut::new(dims, b3)?;
        let mut v4 = ArrayViewMut::new(dims, b4)?;
        let domain = v0.extent().tile::<5>();
        parallel_for_each(
            domain,
            relations1(&mut v0, &mut v1, &mut v2, &mut v3, &mut v4),
        )?;
    }
    let [b0, b1, b2, b3, b4] = &bufs;
    check_relations::<5, 0, 0>(&dims, [Some(b0), Some(b1), Some(b2), Some(b3), Some(b4)]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn relations_rank1_folded_grid() -> Result<(), amp::Error> {
    let tiles = 70_000;
    let n = 2 * tiles;
    let mut bufs: [Vec<u32>; 3] = std::array::from_fn(|_| vec![u32::MAX; n]);
    {
        let [b0, b1, b2] = &mut bufs;
        let mut v0 = ArrayViewMut::new([n], b0)?;
        let mut v1 = ArrayViewMut::new([n], b1)?;
        let mut v2 = ArrayViewMut::new([n], b2)?;
        let domain = v0.extent().tile::<2>();
        assert_eq!(domain.num_tiles(), tiles);
        parallel_for_each(domain, relations1_folded(&mut v0, &mut v1, &mut v2))?;
    }
    let [b0, b1, b2] = &bufs;
    check_relations::<2, 0, 0>(&[n], [Some(b0), Some(b1), Some(b2), None, None]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn relations_rank2_folded_grid() -> Result<(), amp::Error> {
    let rows = 2 * (65_535 + 3);
    let (mut row, mut which) = (vec![u32::MAX; rows], vec![u32::MAX; rows]);
    {
        let mut rv = ArrayViewMut::new([rows, 1], &mut row)?;
        let mut wv = ArrayViewMut::new([rows, 1], &mut which)?;
        let domain = rv.extent().tile::<2, 1>();
        parallel_for_each(domain, relations2_folded(&mut rv, &mut wv))?;
    }
    for r in 0..rows {
        assert_eq!(row[r], r as u32, "row {r}");
        assert_eq!(
            which[r],
            (r / 2 * 4 + r % 2 * 2) as u32,
            "tile and local of row {r}"
        );
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn relations_rank2() -> Result<(), amp::Error> {
    let dims = [12, 24];
    let n = 12 * 24;
    let mut bufs: [Vec<u32>; 5] = std::array::from_fn(|_| vec![u32::MAX; n]);
    {
        let [b0, b1, b2, b3, b4] = &mut bufs;
        let mut v0 = ArrayViewMut::new(dims, b0)?;
        let mut v1 = ArrayViewMut::new(dims, b1)?;
        let mut v2 = ArrayViewMut::new(dims, b2)?;
        let mut v3 = ArrayViewMut::new(dims, b3)?;
        let mut v4 = ArrayViewMut::new(dims, b4)?;
        let domain = v0.extent().tile::<4, 8>();
        parallel_for_each(
            domain,
            relations2(&mut v0, &mut v1, &mut v2, &mut v3, &mut v4),
        )?;
    }
    let [b0, b1, b2, b3, b4] = &bufs;
    check_relations::<4, 8, 0>(&dims, [Some(b0), Some(b1), Some(b2), Some(b3), Some(b4)]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn relations_rank3() -> Result<(), amp::Error> {
    let dims = [4, 9, 8];
    let n = 4 * 9 * 8;
    let mut bufs: [Vec<u32>; 5] = std::array::from_fn(|_| vec![u32::MAX; n]);
    {
        let [b0, b1, b2, b3, b4] = &mut bufs;
        let mut v0 = ArrayViewMut::new(dims, b0)?;
        let mut v1 = ArrayViewMut::new(dims, b1)?;
        let mut v2 = ArrayViewMut::new(dims, b2)?;
        let mut v3 = ArrayViewMut::new(dims, b3)?;
        let mut v4 = ArrayViewMut::new(dims, b4)?;
        let domain = v0.extent().tile::<2, 3, 4>();
        parallel_for_each(domain, relations3(&mut v0, &mut v1, &mut v2, &mut v3))?;
        parallel_for_each(domain, shape3(&mut v4))?;
    }
    let [b0, b1, b2, b3, b4] = &bufs;
    check_relations::<2, 3, 4>(&dims, [Some(b0), Some(b1), Some(b2), Some(b3), Some(b4)]);
    assert_validation_clean();
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The tiling examples
// ---------------------------------------------------------------------------------------------

#[test]
fn tile_average_example() -> Result<(), amp::Error> {
    assert_eq!(
        tile_average::run()?,
        [
            3, 3, 8, 8, 3, 3, //
            3, 3, 8, 8, 3, 3, //
            5, 5, 2, 2, 4, 4, //
            5, 5, 2, 2, 4, 4,
        ]
    );
    assert_validation_clean();
    Ok(())
}

#[test]
fn tile_sum_example() -> Result<(), amp::Error> {
    let mut rng = Rng(0x7115);
    for tiles in [1, 3, 8] {
        let data = rng.vec_i32(64 * tiles, -10_000, 10_000);
        assert_eq!(
            tile_sum::run(&data)?,
            tile_sum::run_cpu(&data),
            "{tiles} tiles"
        );
    }
    assert_validation_clean();
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// A const-generic tile size
// ---------------------------------------------------------------------------------------------

/// Every element becomes the sum of its tile, plus its position in the tile.
#[kernel(amp)]
fn tile_sums_by<const S: usize>(t: TiledIndex<S>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    #[tile_static]
    let mut part: [i32; S];
    #[tile_static]
    let mut total: i32;
    part[t.local[0]] = a[t.global];
    t.barrier.wait();
    if t.local[0] == 0 {
        let mut s = 0;
        for i in 0..S {
            s += part[i];
        }
        total = s;
    }
    t.barrier.wait();
    out[t.global] = total + t.local[0] as i32;
}

/// A tree reduction whose step count comes from the const-generic tile size (`S / 2` is
/// computed on the device from the specialization constant).
#[kernel(amp)]
fn reduce_by<const S: usize>(t: TiledIndex<S>, a: ArrayView<i32, 1>, sums: ArrayViewMut<i32, 1>) {
    #[tile_static]
    let mut sh: [i32; S];
    let l = t.local[0];
    sh[l] = a[t.global];
    t.barrier.wait();
    let mut s = S / 2;
    while s > 0 {
        if t.local[0] < s {
            sh[l] += sh[l + s];
        }
        t.barrier.wait();
        s /= 2;
    }
    if t.local[0] == 0 {
        sums[t.tile] = sh[0];
    }
}

fn tile_sums_cpu(a: &[i32], s: usize) -> Vec<i32> {
    a.chunks(s)
        .flat_map(|c| {
            let sum: i32 = c.iter().sum();
            (0..s).map(move |l| sum + l as i32)
        })
        .collect()
}

#[test]
fn const_generic_tile_size() -> Result<(), amp::Error> {
    let n = 128;
    let a = Rng(0xc0de).vec_i32(n, -1000, 1000);
    let (mut by4, mut by32) = (vec![0; n], vec![0; n]);
    {
        let av = ArrayView::new([n], &a)?;
        let mut o4 = ArrayViewMut::new([n], &mut by4)?;
        let mut o32 = ArrayViewMut::new([n], &mut by32)?;
        o4.discard_data();
        o32.discard_data();
        let call4 = tile_sums_by::<4>(&av, &mut o4);
        assert_eq!(call4.tile_static_bytes(), 4 * 4 + 4);
        parallel_for_each(Extent::new([n]).tile::<4>(), call4)?;
        let call32 = tile_sums_by::<32>(&av, &mut o32);
        assert_eq!(call32.tile_static_bytes(), 4 * 32 + 4);
        parallel_for_each(Extent::new([n]).tile::<32>(), call32)?;
        // Again with 4, after the second pipeline exists.
        parallel_for_each(
            Extent::new([n]).tile::<4>(),
            tile_sums_by::<4>(&av, &mut o4),
        )?;
    }
    assert_eq!(by4, tile_sums_cpu(&a, 4));
    assert_eq!(by32, tile_sums_cpu(&a, 32));

    let (mut sums8, mut sums64) = (vec![0; n / 8], vec![0; n / 64]);
    {
        let av = ArrayView::new([n], &a)?;
        let mut s8 = ArrayViewMut::new([n / 8], &mut sums8)?;
        let mut s64 = ArrayViewMut::new([n / 64], &mut sums64)?;
        parallel_for_each(av.extent().tile::<8>(), reduce_by::<8>(&av, &mut s8))?;
        parallel_for_each(av.extent().tile::<64>(), reduce_by::<64>(&av, &mut s64))?;
    }
    let chunk_sums = |s: usize| -> Vec<i32> { a.chunks(s).map(|c| c.iter().sum()).collect() };
    assert_eq!(sums8, chunk_sums(8));
    assert_eq!(sums64, chunk_sums(64));
    assert_validation_clean();
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// tile_static: every element type, 1 to 3 dimensions and scalars
// ---------------------------------------------------------------------------------------------

/// Each thread stores its value in several `tile_static` variables, then reads its mirror
/// thread's (the tile reversed), so every result crosses threads.
#[kernel(amp)]
fn tile_static_kinds(
    t: TiledIndex<4, 8>,
    a: ArrayView<i32, 2>,
    out_i: ArrayViewMut<i32, 2>,
    out_u: ArrayViewMut<u32, 2>,
    out_f: ArrayViewMut<f32, 2>,
    out_b: ArrayViewMut<i32, 2>,
) {
    #[tile_static]
    let mut ints: [[i32; 8]; 4];
    #[tile_static]
    let mut uints: [u32; 32];
    #[tile_static]
    let mut floats: [[[f32; 8]; 4]; 2];
    #[tile_static]
    let mut flags: [[bool; 8]; 4];
    #[tile_static]
    let mut count: u32;
    #[tile_static]
    let mut flag: bool;
    let (r, c) = (t.local[0], t.local[1]);
    let lin = r * 8 + c;
    let v = a[t.global];
    ints[r][c] = v;
    uints[lin] = v as u32 * 3;
    floats[0][r][c] = v as f32 * 0.5;
    floats[1][r][c] = v as f32 + 0.25;
    flags[r][c] = v % 2 == 0;
    if lin == 0 {
        count = (t.tile[0] * 100 + t.tile[1]) as u32;
        flag = true;
    }
    t.barrier.wait();
    let (mr, mc) = (3 - r, 7 - c);
    out_i[t.global] = ints[mr][mc];
    out_u[t.global] = uints[31 - lin] + count;
    out_f[t.global] = floats[0][mr][mc] + floats[1][r][c];
    out_b[t.global] = if flags[mr][mc] && flag { 1 } else { 0 };
}

#[test]
fn tile_static_element_types_and_shapes() -> Result<(), amp::Error> {
    let (rows, cols) = (8, 16);
    let n = rows * cols;
    let a = Rng(0xface).vec_i32(n, -1000, 1000);
    let (mut oi, mut ou, mut of, mut ob) =
        (vec![0i32; n], vec![0u32; n], vec![0f32; n], vec![0i32; n]);
    {
        let av = ArrayView::new([rows, cols], &a)?;
        let mut vi = ArrayViewMut::new([rows, cols], &mut oi)?;
        let mut vu = ArrayViewMut::new([rows, cols], &mut ou)?;
        let mut vf = ArrayViewMut::new([rows, cols], &mut of)?;
        let mut vb = ArrayViewMut::new([rows, cols], &mut ob)?;
        let call = tile_static_kinds(&av, &mut vi, &mut vu, &mut vf, &mut vb);
        // i32 [[_; 8]; 4], u32 [_; 32], f32 [[[_; 8]; 4]; 2], bool [[_; 8]; 4] (4 bytes each), u32, bool.
        assert_eq!(call.tile_static_bytes(), 128 + 128 + 256 + 128 + 4 + 4);
        parallel_for_each(Extent::new([rows, cols]).tile::<4, 8>(), call)?;
    }
    for i in 0..rows {
        for j in 0..cols {
            let (tr, tc) = (i / 4, j / 8);
            let (mi, mj) = (tr * 4 + 3 - i % 4, tc * 8 + 7 - j % 8);
            let (v, m) = (a[i * cols + j], a[mi * cols + mj]);
            let k = i * cols + j;
            assert_eq!(oi[k], m, "i32 [[_; 8]; 4] at ({i}, {j})");
            assert_eq!(
                ou[k],
                (m as u32)
                    .wrapping_mul(3)
                    .wrapping_add((tr * 100 + tc) as u32),
                "u32 [_; 32] + scalar at ({i}, {j})"
            );
            assert_eq!(
                of[k],
                m as f32 * 0.5 + (v as f32 + 0.25),
                "f32 [[[_; 8]; 4]; 2] at ({i}, {j})"
            );
            assert_eq!(
                ob[k],
                i32::from(m % 2 == 0),
                "bool [[_; 8]; 4] and scalar at ({i}, {j})"
            );
        }
    }
    assert_validation_clean();
    Ok(())
}

/// `f64` in `tile_static` memory, in an array and a scalar (needs `shaderFloat64`).
#[kernel(amp)]
fn tile_static_f64(t: TiledIndex<16>, a: ArrayView<f64, 1>, out: ArrayViewMut<f64, 1>) {
    #[tile_static]
    let mut vals: [f64; 16];
    #[tile_static]
    let mut first: f64;
    let l = t.local[0];
    vals[l] = a[t.global] * 2.0;
    if l == 0 {
        first = a[t.global];
    }
    t.barrier.wait();
    out[t.global] = vals[15 - l] + first;
}

#[test]
fn tile_static_f64_array_and_scalar() -> Result<(), amp::Error> {
    let n = 64;
    let a: Vec<f64> = (0..n)
        .map(|i| i as f64 * 1.25 - 7.0 + 1e-12 * i as f64)
        .collect();
    let mut out = vec![0.0f64; n];
    let result = {
        let av = ArrayView::new([n], &a)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        ov.discard_data();
        parallel_for_each(ov.extent().tile::<16>(), tile_static_f64(&av, &mut ov))
    };
    let acc = Accelerator::default()?;
    if !acc.supports_double_precision() {
        assert!(
            matches!(
                result,
                Err(amp::Error::MissingCapability {
                    capability: "shaderFloat64",
                    ..
                })
            ),
            "expected MissingCapability, got {result:?}"
        );
        assert_validation_clean();
        return Ok(());
    }
    result?;
    for i in 0..n {
        let m = i / 16 * 16 + 15 - i % 16;
        assert_eq!(out[i], a[m] * 2.0 + a[i / 16 * 16], "element {i}");
    }
    assert_validation_clean();
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Tree reductions (proptest) and a transpose through tile_static memory
// ---------------------------------------------------------------------------------------------

const REDUCE_TILE: usize = 64;

#[kernel(amp)]
fn reduce_i32(t: TiledIndex<REDUCE_TILE>, a: ArrayView<i32, 1>, sums: ArrayViewMut<i32, 1>) {
    #[tile_static]
    let mut sh: [i32; REDUCE_TILE];
    let l = t.local[0];
    sh[l] = a[t.global];
    t.barrier.wait();
    let mut s = REDUCE_TILE / 2;
    while s > 0 {
        if t.local[0] < s {
            sh[l] += sh[l + s];
        }
        t.barrier.wait();
        s /= 2;
    }
    if t.local[0] == 0 {
        sums[t.tile] = sh[0];
    }
}

// Only the thread with `l == 0` writes `sums[t.tile[0]]`, which the race checker proves.
#[kernel(amp)]
fn reduce_f32(t: TiledIndex<REDUCE_TILE>, a: ArrayView<f32, 1>, sums: ArrayViewMut<f32, 1>) {
    #[tile_static]
    let mut sh: [f32; REDUCE_TILE];
    let l = t.local[0];
    sh[l] = a[t.global];
    t.barrier.wait();
    let mut s = REDUCE_TILE / 2;
    while s > 0 {
        if t.local[0] < s {
            sh[l] += sh[l + s];
        }
        t.barrier.wait();
        s /= 2;
    }
    if l == 0 {
        sums[t.tile[0]] = sh[0];
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn tile_reduction_i32(a in (1usize..=6).prop_flat_map(|tiles| prop::collection::vec(any::<i32>(), tiles * REDUCE_TILE))) {
        let tiles = a.len() / REDUCE_TILE;
        let mut sums = vec![0; tiles];
        {
            let av = ArrayView::new([a.len()], &a).map_err(fail)?;
            let mut sv = ArrayViewMut::new([tiles], &mut sums).map_err(fail)?;
            sv.discard_data();
            parallel_for_each(av.extent().tile::<REDUCE_TILE>(), reduce_i32(&av, &mut sv)).map_err(fail)?;
            sv.synchronize().map_err(fail)?;
        }
        let expected: Vec<i32> = a.chunks(REDUCE_TILE).map(|c| c.iter().fold(0i32, |s, &v| s.wrapping_add(v))).collect();
        prop_assert_eq!(sums, expected);
        check_clean()?;
    }

    #[test]
    fn tile_reduction_f32(a in (1usize..=6).prop_flat_map(|tiles| prop::collection::vec(-1000.0f32..1000.0, tiles * REDUCE_TILE))) {
        let tiles = a.len() / REDUCE_TILE;
        let mut sums = vec![f32::NAN; tiles];
        {
            let av = ArrayView::new([a.len()], &a).map_err(fail)?;
            let mut sv = ArrayViewMut::new([tiles], &mut sums).map_err(fail)?;
            sv.discard_data();
            parallel_for_each(av.extent().tile::<REDUCE_TILE>(), reduce_f32(&av, &mut sv)).map_err(fail)?;
            sv.synchronize().map_err(fail)?;
        }
        for (k, chunk) in a.chunks(REDUCE_TILE).enumerate() {
            let exact: f64 = chunk.iter().map(|&v| f64::from(v)).sum();
            let scale: f64 = chunk.iter().map(|&v| f64::from(v).abs()).sum();
            // A tree of 6 levels: each element goes through 6 roundings.
            let tol = 8.0 * f64::from(f32::EPSILON) * scale;
            prop_assert!(
                (f64::from(sums[k]) - exact).abs() <= tol,
                "tile {}: device {}, exact {} (tolerance {})", k, sums[k], exact, tol
            );
        }
        check_clean()?;
    }
}

/// Each tile of A is staged in shared memory (one padding column against bank conflicts) and
/// written back transposed: `out[j][i] = a[i][j]`. The race checker proves the write index
/// (`tile_origin` swapped plus `local`) one element per thread: each component is a number in
/// a mixed radix of a tile's and a lane's coordinates.
#[kernel(amp)]
fn transpose_padded(t: TiledIndex<16, 16>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    #[tile_static]
    let mut block: [[f32; 17]; 16];
    let (r, c) = (t.local[0], t.local[1]);
    block[r][c] = a[t.global];
    t.barrier.wait();
    out[[t.tile_origin[1] + r, t.tile_origin[0] + c]] = block[c][r];
}

/// The same without padding.
#[kernel(amp)]
fn transpose_square(t: TiledIndex<16, 16>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    #[tile_static]
    let mut block: [[f32; 16]; 16];
    let (r, c) = (t.local[0], t.local[1]);
    block[r][c] = a[t.global];
    t.barrier.wait_with_tile_static_memory_fence();
    out[[t.tile[1] * 16 + r, t.tile[0] * 16 + c]] = block[c][r];
}

#[test]
fn transpose_through_tile_static() -> Result<(), amp::Error> {
    let (rows, cols) = (48, 80);
    let mut rng = Rng(0x7a);
    let a: Vec<f32> = (0..rows * cols)
        .map(|_| rng.next_u32() as f32 / 7.0)
        .collect();
    let (mut padded, mut square) = (vec![f32::NAN; rows * cols], vec![f32::NAN; rows * cols]);
    {
        let av = ArrayView::new([rows, cols], &a)?;
        let mut pv = ArrayViewMut::new([cols, rows], &mut padded)?;
        let mut sv = ArrayViewMut::new([cols, rows], &mut square)?;
        pv.discard_data();
        sv.discard_data();
        parallel_for_each(av.extent().tile::<16, 16>(), transpose_padded(&av, &mut pv))?;
        parallel_for_each(av.extent().tile::<16, 16>(), transpose_square(&av, &mut sv))?;
    }
    for i in 0..rows {
        for j in 0..cols {
            assert_eq!(padded[j * rows + i], a[i * cols + j], "padded: ({i}, {j})");
            assert_eq!(square[j * rows + i], a[i * cols + j], "square: ({i}, {j})");
        }
    }
    assert_validation_clean();
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Every barrier and fence
// ---------------------------------------------------------------------------------------------

/// Passes values around the tile through `tile_static` and global memory, with each kind of
/// barrier guarding the step that needs it, and the free fences before further barriers.
/// `flow_dependence` is a false positive: every read of a neighbour's `scratch` element is
/// within the tile and separated from the writes by a barrier with a global memory fence.
#[kernel(amp, allow(flow_dependence))]
fn fences(
    t: TiledIndex<32>,
    a: ArrayView<i32, 1>,
    scratch: ArrayViewMut<i32, 1>,
    out: ArrayViewMut<i32, 1>,
) {
    #[tile_static]
    let mut sh: [i32; 32];
    let l = t.local[0];
    let base = t.tile_origin[0];
    // tile_static only.
    sh[l] = a[t.global];
    t.barrier.wait_with_tile_static_memory_fence();
    let x = sh[31 - l];
    // Global memory only: the neighbour's write to `scratch`.
    scratch[t.global] = x * 2;
    t.barrier.wait_with_global_memory_fence();
    let y = scratch[base + (l + 1) % 32];
    // Both.
    t.barrier.wait_with_all_memory_fence();
    sh[l] = y + 1;
    scratch[t.global] = y + 2;
    tile_static_memory_fence(t.barrier);
    global_memory_fence(t.barrier);
    all_memory_fence(t.barrier);
    t.barrier.wait();
    out[t.global] = sh[(l + 2) % 32] * 1000 + scratch[base + (l + 3) % 32];
}

#[test]
fn every_barrier_and_fence() -> Result<(), amp::Error> {
    let n = 96;
    let a = Rng(0xfe).vec_i32(n, -100, 100);
    let (mut scratch, mut out) = (vec![0; n], vec![0; n]);
    {
        let av = ArrayView::new([n], &a)?;
        let mut scv = ArrayViewMut::new([n], &mut scratch)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        scv.discard_data();
        ov.discard_data();
        parallel_for_each(av.extent().tile::<32>(), fences(&av, &mut scv, &mut ov))?;
    }
    // CPU: the same steps, tile by tile.
    for tile in 0..n / 32 {
        let at = |l: usize| a[tile * 32 + l];
        let x = |l: usize| at(31 - l);
        let y = |l: usize| x((l + 1) % 32) * 2;
        for l in 0..32 {
            let g = tile * 32 + l;
            assert_eq!(scratch[g], y(l) + 2, "scratch[{g}]");
            assert_eq!(
                out[g],
                (y((l + 2) % 32) + 1) * 1000 + y((l + 3) % 32) + 2,
                "out[{g}]"
            );
        }
    }
    assert_validation_clean();
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Extents that are not a multiple of the tile: the error, then pad() and truncate()
// ---------------------------------------------------------------------------------------------

/// Reverses each tile of 16 (a tile past the data reads zeros), skipping the threads at or past
/// `n` without skipping the barrier.
#[kernel(amp)]
fn reverse_tiles_guarded(
    t: TiledIndex<16>,
    a: ArrayView<i32, 1>,
    out: ArrayViewMut<i32, 1>,
    n: u32,
) {
    #[tile_static]
    let mut sh: [i32; 16];
    let l = t.local[0];
    let inside = (t.global[0] as u32) < n;
    if inside {
        sh[l] = a[t.global];
    } else {
        sh[l] = 0;
    }
    t.barrier.wait();
    if inside {
        out[t.global] = sh[15 - l];
    }
}

/// The host version of `reverse_tiles_guarded` over the first `launched` elements.
fn reverse_tiles_cpu(a: &[i32], launched: usize, untouched: i32) -> Vec<i32> {
    let n = a.len();
    (0..n)
        .map(|g| {
            if g >= launched {
                return untouched;
            }
            let m = g / 16 * 16 + 15 - g % 16;
            if m < n {
                a[m]
            } else {
                0
            }
        })
        .collect()
}

#[test]
fn not_divisible_then_pad_and_truncate_rank1() -> Result<(), amp::Error> {
    let n = 100;
    let a: Vec<i32> = (1..=n as i32).collect();
    let mut out = vec![-1; n];
    {
        let av = ArrayView::new([n], &a)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        let domain = av.extent().tile::<16>();
        assert!(!domain.is_divisible());

        let err = parallel_for_each(domain, reverse_tiles_guarded(&av, &mut ov, n as u32))
            .expect_err("a launch over 100 in tiles of 16 must fail");
        assert!(
            matches!(&err, amp::Error::NotDivisible { kernel, extent, tile }
                if kernel == "reverse_tiles_guarded" && extent == "[100]" && tile == "[16]"),
            "{err:?}"
        );
        let msg = err.to_string();
        assert!(msg.contains("pad()") && msg.contains("truncate()"), "{msg}");
        ov.synchronize()?;
    }
    assert_eq!(out, vec![-1; n], "a refused launch must not write");

    // truncate: 96 threads, the last 4 elements untouched.
    {
        let av = ArrayView::new([n], &a)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        let domain = av.extent().tile::<16>().truncate();
        assert_eq!(domain.extent(), &[96]);
        parallel_for_each(domain, reverse_tiles_guarded(&av, &mut ov, n as u32))?;
    }
    assert_eq!(out, reverse_tiles_cpu(&a, 96, -1));

    // pad: 112 threads, 12 of them skipped.
    out.fill(-1);
    {
        let av = ArrayView::new([n], &a)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        let domain = av.extent().tile::<16>().pad();
        assert_eq!(domain.extent(), &[112]);
        parallel_for_each(domain, reverse_tiles_guarded(&av, &mut ov, n as u32))?;
    }
    assert_eq!(out, reverse_tiles_cpu(&a, 112, -1));
    assert_validation_clean();
    Ok(())
}

/// Rank 2: every element becomes the sum of its row within its tile (through `tile_static`),
/// the threads outside `rows x cols` skipped.
#[kernel(amp)]
fn tile_row_sums_guarded(
    t: TiledIndex<8, 8>,
    a: ArrayView<i32, 2>,
    out: ArrayViewMut<i32, 2>,
    rows: u32,
    cols: u32,
) {
    #[tile_static]
    let mut sh: [[i32; 8]; 8];
    let (r, c) = (t.local[0], t.local[1]);
    let inside = (t.global[0] as u32) < rows && (t.global[1] as u32) < cols;
    sh[r][c] = if inside { a[t.global] } else { 0 };
    t.barrier.wait();
    if inside {
        let mut s = 0;
        for k in 0..8 {
            s += sh[r][k];
        }
        out[t.global] = s;
    }
}

#[test]
fn not_divisible_then_pad_and_truncate_rank2() -> Result<(), amp::Error> {
    let (rows, cols) = (21, 13);
    let a = Rng(0x2d).vec_i32(rows * cols, -50, 50);
    let cpu = |launched: [usize; 2]| -> Vec<i32> {
        let mut out = vec![i32::MIN; rows * cols];
        for i in 0..rows.min(launched[0]) {
            for j in 0..cols.min(launched[1]) {
                let start = j / 8 * 8;
                out[i * cols + j] = (start..(start + 8).min(cols))
                    .map(|k| a[i * cols + k])
                    .sum();
            }
        }
        out
    };
    let mut out = vec![i32::MIN; rows * cols];
    {
        let av = ArrayView::new([rows, cols], &a)?;
        let mut ov = ArrayViewMut::new([rows, cols], &mut out)?;
        let domain = av.extent().tile::<8, 8>();
        let err = parallel_for_each(
            domain,
            tile_row_sums_guarded(&av, &mut ov, rows as u32, cols as u32),
        )
        .expect_err("21 x 13 in 8 x 8 tiles must fail");
        assert!(
            matches!(&err, amp::Error::NotDivisible { extent, tile, .. } if extent == "[21, 13]" && tile == "[8, 8]"),
            "{err:?}"
        );
        assert!(err.to_string().contains("pad") && err.to_string().contains("truncate"));

        let padded = domain.pad();
        assert_eq!(padded.extent(), &[24, 16]);
        parallel_for_each(
            padded,
            tile_row_sums_guarded(&av, &mut ov, rows as u32, cols as u32),
        )?;
    }
    assert_eq!(out, cpu([24, 16]));
    out.fill(i32::MIN);
    {
        let av = ArrayView::new([rows, cols], &a)?;
        let mut ov = ArrayViewMut::new([rows, cols], &mut out)?;
        let truncated = av.extent().tile::<8, 8>().truncate();
        assert_eq!(truncated.extent(), &[16, 8]);
        parallel_for_each(
            truncated,
            tile_row_sums_guarded(&av, &mut ov, rows as u32, cols as u32),
        )?;
    }
    assert_eq!(out, cpu([16, 8]));
    assert_validation_clean();
    Ok(())
}

/// `truncate()` of an extent smaller than its tile leaves nothing to launch: nothing runs.
#[test]
fn truncate_to_nothing_runs_nothing() -> Result<(), amp::Error> {
    let a = vec![1; 10];
    let mut out = vec![0; 10];
    let av = ArrayView::new([10], &a)?;
    let mut ov = ArrayViewMut::new([10], &mut out)?;
    let domain = av.extent().tile::<16>().truncate();
    assert_eq!(domain.extent(), &[0]);
    parallel_for_each(domain, reverse_tiles_guarded(&av, &mut ov, 10))?;
    drop(ov);
    assert_eq!(out, vec![0; 10]);
    assert_validation_clean();
    Ok(())
}

// A `tile_static` array over the device's limit cannot be written with literal (or named)
// sizes: it is a compile error (tests/ui/tiled_tile_static_too_large.rs); no run-time case exists.

// ---------------------------------------------------------------------------------------------
// Outer constants in a simple kernel
// ---------------------------------------------------------------------------------------------

const N: usize = 5;
const SCALE: f32 = 2.5;
const FLAG: bool = true;
const OFFSET: i32 = -3;
const MASK: u32 = 0xf0;

#[kernel(amp)]
fn outer_constants(
    idx: Index<1>,
    a: ArrayView<f32, 1>,
    out_f: ArrayViewMut<f32, 1>,
    out_i: ArrayViewMut<i32, 1>,
    out_u: ArrayViewMut<u32, 1>,
) {
    let mut s = 0.0;
    // `idx[0] % N` settles N as `usize` (see `outer_usize_const_used_only_as_loop_bound`).
    let phase = idx[0] % N;
    for k in 0..N {
        s += a[idx] + k as f32;
    }
    out_f[idx] = s * SCALE + phase as f32;
    out_i[idx] = if FLAG {
        idx[0] as i32 * OFFSET + OFFSET
    } else {
        0
    };
    out_u[idx] = (idx[0] as u32 * 7) & MASK;
}

#[test]
fn outer_constants_in_a_simple_kernel() -> Result<(), amp::Error> {
    let n = 100;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 20.0).collect();
    let (mut of, mut oi, mut ou) = (vec![0.0f32; n], vec![0i32; n], vec![0u32; n]);
    {
        let av = ArrayView::new([n], &a)?;
        let mut fv = ArrayViewMut::new([n], &mut of)?;
        let mut iv = ArrayViewMut::new([n], &mut oi)?;
        let mut uv = ArrayViewMut::new([n], &mut ou)?;
        parallel_for_each(av.extent(), outer_constants(&av, &mut fv, &mut iv, &mut uv))?;
    }
    for i in 0..n {
        let mut s = 0.0f32;
        for k in 0..N {
            s += a[i] + k as f32;
        }
        assert_eq!(of[i], s * SCALE + (i % N) as f32, "f32 at {i}");
        assert_eq!(
            oi[i],
            if FLAG { i as i32 * OFFSET + OFFSET } else { 0 },
            "i32 at {i}"
        );
        assert_eq!(ou[i], (i as u32 * 7) & MASK, "u32 at {i}");
    }
    assert_validation_clean();
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Regressions: bugs found while writing these tests, fixed since; each doc comment says what
// used to go wrong
// ---------------------------------------------------------------------------------------------

/// `const N: usize` used only as a loop bound whose variable is never used as a `usize`: in
/// Rust `k` is a `usize`; the kernel compiler cannot see the constant's declaration and infers
/// its type from the uses, so `0` defaults to `i32`, N becomes `i32`, and the launcher's check
/// `let value: i32 = N;` fails to compile ("expected `i32`, found `usize`" at `N`).
#[test]
fn outer_usize_const_used_only_as_loop_bound() {
    let kernel = amp_spirv::compile_str(
        "#[kernel(amp)]
        fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
            let mut s = 0.0;
            for k in 0..N { s += k as f32; }
            out[idx] = s;
        }",
    )
    .expect("the kernel compiles");
    assert_eq!(kernel.consts.len(), 1);
    assert_eq!(
        kernel.consts[0].ty,
        amp_spirv::Scalar::Usize,
        "a constant that bounds a range of an unsuffixed `0` must be taken as usize, as rustc does"
    );
}

/// A rejected tile shape leaves `t` undeclared as a tiled index, so every `t.global` after it is
/// a second, misleading error ("field access is not supported in kernels"); see
/// tests/ui/tiled_tile_too_large.stderr and tests/ui/tiled_tile_dimension_zero.stderr.
#[test]
fn rejected_tile_shape_reports_one_error() {
    for shape in ["64, 64", "16, 0"] {
        let err = amp_spirv::compile_str(&format!(
            "#[kernel(amp)]
            fn k(t: TiledIndex<{shape}>, out: ArrayViewMut<f32, 2>) {{
                out[t.global] = 1.0;
            }}"
        ))
        .expect_err("the tile shape is invalid");
        assert_eq!(err.len(), 1, "TiledIndex<{shape}>:\n{err}");
    }
}

/// A rejected `#[tile_static]` declaration (in a simple kernel) does not declare the variable,
/// so every later use is a second error ("cannot find `shared` in this kernel"); see
/// tests/ui/tiled_tile_static_in_simple_kernel.stderr.
#[test]
fn rejected_tile_static_reports_one_error() {
    let err = amp_spirv::compile_str(
        "#[kernel(amp)]
        fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>) {
            #[tile_static]
            let mut shared: [i32; 64];
            shared[0] = 1;
            out[idx] = shared[0];
        }",
    )
    .expect_err("tile_static needs a tiled kernel");
    assert_eq!(err.len(), 1, "{err}");
}

/// `idx.barrier.wait()` in a simple kernel is reported as "method `wait` is not supported in
/// kernels" with a help listing `.min()`, `.max()`...: it should say that barriers belong to
/// tiled kernels (`TiledIndex`); see tests/ui/tiled_barrier_in_simple_kernel.stderr.
#[test]
fn barrier_in_simple_kernel_points_to_the_tiled_model() {
    let err = amp_spirv::compile_str(
        "#[kernel(amp)]
        fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>) {
            out[idx] = 1;
            idx.barrier.wait();
        }",
    )
    .expect_err("a simple kernel has no barrier");
    let text = err.to_string();
    assert!(
        text.contains("TiledIndex") || text.contains("tiled"),
        "{text}"
    );
}

#[kernel(amp)]
fn first_n_of_each_tile(
    t: TiledIndex<64>,
    v: ArrayView<i32, 1>,
    n: u32,
    out: ArrayViewMut<i32, 1>,
) {
    #[tile_static]
    let mut sh: [i32; 64];
    sh[t.local[0]] = v[t.global];
    t.barrier.wait();
    if t.local[0] < n as usize {
        out[t.global] = sh[t.local[0]] * 2 + sh[(t.local[0] + n as usize) % 64];
    }
}

/// A work-item loop that is one `if t.local[0] < n` runs only the threads below `n` natively:
/// every `n` from none to more than the tile gives the host's result, the threads at or
/// above `n` writing nothing.
#[test]
fn a_region_guarded_by_the_local_index_runs_the_threads_below_the_bound() -> Result<(), amp::Error>
{
    let v: Vec<i32> = (0..192).map(|i| i * 7 - 300).collect();
    for n in [0u32, 1, 5, 63, 64, 100] {
        let mut out = vec![-1i32; v.len()];
        {
            let vv = ArrayView::new([v.len()], &v)?;
            let mut ov = ArrayViewMut::new([v.len()], &mut out)?;
            parallel_for_each(
                Extent::new([v.len()]).tile::<64>(),
                first_n_of_each_tile(&vv, n, &mut ov),
            )?;
        }
        for (i, &o) in out.iter().enumerate() {
            let (tile, l) = (i / 64 * 64, i % 64);
            let want = if (l as u32) < n {
                v[i] * 2 + v[tile + (l + n as usize) % 64]
            } else {
                -1
            };
            assert_eq!(o, want, "n {n}, element {i}");
        }
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn every_mth_of_each_tile(
    t: TiledIndex<64>,
    v: ArrayView<i32, 1>,
    m: u32,
    out: ArrayViewMut<i32, 1>,
) {
    #[tile_static]
    let mut sh: [i32; 64];
    sh[t.local[0]] = v[t.global];
    t.barrier.wait();
    if t.local[0] % m as usize == 0 {
        // Past the end of `sh` for the largest m: the index clamps to its last element.
        out[t.global] = sh[t.local[0] + m as usize / 2] + 1;
    }
}

/// A work-item loop that is one `if t.local[0] % m == 0` runs every m-th thread natively;
/// `m == 0` is thread 0 alone (`l % 0` is `l`); its `tile_static` index goes unclamped where
/// the last such thread keeps it in range, clamped as always where not.
#[test]
fn a_region_guarded_by_a_multiple_of_the_local_index_runs_every_mth_thread(
) -> Result<(), amp::Error> {
    let v: Vec<i32> = (0..128).map(|i| i * 3 - 100).collect();
    for m in [0u32, 1, 2, 7, 64, 200] {
        let mut out = vec![-1i32; v.len()];
        {
            let vv = ArrayView::new([v.len()], &v)?;
            let mut ov = ArrayViewMut::new([v.len()], &mut out)?;
            parallel_for_each(
                Extent::new([v.len()]).tile::<64>(),
                every_mth_of_each_tile(&vv, m, &mut ov),
            )?;
        }
        for (i, &o) in out.iter().enumerate() {
            let l = (i % 64) as u32;
            let hit = if m == 0 { l == 0 } else { l.is_multiple_of(m) };
            let read = (i / 64 * 64) + ((l + m / 2).min(63) as usize);
            assert_eq!(o, if hit { v[read] + 1 } else { -1 }, "m {m}, element {i}");
        }
    }
    assert_validation_clean();
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The memory model across tiles (docs/kernel-language.md): a fence on views and arrays,
// followed by an atomic another tile observes, publishes the thread's earlier writes to it.

/// One launch sums the whole input: each tile writes its partial sum, fences global memory and
/// counts itself done with an atomic; the tile that counts last (it saw every other tile's
/// count) reads every partial and writes the total (CUDA's threadfence reduction). Only that
/// tile writes `total`, which the compiler cannot prove.
#[kernel(amp, allow(write_conflict))]
fn sum_by_last_tile(
    t: TiledIndex<64>,
    a: ArrayView<i32, 1>,
    partials: ArrayViewMut<i32, 1>,
    done: ArrayViewMut<u32, 1>,
    total: ArrayViewMut<i32, 1>,
) {
    #[tile_static]
    let mut sh: [i32; 64];
    #[tile_static]
    let mut last: u32;
    let l = t.local[0];
    sh[l] = a[t.global];
    t.barrier.wait();
    if l == 0 {
        let mut s = 0;
        for i in 0..64 {
            s += sh[i];
        }
        partials[t.tile] = s;
        global_memory_fence(t.barrier);
        let before = atomic_fetch_add(&mut done[0], 1u32);
        last = (before + 1 == partials.extent()[0] as u32) as u32;
    }
    t.barrier.wait();
    if last == 1 && l == 0 {
        let mut s = 0;
        for i in 0..partials.extent()[0] {
            s += partials[i];
        }
        total[0] = s;
    }
}

#[test]
fn writes_fenced_before_an_atomic_are_seen_by_the_tile_that_observes_it() -> Result<(), amp::Error>
{
    for tiles in [1usize, 7, 64, 509] {
        let a: Vec<i32> = (0..tiles * 64).map(|i| (i % 1000) as i32 - 400).collect();
        let mut partials = vec![0i32; tiles];
        let mut done = vec![0u32; 1];
        let mut total = vec![0i32; 1];
        {
            let av = ArrayView::new([a.len()], &a)?;
            let mut pv = ArrayViewMut::new([tiles], &mut partials)?;
            let mut dv = ArrayViewMut::new([1], &mut done)?;
            let mut tv = ArrayViewMut::new([1], &mut total)?;
            parallel_for_each(
                av.extent().tile::<64>(),
                sum_by_last_tile(&av, &mut pv, &mut dv, &mut tv),
            )?;
        }
        assert_eq!(done[0] as usize, tiles);
        assert_eq!(total[0], a.iter().sum::<i32>(), "{tiles} tiles");
    }
    assert_validation_clean();
    Ok(())
}

/// Tile sizes shared from another module, as a program keeps them in one place.
mod sizes {
    /// The tile's width.
    pub const EDGE: usize = 8;
}
use sizes::EDGE;

#[kernel(amp)]
fn row_sums_by_imported_edge(t: TiledIndex<EDGE>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    #[tile_static]
    let mut part: [u32; EDGE];
    let l = t.local[0];
    part[l] = a[t.global];
    t.barrier.wait();
    if l == 0 {
        let mut s = 0;
        for k in 0..EDGE {
            s += part[k];
        }
        out[t.tile] = s;
    }
}

/// A constant imported with `use` is a tile size (and a `tile_static` length) like one
/// declared beside the kernel.
#[test]
fn an_imported_constant_is_a_tile_size() -> Result<(), amp::Error> {
    let a: Vec<u32> = (0..64).collect();
    let mut out = vec![0u32; 64 / EDGE];
    {
        let av = ArrayView::new([64], &a)?;
        let mut ov = ArrayViewMut::new([64 / EDGE], &mut out)?;
        parallel_for_each(
            Extent::new([64]).tile::<EDGE>(),
            row_sums_by_imported_edge(&av, &mut ov),
        )?;
    }
    let expect: Vec<u32> = a.chunks(EDGE).map(|c| c.iter().sum()).collect();
    assert_eq!(out, expect);
    assert_validation_clean();
    Ok(())
}

/// A wavefront's step: the threads up to `m` write, written both ways round, with a barrier
/// between (the native accelerator runs only those threads, up to the tile's last).
#[kernel(amp)]
fn up_to(t: TiledIndex<16>, out: ArrayViewMut<u32, 1>, m: usize) {
    let l = t.local[0];
    if l <= m {
        out[t.global] = 1 + l as u32;
    }
    t.barrier.wait();
    if m >= l {
        out[t.global] += 100;
    }
    t.barrier.wait();
    if m + 1 > l {
        out[t.global] += 1000;
    }
}

#[test]
fn threads_up_to_a_bound_run_whatever_the_bound() -> Result<(), amp::Error> {
    for m in [0usize, 5, 14, 15, 16, 100, u32::MAX as usize - 1] {
        let mut out = vec![0u32; 48];
        let mut view = ArrayViewMut::new([48], &mut out)?;
        parallel_for_each(view.extent().tile::<16>(), up_to(&mut view, m))?;
        view.synchronize()?;
        drop(view);
        let want: Vec<u32> = (0..48)
            .map(|g| {
                let l = g % 16;
                if l <= m {
                    1101 + l as u32
                } else {
                    0
                }
            })
            .collect();
        assert_eq!(out, want, "m = {m}");
    }
    assert_validation_clean();
    Ok(())
}
