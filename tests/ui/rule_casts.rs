use amp::prelude::*;

// `as` converts between numeric types, and from bool to integers.
#[kernel(amp)]
fn casts(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<u32, 1>) {
    let flag = a[idx] as bool;
    let whole = [1u32, 2] as u32;
    let list = 1u32 as [u32; 1];
    out[idx] = 1;
}

fn main() {}
