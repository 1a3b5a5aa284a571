use amp::prelude::*;

#[kernel(amp)]
fn items(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    use std::cmp::max;
    struct Pair {
        a: f32,
        b: f32,
    }
    out[idx] = 1.0;
}

fn main() {}
