use amp::prelude::*;

#[kernel(amp)]
fn targets(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>, scale: f32) {
    scale = 2.0;
    out = a;
    (scale + 1.0) = 3.0;
    out[idx][0] = 1.0;
}

fn main() {}
