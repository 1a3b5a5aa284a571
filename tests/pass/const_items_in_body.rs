//! `const` items inside the body, as values, loop bounds and array contents.
#![deny(deprecated)]

use amp::prelude::*;

#[kernel(amp)]
fn poly(idx: Index<1>, x: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    const DEGREE: usize = 3;
    const COEFFS: [f32; 4] = [1.0, -2.0, 0.5, 0.25];
    const SCALE: f32 = 2.0;
    const ENABLED: bool = true;
    let mut y = 0.0;
    let mut p = 1.0;
    for i in 0..=DEGREE {
        y += COEFFS[i] * p;
        p *= x[idx];
    }
    out[idx] = if ENABLED { y * SCALE } else { y };
}
