use amp::prelude::*;

#[kernel(amp)]
fn relu(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let v = if a[idx] > 0.0 {
        a[idx]
    };
    out[idx] = v;
}

fn main() {}
