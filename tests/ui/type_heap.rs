use amp::prelude::*;

// `Vec` and `Box` need a heap, which does not exist on the device: as a parameter and as a local.
#[kernel(amp)]
fn sum(idx: Index<1>, data: Vec<f32>, out: ArrayViewMut<f32, 1>) {
    let total: Box<f32>;
    out[idx] = data[idx];
}

fn main() {}
