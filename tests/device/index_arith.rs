//! C++ AMP's index arithmetic in kernels, checked against the same arithmetic on the host's
//! `Index`: `+ -` between indices, `+ - * / %` with a `usize` on either side, compound
//! assignment on an index local, `==` / `!=`, `Index::new` and the tiled index's fields, and
//! neighbour access through `idx + Index::new([..])` (a stencil).

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

/// Each cell: itself times 1000, plus its right neighbour, plus 10 times the one below (where
/// they exist), plus 7 off the origin.
#[kernel(amp)]
fn neighbours(idx: Index<2>, a: ArrayView<i32, 2>, out: ArrayViewMut<i32, 2>) {
    let e = a.extent();
    let right = idx + Index::new([0, 1]);
    let down = Index::new([1, 0]) + idx;
    let mut v = a[idx] * 1000;
    if right[1] < e[1] {
        v += a[right];
    }
    if down[0] < e[0] {
        v += a[down] * 10;
    }
    if idx != Index::new([0, 0]) {
        v += 7;
    }
    out[idx] = v;
}

#[test]
fn neighbours_through_index_sums() -> Result<(), amp::Error> {
    let (h, w) = (5, 9);
    let a: Vec<i32> = (0..h * w).map(|i| (i as i32 * 37) % 101 - 50).collect();
    let mut out = vec![0; h * w];
    {
        let av = ArrayView::new([h, w], &a)?;
        let mut ov = ArrayViewMut::new([h, w], &mut out)?;
        parallel_for_each(ov.extent(), neighbours(&av, &mut ov))?;
    }
    let at = |i: Index<2>| a[i[0] * w + i[1]];
    for r in 0..h {
        for c in 0..w {
            let idx = Index::new([r, c]);
            let mut v = at(idx) * 1000;
            if c + 1 < w {
                v += at(idx + Index::new([0, 1]));
            }
            if r + 1 < h {
                v += at(Index::new([1, 0]) + idx) * 10;
            }
            if idx != Index::new([0, 0]) {
                v += 7;
            }
            assert_eq!(out[r * w + c], v, "cell {idx}");
        }
    }
    assert_validation_clean();
    Ok(())
}

/// The number of results [`index_ops`] writes per thread.
const SLOTS: usize = 16;

#[kernel(amp)]
fn index_ops(idx: Index<2>, out: ArrayViewMut<u32, 3>) {
    let p = idx * 3 + 1;
    let q = 10 + p;
    let r = q % 4;
    let s = (q - idx) / 2;
    let t = 100 - idx;
    let mut m = idx;
    m += Index::new([5, 6]);
    m -= 1;
    m *= 2;
    let wrapped = idx - Index::new([1, 1]);
    let (i, j) = (idx[0], idx[1]);
    out[[i, j, 0]] = p[0] as u32;
    out[[i, j, 1]] = p[1] as u32;
    out[[i, j, 2]] = q[0] as u32;
    out[[i, j, 3]] = r[1] as u32;
    out[[i, j, 4]] = s[0] as u32;
    out[[i, j, 5]] = s[1] as u32;
    out[[i, j, 6]] = t[1] as u32;
    out[[i, j, 7]] = m[0] as u32;
    out[[i, j, 8]] = m[1] as u32;
    out[[i, j, 9]] = wrapped[0] as u32;
    out[[i, j, 10]] = wrapped[1] as u32;
    out[[i, j, 11]] = ((p - 1) / 3 == idx) as u32;
    out[[i, j, 12]] = (idx + 1 != idx) as u32;
    out[[i, j, 13]] = (idx == Index::new([2, 3])) as u32;
    out[[i, j, 14]] = (idx != Index::new([2, i])) as u32;
    out[[i, j, 15]] = (out.extent() - Index::new([1, 1, 1]))[2] as u32;
}

#[test]
fn index_operators_match_the_host() -> Result<(), amp::Error> {
    let (h, w) = (4, 6);
    let mut out = vec![0u32; h * w * SLOTS];
    {
        let mut ov = ArrayViewMut::new([h, w, SLOTS], &mut out)?;
        parallel_for_each(Extent::new([h, w]), index_ops(&mut ov))?;
    }
    for i in 0..h {
        for j in 0..w {
            let idx = Index::new([i, j]);
            let p = idx * 3 + 1;
            let q = 10 + p;
            let r = q % 4;
            let s = (q - idx) / 2;
            let t = 100 - idx;
            let mut m = idx;
            m += Index::new([5, 6]);
            m -= 1;
            m *= 2;
            // The device wraps where the host would overflow (`0 - 1`).
            let wrapped = [i.wrapping_sub(1) as u32, j.wrapping_sub(1) as u32];
            let want: [u32; SLOTS] = [
                p[0] as u32,
                p[1] as u32,
                q[0] as u32,
                r[1] as u32,
                s[0] as u32,
                s[1] as u32,
                t[1] as u32,
                m[0] as u32,
                m[1] as u32,
                wrapped[0],
                wrapped[1],
                u32::from((p - 1) / 3 == idx),
                u32::from(idx + 1 != idx),
                u32::from(idx == Index::new([2, 3])),
                u32::from(idx != Index::new([2, i])),
                SLOTS as u32 - 1,
            ];
            let at = (i * w + j) * SLOTS;
            assert_eq!(out[at..at + SLOTS], want, "thread {idx}");
        }
    }
    assert_eq!(out[(2 * w + 3) * SLOTS + 13], 1);
    assert_validation_clean();
    Ok(())
}

/// In a tiled kernel the fields are indices too: `global - tile_origin == local`, and
/// `tile_origin + local == global`.
#[kernel(amp)]
fn tiled_fields(t: TiledIndex<2, 4>, out: ArrayViewMut<u32, 2>) {
    let a = t.global - t.tile_origin == t.local;
    let b = t.tile_origin + t.local == t.global;
    out[t.global] = a as u32 + 2 * (b as u32);
}

#[test]
fn tiled_index_fields_combine() -> Result<(), amp::Error> {
    let mut out = vec![0u32; 6 * 8];
    {
        let mut ov = ArrayViewMut::new([6, 8], &mut out)?;
        parallel_for_each(ov.extent().tile::<2, 4>(), tiled_fields(&mut ov))?;
    }
    assert_eq!(out, vec![3; 6 * 8]);
    assert_validation_clean();
    Ok(())
}

/// Index arithmetic straight in a view's brackets: a write one row and one column down, reads
/// at `idx + 1` (both components) and at `2 * idx - idx`.
#[kernel(amp)]
fn shifted(idx: Index<2>, a: ArrayView<i32, 2>, out: ArrayViewMut<i32, 2>) {
    out[idx + Index::new([1, 1])] = a[idx] + 10 * a[idx + 1] + 100 * a[2 * idx - idx];
}

#[test]
fn index_sums_index_views_directly() -> Result<(), amp::Error> {
    let (h, w) = (6, 5);
    let a: Vec<i32> = (0..h * w).map(|i| (i as i32 * 13) % 23 - 11).collect();
    let mut out = vec![-1; h * w];
    {
        let av = ArrayView::new([h, w], &a)?;
        let mut ov = ArrayViewMut::new([h, w], &mut out)?;
        parallel_for_each(Extent::new([h - 1, w - 1]), shifted(&av, &mut ov))?;
    }
    for r in 0..h {
        for c in 0..w {
            let want = if r == 0 || c == 0 {
                -1
            } else {
                let (i, j) = (r - 1, c - 1);
                101 * a[i * w + j] + 10 * a[r * w + c]
            };
            assert_eq!(out[r * w + c], want, "cell [{r}, {c}]");
        }
    }
    assert_validation_clean();
    Ok(())
}

/// A two-dimensional kernel without loops (which the native accelerator runs 32 threads of a
/// row at a time) whose locals live across the batch's separate work-item loops: an array
/// changed in a nested block and a block-valued index.
#[kernel(amp, unchecked)]
fn rows_with_blocks(idx: Index<2>, a: &Array<i32, 2>, out: &mut Array<i32, 2>) {
    let (i, j) = (idx[0], idx[1]);
    let mut arr = [a[idx], a[idx] + 1, 3];
    {
        let y = 100;
        arr[1] += y;
    }
    let mut k = 0;
    arr[k] += {
        k += 1;
        10
    };
    let mut m = [[0; 3]; 2];
    m[0][j % 3] = 7;
    let row = m[0];
    let (p, q) = (i, j);
    let (p, q) = (q, p);
    out[idx] = arr[0] * 7 + arr[1] + arr[2] * (k as i32) + (p * 1000 + q) as i32 + row[1];
}

#[test]
fn a_two_dimensional_kernel_with_nested_blocks_computes_what_the_host_does(
) -> Result<(), amp::Error> {
    let (rows, cols) = (3, 70);
    let a_host: Vec<i32> = (0..rows * cols).map(|x| x as i32 * 3 - 50).collect();
    let a = Array::from_slice([rows, cols], &a_host)?;
    let mut out = Array::<i32, 2>::new([rows, cols])?;
    // SAFETY: every access is at the thread's own index of arrays of the domain's extent.
    parallel_for_each(out.extent(), unsafe { rows_with_blocks(&a, &mut out) })?;
    let got = out.to_vec()?;
    for i in 0..rows {
        for j in 0..cols {
            let x = a_host[i * cols + j];
            // Rust evaluates a primitive compound assignment's right side first: `arr[1] += 10`.
            let row1 = if j % 3 == 1 { 7 } else { 0 };
            let want = x * 7 + (x + 1 + 100 + 10) + 3 + (j * 1000 + i) as i32 + row1;
            assert_eq!(got[i * cols + j], want, "at [{i}, {j}]");
        }
    }
    assert_validation_clean();
    Ok(())
}

/// A checked two-dimensional kernel without loops whose locals (arrays copied and changed, a
/// nested block, a block-valued index, shadowed and swapped tuples) live across the separate
/// work-item loops of its native batch, which keeps them in per-thread frames.
#[kernel(amp)]
fn locals_across_batch_loops(
    idx: Index<2>,
    a: ArrayView<i32, 2>,
    out: ArrayViewMut<i32, 2>,
    big: u32,
) {
    let x = a[idx];
    let mut arr = [x, x + 1, x + 2, x + 3];
    let mut c = arr;
    c[0] = 99;
    let mut m = [[0; 3]; 2];
    m[1][2] = x;
    m[0][idx[1] % 3] = 7;
    let row = m[1];
    m[1][0] = -5;
    let y = x;
    let y = y * 2;
    {
        let y = 1000;
        arr[1] += y;
    }
    let (p, q) = (y, x);
    let (p, q) = (q, p);
    let mut i = 0;
    arr[i] += {
        i += 1;
        10
    };
    let z = {
        let t = x * 3;
        t - 1
    };
    let w = big / 2 + 1;
    out[idx] = arr[0]
        + arr[1] * 3
        + c[0]
        + c[1] * 2
        + m[0][1]
        + row[2]
        + p * 7
        + q * 11
        + z * 13
        + (i as i32) * 17
        + (w % 1000) as i32;
}

#[test]
fn locals_that_live_across_a_batchs_loops_keep_their_values() -> Result<(), amp::Error> {
    let (rows, cols, big) = (2, 45, 4_000_001u32);
    let a_host: Vec<i32> = (0..rows * cols).map(|x| x as i32 * 5 - 90).collect();
    let mut got = vec![0; rows * cols];
    {
        let a = ArrayView::new([rows, cols], &a_host)?;
        let mut out = ArrayViewMut::new([rows, cols], &mut got)?;
        parallel_for_each(out.extent(), locals_across_batch_loops(&a, &mut out, big))?;
        out.synchronize()?;
    }
    for r in 0..rows {
        for col in 0..cols {
            let x = a_host[r * cols + col];
            // arr[1] gains 1000 in the block and 10 from `arr[i] += { i += 1; 10 }` (Rust
            // evaluates the right side first, so the place is arr[1]); m[0][1] is 7 where
            // col % 3 == 1; row is m[1] before m[1][0] changed, [0, 0, x]; p, q swap to x, 2x.
            let m01 = if col % 3 == 1 { 7 } else { 0 };
            let want = x
                + (x + 1 + 1000 + 10) * 3
                + 99
                + (x + 1) * 2
                + m01
                + x
                + x * 7
                + 2 * x * 11
                + (3 * x - 1) * 13
                + 17
                + ((big / 2 + 1) % 1000) as i32;
            assert_eq!(got[r * cols + col], want, "at [{r}, {col}]");
        }
    }
    assert_validation_clean();
    Ok(())
}
