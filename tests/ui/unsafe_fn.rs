use amp::prelude::*;

#[kernel(amp)]
unsafe fn copy(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = a[idx];
}

fn main() {}
