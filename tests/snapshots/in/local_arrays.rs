//! Local arrays: a literal index is used as it is, one the range analysis proves in range is
//! used unclamped, any other is clamped to the last element.
use amp::prelude::*;

#[kernel(amp)]
fn literal_and_proven(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    let mut taps = [0.25f32; 4];
    taps[0] = 0.5;
    let mut s = 0.0;
    for k in 0..4 {
        s += taps[k];
    }
    out[idx] = s;
}

#[kernel(amp)]
fn clamped(idx: Index<1>, keys: ArrayView<u32, 1>, out: ArrayViewMut<f32, 1>) {
    let table = [1.0f32, 2.0, 3.0, 4.0];
    out[idx] = table[keys[idx] as usize];
}
