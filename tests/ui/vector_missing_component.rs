use amp::prelude::*;

#[kernel(amp)]
fn components(idx: Index<1>, a: ArrayView<Float2, 1>, out: ArrayViewMut<f32, 1>) {
    let v = a[idx];
    out[idx] = v.z + v.zw().x;
}

fn main() {}
