use amp::prelude::*;

#[kernel(amp)]
fn accumulate(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let sum = 0.0;
    for i in 0..a.extent()[0] {
        sum += a[i];
    }
    out[idx] = sum;
}

fn main() {}
