//! Ping-pong between two buffers: each step reads one and writes the other, and the next step
//! swaps their roles. One launch line serves every step: `std::mem::swap` the two `Array`s (for
//! `&Array` / `&mut Array` parameters), or the two `ArrayViewMut`s over host data, passing the
//! source as `&src.as_view()` (for `ArrayView` / `ArrayViewMut` parameters). See
//! docs/data-model.md, "Ping-pong".

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

/// One smoothing step over arrays: the neighbours' weighted sum, edges repeating themselves.
#[kernel(amp)]
fn smooth_arrays(idx: Index<1>, src: &Array<i32, 1>, dst: &mut Array<i32, 1>) {
    let (i, n) = (idx[0], src.extent()[0]);
    let left = if i > 0 { src[i - 1] } else { src[i] };
    let right = if i + 1 < n { src[i + 1] } else { src[i] };
    dst[idx] = left + 2 * src[idx] + right + i as i32;
}

/// The same step over views.
#[kernel(amp)]
fn smooth_views(idx: Index<1>, src: ArrayView<i32, 1>, dst: ArrayViewMut<i32, 1>) {
    let (i, n) = (idx[0], src.extent()[0]);
    let left = if i > 0 { src[i - 1] } else { src[i] };
    let right = if i + 1 < n { src[i + 1] } else { src[i] };
    dst[idx] = left + 2 * src[idx] + right + i as i32;
}

/// `steps` smoothing steps on the CPU, with the kernels' wrapping arithmetic.
fn smooth_cpu(start: &[i32], steps: usize) -> Vec<i32> {
    let n = start.len();
    let mut cur = start.to_vec();
    for _ in 0..steps {
        cur = (0..n)
            .map(|i| {
                let left = cur[i.saturating_sub(1)];
                let right = cur[(i + 1).min(n - 1)];
                left.wrapping_add(cur[i].wrapping_mul(2))
                    .wrapping_add(right)
                    .wrapping_add(i as i32)
            })
            .collect();
    }
    cur
}

fn start(n: usize) -> Vec<i32> {
    (0..n).map(|i| (i as i32 * 29) % 17 - 8).collect()
}

#[test]
fn arrays_ping_pong_with_swap() -> Result<(), amp::Error> {
    let n = 100;
    for steps in [1, 2, 7] {
        let mut src = Array::from_slice([n], &start(n))?;
        let mut dst = Array::new([n])?;
        for _ in 0..steps {
            parallel_for_each(src.extent(), smooth_arrays(&src, &mut dst))?;
            std::mem::swap(&mut src, &mut dst);
        }
        // After the swap, `src` is always the newest.
        assert_eq!(src.to_vec()?, smooth_cpu(&start(n), steps), "{steps} steps");
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn host_views_ping_pong_with_swap() -> Result<(), amp::Error> {
    let n = 77;
    for steps in [1, 4, 5] {
        let (mut a, mut b) = (start(n), vec![0; n]);
        let newest = {
            let mut src = ArrayViewMut::new([n], &mut a)?;
            let mut dst = ArrayViewMut::new([n], &mut b)?;
            dst.discard_data();
            for _ in 0..steps {
                parallel_for_each(src.extent(), smooth_views(&src.as_view(), &mut dst))?;
                std::mem::swap(&mut src, &mut dst);
            }
            let mut newest = vec![0; n];
            copy(&src, &mut newest[..])?;
            // Dropping the views here synchronizes both host buffers.
            newest
        };
        let want = smooth_cpu(&start(n), steps);
        assert_eq!(newest, want, "{steps} steps");
        // The newest data is in `a` after an even number of steps, in `b` after an odd one.
        let home = if steps % 2 == 0 { &a } else { &b };
        assert_eq!(*home, want, "{steps} steps");
    }
    assert_validation_clean();
    Ok(())
}
