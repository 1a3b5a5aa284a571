use amp::prelude::*;

#[kernel(amp)]
fn classify(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = match a[idx] {
        0.0 => 1.0,
        _ => 2.0,
    };
}

fn main() {}
