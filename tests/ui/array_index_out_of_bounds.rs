use amp::prelude::*;

#[kernel(amp)]
fn taps(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    let weights = [0.25f32, 0.5, 0.25];
    out[idx] = weights[0] + weights[3];
}

fn main() {}
