//! Kernels over a whole grid whose work is under an `if` comparing the thread's index with
//! bounds (a stencil's interior, PolyBench's form): natively a batch runs only the lanes the
//! `if` lets through, and its guard knows their range. Every result against the host bit for
//! bit, on grids whose rows are not whole batches, with bounds from both sides, strict or not,
//! written either way round, from scalar parameters past the grid or empty; and an access the
//! bounds let out of its view still reports (on a Vulkan device when the array is read: the
//! launch is asynchronous).

use crate::bounds::out_of_bounds;
use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

/// A 7-point sum over a 3-D grid's interior.
#[kernel(amp)]
fn interior_3d(idx: Index<3>, a: &Array<f32, 3>, b: &mut Array<f32, 3>) {
    let (i, j, k) = (idx[0], idx[1], idx[2]);
    let (ni, nj, nk) = (a.extent()[0], a.extent()[1], a.extent()[2]);
    if i >= 1 && i < ni - 1 && j >= 1 && j < nj - 1 && k >= 1 && k < nk - 1 {
        b[[i, j, k]] = a[[i - 1, j, k]]
            + a[[i + 1, j, k]]
            + a[[i, j - 1, k]] * 0.5
            + a[[i, j + 1, k]]
            + a[[i, j, k - 1]] * 0.25
            + a[[i, j, k + 1]];
    }
}

fn interior_3d_host(n: [usize; 3], a: &[f32], b: &mut [f32]) {
    let at = |i: usize, j: usize, k: usize| a[(i * n[1] + j) * n[2] + k];
    for i in 1..n[0] - 1 {
        for j in 1..n[1] - 1 {
            for k in 1..n[2] - 1 {
                b[(i * n[1] + j) * n[2] + k] = at(i - 1, j, k)
                    + at(i + 1, j, k)
                    + at(i, j - 1, k) * 0.5
                    + at(i, j + 1, k)
                    + at(i, j, k - 1) * 0.25
                    + at(i, j, k + 1);
            }
        }
    }
}

/// Bounds written the other way round and strictly (`lo < i`, `hi >= i`), from parameters.
#[kernel(amp)]
fn between(idx: Index<1>, a: &Array<f32, 1>, out: &mut Array<f32, 1>, lo: u32, hi: u32) {
    let i = idx[0] as u32;
    if lo < i && hi >= i {
        out[idx] = a[(i - 1) as usize] * 2.0 + 1.0;
    }
}

/// A bound that lets the last column read past its row.
#[kernel(amp)]
fn past_the_row(idx: Index<2>, a: &Array<f32, 2>, out: &mut Array<f32, 2>, m: u32) {
    let (i, j) = (idx[0], idx[1] as u32);
    if j >= 1 && j <= m {
        out[idx] = a[[i, (j + 1) as usize]] + 1.0;
    }
}

fn grid(n: usize, salt: u32) -> Vec<f32> {
    (0..n)
        .map(|x| ((x as u32).wrapping_mul(2_654_435_761) ^ salt) % 1000)
        .map(|v| v as f32 * 0.013 - 3.0)
        .collect()
}

#[test]
fn an_interior_if_gives_the_hosts_results() -> Result<(), amp::Error> {
    // Rows of 77 and 33 threads: whole batches and a shorter last one; and rows of 3.
    for n in [[5usize, 6, 77], [4, 3, 33], [3, 40, 3]] {
        let len = n[0] * n[1] * n[2];
        let input = grid(len, 7);
        let start = grid(len, 99);
        let a = Array::from_slice(n, &input)?;
        let mut b = Array::from_slice(n, &start)?;
        parallel_for_each(b.extent(), interior_3d(&a, &mut b))?;
        let mut want = start.clone();
        interior_3d_host(n, &input, &mut want);
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&b.to_vec()?), bits(&want), "grid {n:?}");
    }

    let n = 100;
    let input = grid(n, 3);
    // Inside, from 0, past the end, one thread, and none (`hi` below `lo`).
    for (lo, hi) in [(10u32, 70u32), (0, 40), (50, 1000), (31, 32), (60, 20)] {
        let start = grid(n, lo ^ hi);
        let a = Array::from_slice([n], &input)?;
        let mut out = Array::from_slice([n], &start)?;
        parallel_for_each(out.extent(), between(&a, &mut out, lo, hi))?;
        let mut want = start.clone();
        for i in 0..n as u32 {
            if lo < i && hi >= i {
                want[i as usize] = input[i as usize - 1] * 2.0 + 1.0;
            }
        }
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&out.to_vec()?), bits(&want), "lanes {lo}..={hi}");
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn an_interior_if_that_lets_an_access_out_still_reports() -> Result<(), amp::Error> {
    let (rows, cols) = (3usize, 70usize);
    let input = grid(rows * cols, 11);
    let a = Array::from_slice([rows, cols], &input)?;
    // `j <= cols - 2` stays inside: every result as the host's.
    let mut out = Array::<f32, 2>::new([rows, cols])?;
    parallel_for_each(out.extent(), past_the_row(&a, &mut out, cols as u32 - 2))?;
    let got = out.to_vec()?;
    for i in 0..rows {
        for j in 0..cols {
            let want = match j >= 1 && j <= cols - 2 {
                true => input[i * cols + j + 1] + 1.0,
                false => 0.0,
            };
            assert_eq!(got[i * cols + j].to_bits(), want.to_bits(), "[{i}, {j}]");
        }
    }
    // `j <= cols - 1` reads column `cols` at the last one.
    let mut out = Array::<f32, 2>::new([rows, cols])?;
    let launched = parallel_for_each(out.extent(), past_the_row(&a, &mut out, cols as u32 - 1))
        .and_then(|()| out.to_vec().map(drop));
    let (kernel, param, index, extent) = out_of_bounds(launched);
    assert_eq!((kernel.as_str(), param.as_str()), ("past_the_row", "a"));
    assert_eq!(index[1], cols);
    assert_eq!(extent, [rows, cols]);
    assert_validation_clean();
    Ok(())
}
