//! A loop every thread runs the same way: the native back end runs it once per batch of 32
//! threads, over neighbouring elements; a loop under a per-thread `if` runs one thread at a
//! time.
use amp::prelude::*;

#[kernel(amp)]
fn product(idx: Index<2>, a: ArrayView<f32, 2>, b: ArrayView<f32, 2>, c: ArrayViewMut<f32, 2>) {
    let (row, col) = (idx[0], idx[1]);
    let mut sum = 0.0;
    for k in 0..a.extent()[1] {
        sum += a[[row, k]] * b[[k, col]];
    }
    c[idx] = sum;
}

#[kernel(amp)]
fn triangle(idx: Index<2>, a: ArrayView<f32, 2>, c: ArrayViewMut<f32, 2>) {
    let (i, j) = (idx[0], idx[1]);
    let mut sum = 0.0;
    if j >= i {
        for k in 0..a.extent()[0] {
            sum += a[[k, i]] * a[[k, j]];
        }
    }
    c[idx] = sum;
}
