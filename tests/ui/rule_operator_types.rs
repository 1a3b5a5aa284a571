use amp::prelude::*;

#[kernel(amp)]
fn operators(idx: Index<1>, u: ArrayView<u32, 1>, f: ArrayView<f32, 1>, out: ArrayViewMut<u32, 1>) {
    let neg = -u[idx];
    let not = !f[idx];
    let bits = f[idx] & 1.0;
    let sum = true + false;
    let less = true < false;
    let shifted = f[idx] << 2;
    out[idx] = 1;
}

fn main() {}
