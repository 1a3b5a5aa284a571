use amp::prelude::*;

// One index per kernel, and it comes first: a second one has no launch domain to come from.
#[kernel(amp)]
fn pairs(i: Index<1>, j: Index<1>, out: ArrayViewMut<f32, 1>) {
    out[i] = 1.0;
}

fn main() {}
