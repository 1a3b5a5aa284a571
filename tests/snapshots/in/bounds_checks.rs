//! Bounds checks: which index components are compared with a view's extent. An index the
//! domain bounds is checked only when the view may not cover the domain (the native back end's
//! covering variant drops it); an offset index is compared; a proven one is not; `unchecked`
//! compares nothing; `i - 1` after `let i = idx[0] + 1;` is the thread's index again, and an
//! offset access in a kernel without loops is decided once per batch of threads natively.
use amp::prelude::*;

#[kernel(amp)]
fn elementwise(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = a[idx] * 2.0;
}

#[kernel(amp)]
fn offset_rows(idx: Index<2>, a: ArrayViewMut<f32, 2>, k: u32) {
    let i = idx[0] + k as usize + 1;
    let j = idx[1];
    a[[i, j]] -= a[[i, k as usize]] * a[[k as usize, j]];
}

#[kernel(amp)]
fn walk_a_row(idx: Index<1>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 1>) {
    let mut sum = 0.0;
    for k in 0..a.extent()[1] {
        sum += a[[idx[0], k]];
    }
    out[idx] = sum;
}

#[kernel(amp)]
fn elementwise_unchecked(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = a[idx] * 2.0;
}

#[kernel(amp)]
fn five_point(idx: Index<2>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    let (i, j) = (idx[0] + 1, idx[1] + 1);
    out[[i, j]] = a[[i - 1, j]] + a[[i + 1, j]] + a[[i, j - 1]] + a[[i, j + 1]];
}
