use amp::prelude::*;

#[kernel(amp)]
fn add_one(idx: Index<1>, a: ArrayView<f32, 1>) -> f32 {
    return;
}

fn main() {}
