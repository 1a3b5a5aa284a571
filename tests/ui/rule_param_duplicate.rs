use amp::prelude::*;

#[kernel(amp)]
fn twice(idx: Index<1>, a: ArrayView<f32, 1>, a: ArrayViewMut<f32, 1>) {
    a[idx] = 1.0;
}

fn main() {}
