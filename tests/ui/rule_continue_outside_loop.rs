use amp::prelude::*;

#[kernel(amp)]
fn skip(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    if a[idx] < 0.0 {
        continue;
    }
    out[idx] = a[idx];
}

fn main() {}
