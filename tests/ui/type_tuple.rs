use amp::prelude::*;

#[kernel(amp)]
fn pair(idx: Index<1>, out: ArrayViewMut<f32, 1>, p: (f32, f32)) {
    let q: (f32, ());
    let r = (1.0f32, ());
    out[idx] = 0.0;
}

fn main() {}
