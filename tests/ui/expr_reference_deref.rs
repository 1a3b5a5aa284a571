use amp::prelude::*;

// No references or pointers on the device: neither `&x` nor `*r`.
#[kernel(amp)]
fn refs(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let x = a[idx];
    let r = &x;
    out[idx] = *r;
}

fn main() {}
