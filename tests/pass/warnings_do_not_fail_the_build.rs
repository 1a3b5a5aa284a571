//! An amp warning is a warning: the kernel still builds (this file does not deny them).
use amp::prelude::*;

#[kernel(amp)]
fn last_wins(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[0] = a[idx];
}

fn main() {}
