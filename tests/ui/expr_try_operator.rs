use amp::prelude::*;

#[kernel(amp)]
fn fallible(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let x = a[idx]?;
    out[idx] = x;
}

fn main() {}
