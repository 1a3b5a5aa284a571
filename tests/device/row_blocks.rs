//! Batched kernels over blocks of rows: natively, a chunk's whole rows of one plane whose
//! guard passes for all of them run in one call. Every result against the host bit for bit,
//! on grids whose chunks start and end inside planes, whose rows are not whole batches, with
//! shifted indices from parameters; and where one row of each plane reads outside its view,
//! the other rows keep their results and the launch reports that access.

use crate::bounds::out_of_bounds;
use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

/// A 7-point step with every index shifted by one: the domain is the grid's interior.
#[kernel(amp)]
fn shifted_7(idx: Index<3>, a: &Array<f32, 3>, out: &mut Array<f32, 3>, w: f32) {
    let (i, j, k) = (idx[0] + 1, idx[1] + 1, idx[2] + 1);
    out[[i, j, k]] = w * a[[i, j, k]]
        + (a[[i - 1, j, k]] + a[[i + 1, j, k]])
        + (a[[i, j - 1, k]] - a[[i, j + 1, k]]) * 0.5
        + (a[[i, j, k - 1]] + a[[i, j, k + 1]]) * 0.25;
}

fn shifted_7_host(n: [usize; 3], a: &[f32], out: &mut [f32], w: f32) {
    let at = |i: usize, j: usize, k: usize| a[(i * n[1] + j) * n[2] + k];
    for i in 1..n[0] - 1 {
        for j in 1..n[1] - 1 {
            for k in 1..n[2] - 1 {
                out[(i * n[1] + j) * n[2] + k] = w * at(i, j, k)
                    + (at(i - 1, j, k) + at(i + 1, j, k))
                    + (at(i, j - 1, k) - at(i, j + 1, k)) * 0.5
                    + (at(i, j, k - 1) + at(i, j, k + 1)) * 0.25;
            }
        }
    }
}

/// Row `i + s` of `a` into row `i` of `out`, the column shifted by `t`.
#[kernel(amp)]
fn shifted_rows(idx: Index<2>, a: &Array<u32, 2>, out: &mut Array<u32, 2>, s: u32, t: u32) {
    let (s, t) = (s as usize, t as usize);
    out[idx] = a[[idx[0] + s, idx[1] + t]] * 3 + 1;
}

/// Each thread reads the next row's element: the last row of every plane reads past it.
#[kernel(amp)]
fn next_row(idx: Index<3>, a: &Array<u32, 3>, out: &mut Array<u32, 3>) {
    out[idx] = a[[idx[0], idx[1] + 1, idx[2]]] + 1;
}

fn grid(n: usize, salt: u32) -> Vec<f32> {
    (0..n)
        .map(|x| ((x as u32).wrapping_mul(2_654_435_761) ^ salt) % 1000)
        .map(|v| v as f32 * 0.017 - 4.0)
        .collect()
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn blocks_of_rows_give_the_hosts_results() -> Result<(), amp::Error> {
    // Rows of 70 threads (two whole batches and a shorter one), 33, 3 and 128; planes of 3 to
    // 600 rows; enough threads that a launch is split into chunks that start inside planes.
    for n in [
        [4usize, 602, 72],
        [9, 130, 35],
        [3, 5, 5],
        [40, 41, 130],
        [3, 3, 3],
    ] {
        let len = n[0] * n[1] * n[2];
        let input = grid(len, 5);
        let start = grid(len, 77);
        let a = Array::from_slice(n, &input)?;
        let mut out = Array::from_slice(n, &start)?;
        let inner = Extent::new([n[0] - 2, n[1] - 2, n[2] - 2]);
        parallel_for_each(inner, shifted_7(&a, &mut out, 0.375))?;
        let mut want = start.clone();
        shifted_7_host(n, &input, &mut want, 0.375);
        assert_eq!(bits(&out.to_vec()?), bits(&want), "grid {n:?}");
    }

    let (rows, cols) = (700usize, 90usize);
    let input: Vec<u32> = (0..rows * cols).map(|x| x as u32 ^ 0x5a5a).collect();
    let a = Array::from_slice([rows, cols], &input)?;
    for (s, t) in [(0u32, 0u32), (1, 2), (7, 13), (0, 26)] {
        let domain = [rows - s as usize, cols - 26];
        let mut out = Array::<u32, 2>::new(domain)?;
        parallel_for_each(out.extent(), shifted_rows(&a, &mut out, s, t))?;
        let got = out.to_vec()?;
        for i in 0..domain[0] {
            for j in 0..domain[1] {
                let want = input[(i + s as usize) * cols + j + t as usize] * 3 + 1;
                assert_eq!(
                    got[i * domain[1] + j],
                    want,
                    "[{i}, {j}] shifted by ({s}, {t})"
                );
            }
        }
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn a_row_that_reads_outside_leaves_its_block_and_reports() -> Result<(), amp::Error> {
    let n = [5usize, 300, 40];
    let len = n[0] * n[1] * n[2];
    let input: Vec<u32> = (0..len as u32).map(|x| x.wrapping_mul(7) ^ 3).collect();
    let a = Array::from_slice(n, &input)?;
    let mut out = Array::<u32, 3>::new(n)?;
    let launched = parallel_for_each(out.extent(), next_row(&a, &mut out))
        .and_then(|()| out.to_vec().map(drop));
    let (kernel, param, index, extent) = out_of_bounds(launched);
    assert_eq!((kernel.as_str(), param.as_str()), ("next_row", "a"));
    assert_eq!(index[1], n[1]);
    assert_eq!(extent, n.to_vec());
    // An out-of-bounds read gives 0: every other row as the host's.
    let got = out.to_vec()?;
    for i in 0..n[0] {
        for j in 0..n[1] {
            for k in 0..n[2] {
                let next = match j + 1 < n[1] {
                    true => input[(i * n[1] + j + 1) * n[2] + k],
                    false => 0,
                };
                assert_eq!(got[(i * n[1] + j) * n[2] + k], next + 1, "[{i}, {j}, {k}]");
            }
        }
    }
    assert_validation_clean();
    Ok(())
}
