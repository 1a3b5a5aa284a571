use amp::prelude::*;

// Kernels are free functions with a fixed list of parameters.
#[kernel(amp)]
fn method(&self) {}

#[kernel(amp)]
fn varargs(idx: Index<1>, out: ArrayViewMut<f32, 1>, _: ...) {
    out[idx] = 1.0;
}

fn main() {}
