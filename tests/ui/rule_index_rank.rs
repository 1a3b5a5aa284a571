use amp::prelude::*;

#[kernel(amp)]
fn four(idx: Index<4>, out: ArrayViewMut<f32, 1>) {
    out[idx[0]] = 1.0;
}

#[kernel(amp)]
fn named<const N: usize>(idx: Index<N>, out: ArrayViewMut<f32, 1>) {
    out[idx[0]] = 1.0;
}

#[kernel(amp)]
fn bare(idx: Index, out: ArrayViewMut<f32, 1>) {
    out[idx[0]] = 1.0;
}

fn main() {}
