use amp::prelude::*;

#[kernel(amp)]
fn square(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let sq = |x: f32| x * x;
    out[idx] = a[idx];
}

fn main() {}
