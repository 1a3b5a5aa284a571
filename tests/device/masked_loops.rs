//! Loops under conditions that differ between threads, which the native accelerator runs for
//! a whole batch of threads with a per-thread mask: a covariance-style product over the upper
//! triangle, nested conditions, a bound defined inside the condition, statements before and
//! after the loop, and a loop the mask skips entirely; each against the same computation on
//! the host, bit for bit, on every accelerator.

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

/// The upper triangle of `aᵀa` (covariance's product), a correction under a second condition
/// whose loop bound is defined inside the first, and `-1` below the diagonal.
#[kernel(amp)]
fn upper_products(idx: Index<2>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>, skip: u32) {
    let (i, j) = (idx[0], idx[1]);
    let n = a.extent()[0];
    out[idx] = -1.0;
    if j >= i {
        let half = n / 2;
        let mut s = 0.0;
        for r in 0..n {
            s += a[[r, i]] * a[[r, j]];
        }
        if i % 3 != skip as usize {
            s *= 0.5;
            for r in 0..half {
                s -= a[[r, j]];
            }
        }
        out[idx] = s;
    }
}

fn host_upper_products(a: &[f32], n: usize, m: usize, skip: usize) -> Vec<f32> {
    let mut out = vec![-1.0f32; m * m];
    for i in 0..m {
        for j in i..m {
            let mut s = 0.0f32;
            for r in 0..n {
                s += a[r * m + i] * a[r * m + j];
            }
            if i % 3 != skip {
                s *= 0.5;
                for r in 0..n / 2 {
                    s -= a[r * m + j];
                }
            }
            out[i * m + j] = s;
        }
    }
    out
}

#[test]
fn a_loop_under_a_condition_that_differs_between_threads_matches_the_host() -> Result<(), amp::Error>
{
    // Columns not a multiple of a batch (32), a condition true for a few threads of a batch,
    // and one (`skip` 5) that no thread's `i % 3` meets.
    for (n, m, skip) in [(7, 45, 1), (33, 70, 0), (5, 3, 5)] {
        let a: Vec<f32> = (0..n * m)
            .map(|x| ((x * 37) % 101) as f32 / 16.0 - 3.0)
            .collect();
        let mut got = vec![0.0f32; m * m];
        {
            let av = ArrayView::new([n, m], &a)?;
            let mut out = ArrayViewMut::new([m, m], &mut got)?;
            parallel_for_each(out.extent(), upper_products(&av, &mut out, skip))?;
            out.synchronize()?;
        }
        let want = host_upper_products(&a, n, m, skip as usize);
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                g.to_bits(),
                w.to_bits(),
                "[{}, {}] of {n} x {m}",
                k / m,
                k % m
            );
        }
    }
    assert_validation_clean();
    Ok(())
}

/// Rank 1: the threads whose value is odd sum a window of `a`, nested under the threads of
/// even index; the others keep their own value.
#[kernel(amp)]
fn odd_windows(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>, width: u32) {
    let x = a[idx];
    let mut acc = x;
    if idx[0] % 2 == 0 {
        acc += 1;
        if x % 2 == 1 {
            for k in 0..width as usize {
                acc = acc
                    .wrapping_mul(31)
                    .wrapping_add(a[[(idx[0] + k) % a.extent()[0]]]);
            }
        }
        acc ^= 0x55;
    }
    out[idx] = acc;
}

#[test]
fn nested_conditions_around_a_loop_match_the_host() -> Result<(), amp::Error> {
    let n = 1000usize;
    let width = 9u32;
    let a: Vec<u32> = (0..n as u32)
        .map(|x| x.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let mut got = vec![0u32; n];
    {
        let av = ArrayView::new([n], &a)?;
        let mut out = ArrayViewMut::new([n], &mut got)?;
        parallel_for_each(out.extent(), odd_windows(&av, &mut out, width))?;
        out.synchronize()?;
    }
    for i in 0..n {
        let x = a[i];
        let mut acc = x;
        if i % 2 == 0 {
            acc += 1;
            if x % 2 == 1 {
                for k in 0..width as usize {
                    acc = acc.wrapping_mul(31).wrapping_add(a[(i + k) % n]);
                }
            }
            acc ^= 0x55;
        }
        assert_eq!(got[i], acc, "at {i}");
    }
    assert_validation_clean();
    Ok(())
}

/// Loops in both branches of a condition that differs between threads, and in an `else if`:
/// a row's sum, its alternating sum, or a constant, by the row's class.
#[kernel(amp)]
fn branch_sums(idx: Index<2>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    let (i, j) = (idx[0], idx[1]);
    let n = a.extent()[1];
    let mut s = 0.0;
    if (i + j) % 3 == 0 {
        for k in 0..n {
            s += a[[i, k]];
        }
    } else if j % 2 == 0 {
        s = 7.0;
    } else {
        s = 1.0;
        for k in 0..n {
            s -= a[[i, k]] * (k as f32);
        }
    }
    out[idx] = s;
}

fn host_branch_sums(a: &[f32], rows: usize, n: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; rows * cols];
    for i in 0..rows {
        for j in 0..cols {
            let mut s = 0.0f32;
            if (i + j) % 3 == 0 {
                for k in 0..n {
                    s += a[i * n + k];
                }
            } else if j % 2 == 0 {
                s = 7.0;
            } else {
                s = 1.0;
                for k in 0..n {
                    s -= a[i * n + k] * (k as f32);
                }
            }
            out[i * cols + j] = s;
        }
    }
    out
}

#[test]
fn loops_in_both_branches_of_an_if_else_match_the_host() -> Result<(), amp::Error> {
    let (rows, n, cols) = (9, 37, 45);
    let a: Vec<f32> = (0..rows * n)
        .map(|x| ((x * 7) % 13) as f32 * 0.25 - 1.0)
        .collect();
    let av = ArrayView::new([rows, n], &a)?;
    let mut out = vec![0.0f32; rows * cols];
    {
        let mut ov = ArrayViewMut::new([rows, cols], &mut out)?;
        parallel_for_each(ov.extent(), branch_sums(&av, &mut ov))?;
        ov.synchronize()?;
    }
    let want = host_branch_sums(&a, rows, n, cols);
    for (k, (g, w)) in out.iter().zip(&want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "element {k}: {g} against {w}");
    }
    assert_validation_clean();
    Ok(())
}
