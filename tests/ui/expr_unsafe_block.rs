use amp::prelude::*;

#[kernel(amp)]
fn fast(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    unsafe {
        out[idx] = a[idx];
    }
}

fn main() {}
