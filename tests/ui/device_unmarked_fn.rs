use amp::prelude::*;

fn square(x: f32) -> f32 {
    x * x
}

#[kernel(amp)]
fn squares(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = square(a[idx]);
}

fn main() {
    let _ = square(2.0);
}
