use amp::prelude::*;

#[kernel(amp)]
fn scaled(idx: Index<1>, (scale, offset): (f32, f32), out: ArrayViewMut<f32, 1>) {
    out[idx] = 1.0;
}

fn main() {}
