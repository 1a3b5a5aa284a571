use amp::prelude::*;

#[kernel(amp)]
fn scale(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = a[idx] * factor;
}

fn main() {}
