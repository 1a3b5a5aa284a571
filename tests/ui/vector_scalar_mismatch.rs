use amp::prelude::*;

#[kernel(amp)]
fn scale(idx: Index<1>, a: ArrayView<Float3, 1>, k: i32, out: ArrayViewMut<Float3, 1>) {
    out[idx] = a[idx] * k;
}

fn main() {}
