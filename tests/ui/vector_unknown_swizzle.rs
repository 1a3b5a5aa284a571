use amp::prelude::*;

#[kernel(amp)]
fn swizzle(idx: Index<1>, a: ArrayView<Float4, 1>, out: ArrayViewMut<Float2, 1>) {
    out[idx] = a[idx].xq();
}

fn main() {}
