use amp::prelude::*;

#[kernel(amp)]
fn others(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let mut x = a[idx];
    while let 0.0 = x {
        x = 1.0;
    }
    let p = &raw const x;
    let c = const { 1.0f32 };
    out[idx] = x;
}

fn main() {}
