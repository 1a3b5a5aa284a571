//! `let (a, b) = (x, y);`, `let (mut a, b)`, and shadowing, also with another type.
#![deny(deprecated)]

use amp::prelude::*;

#[kernel(amp)]
fn swap(idx: Index<2>, m: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    let (row, col) = (idx[0], idx[1]);
    let (mut a, b) = (m[[row, col]], m[[col, row]]);
    a += b;
    let row = row as f32;
    let row = row * 0.5;
    let a = a + row;
    {
        let a = 1u32;
        let _ = a;
    }
    out[idx] = a;
}
