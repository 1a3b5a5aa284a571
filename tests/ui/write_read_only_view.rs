use amp::prelude::*;

#[kernel(amp)]
fn double(idx: Index<1>, data: ArrayView<f32, 1>) {
    data[idx] = data[idx] * 2.0;
}

fn main() {}
