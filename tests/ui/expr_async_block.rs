use amp::prelude::*;

#[kernel(amp)]
fn later(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    let f = async { 1.0 };
    out[idx] = 0.0;
}

fn main() {}
