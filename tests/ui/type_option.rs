use amp::prelude::*;

#[kernel(amp)]
fn maybe(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    let found: Option<f32>;
    out[idx] = 0.0;
}

fn main() {}
