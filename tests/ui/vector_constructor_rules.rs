use amp::prelude::*;

// Short vectors are built with `new` (one value per component) or `splat`; swizzles and the
// geometric functions work on vectors, with their own number of operands.
#[kernel(amp)]
fn build(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<Float3, 1>) {
    let x = a[idx];
    let short = Float3::new(x, x);
    let zero = Float3::zero();
    let two = x.xy();
    let v = Float3::splat(x);
    let d = v.dot();
    out[idx] = v;
}

fn main() {}
