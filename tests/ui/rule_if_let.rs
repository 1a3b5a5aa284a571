use amp::prelude::*;

#[kernel(amp)]
fn maybe(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    if let 0.0 = a[idx] {
        out[idx] = 1.0;
    }
}

fn main() {}
