use amp::prelude::*;

// Scalar constants such as `f32::EPSILON` are available; other paths are not.
#[kernel(amp)]
fn circle(idx: Index<1>, r: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = std::f32::consts::PI * r[idx] * r[idx] + f32::GOLDEN;
}

fn main() {}
