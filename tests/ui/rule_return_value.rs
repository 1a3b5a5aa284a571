use amp::prelude::*;

#[kernel(amp)]
fn early(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    if a[idx] < 0.0 {
        return 0.0;
    }
    out[idx] = a[idx];
}

#[kernel(amp)]
fn tail(idx: Index<1>, a: ArrayView<f32, 1>) {
    a[idx] * 2.0
}

#[kernel(amp)]
fn loop_value(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    for i in 0..4u32 {
        i
    }
    out[idx] = 1;
}

fn main() {}
