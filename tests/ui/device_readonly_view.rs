use amp::prelude::*;

#[amp::device(amp)]
fn clear(v: ArrayViewMut<f32, 1>, i: usize) {
    v[i] = 0.0;
}

#[kernel(amp)]
fn clears(idx: Index<1>, a: ArrayView<f32, 1>) {
    clear(a, idx[0]);
}

fn main() {}
