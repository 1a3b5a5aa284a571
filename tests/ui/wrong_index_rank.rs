use amp::prelude::*;

#[kernel(amp)]
fn transpose(idx: Index<2>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 2>) {
    let i = idx[0];
    let j = idx[1];
    out[idx] = a[[j, i]];
}

fn main() {}
