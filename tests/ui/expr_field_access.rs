use amp::prelude::*;

#[kernel(amp)]
fn length(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = a.len as f32;
}

fn main() {}
