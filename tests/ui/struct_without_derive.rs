use amp::prelude::*;

#[repr(C)]
#[derive(Clone, Copy)]
struct Plain {
    x: f32,
}

#[kernel(amp)]
fn read(idx: Index<1>, a: ArrayView<Plain, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = a[idx].x;
}

fn main() {}
