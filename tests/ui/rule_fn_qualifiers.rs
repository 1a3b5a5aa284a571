use amp::prelude::*;

#[kernel(amp)]
async fn later(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = 1.0;
}

#[kernel(amp)]
const fn constant(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = 1.0;
}

#[kernel(amp)]
extern "C" fn foreign(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = 1.0;
}

fn main() {}
