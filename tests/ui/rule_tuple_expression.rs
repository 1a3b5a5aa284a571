use amp::prelude::*;

#[kernel(amp)]
fn pair(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    let both = (1.0f32, 2.0f32);
    let (a, b, c) = both;
    out[idx] = both.2 + both.x;
}

fn main() {}
