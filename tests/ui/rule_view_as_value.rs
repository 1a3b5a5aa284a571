use amp::prelude::*;

#[kernel(amp)]
fn alias(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let view = a;
    out[idx] = 1.0;
}

fn main() {}
