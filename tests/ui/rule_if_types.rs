use amp::prelude::*;

#[kernel(amp)]
fn branches(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let v = if a[idx] > 0.0 { 1.0f32 } else { 0u32 };
    if 1 {
        out[idx] = 1.0;
    }
    while a[idx] {
        out[idx] = 2.0;
    }
}

fn main() {}
