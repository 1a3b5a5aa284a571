use amp::prelude::*;

// Scalar constants such as `f32::EPSILON` are available, and constants by path
// (`std::f32::consts::PI`, `super::GAIN`); other paths are not.
#[kernel(amp)]
fn circle(idx: Index<1>, r: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = std::f32::consts::PI * r[idx] * r[idx] + f32::GOLDEN + Float2::new;
}

fn main() {}
