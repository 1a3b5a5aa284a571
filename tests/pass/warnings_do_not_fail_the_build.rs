//! An amp warning is a warning: the kernel still builds. The expectation below is met only if
//! the warning is given (an unmet one is itself a warning, an error under `clippy -D warnings`).
#![expect(deprecated)]
use amp::prelude::*;

#[kernel(amp)]
fn last_wins(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[0] = a[idx];
}
