//! Local arrays of a named length: `[0.0; RUN]` is a zeroed array (no loop), `[x; K]` the
//! value stored by a loop; natively a `const` item's length is read by its path, and a
//! const-generic one makes every generated function generic over the kernel's const-generic
//! parameters (`G<i>`), which the entry passes on as values LLVM folds.
use amp::prelude::*;

const RUN: usize = 4;

#[kernel(amp)]
fn zeroed_run(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let mut acc = [0.0f32; RUN];
    for k in 0..RUN {
        acc[k] += a[idx] * k as f32;
    }
    out[idx] = acc[RUN - 1];
}

#[kernel(amp)]
fn repeated<const K: usize>(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    let mut window = [a[idx]; K];
    for k in 1..K {
        window[k] = window[k - 1].wrapping_add(k as i32);
    }
    out[idx] = window[K - 1];
}
