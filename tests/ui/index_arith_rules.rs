use amp::prelude::*;

#[kernel(amp)]
fn ranks(idx: Index<2>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 2>) {
    // Indices of different ranks do not combine.
    let p = idx + Index::new([1, 0, 0]);
    let q = idx == a.extent();
    // Indices have no order (as in C++ AMP).
    let r = idx < Index::new([1, 1]);
    // An index takes `*` with a `usize`, not with another index, nor with an `i32`.
    let s = idx * idx;
    let k = 2i32;
    let t = idx + k;
    // `Index::new` takes 1 to 3 components.
    let u = Index::new([1, 2, 3, 4]);
    out[idx] = 0.0;
}

fn main() {}
