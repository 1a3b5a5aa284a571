use amp::prelude::*;

#[kernel(amp)]
fn roots(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = a[idx].powi(2);
}

fn main() {}
