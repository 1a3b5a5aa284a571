use amp::prelude::*;

#[kernel(amp)]
fn add(idx: Index<1>, a: ArrayView<Float2, 1>, b: ArrayView<Float3, 1>, out: ArrayViewMut<Float3, 1>) {
    out[idx] = a[idx] + b[idx];
}

fn main() {}
