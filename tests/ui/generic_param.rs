use amp::prelude::*;

#[kernel(amp)]
fn copy<T>(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = a[idx];
}

fn main() {}
