use amp::prelude::*;

#[kernel(amp)]
fn mix(idx: Index<1>, a: ArrayView<f32, 1>, b: ArrayView<i32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = a[idx] + b[idx];
}

fn main() {}
