use amp::prelude::*;

// `frexp`, `modf`, `sincos` and `sin_cos` return a pair: a tuple, not a number.
#[kernel(amp)]
fn pairs(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let x = a[idx];
    let both = x.sin_cos();
    out[idx] = precise_math::modf(x) + 1.0;
    let (s, c) = x.sin_cos();
    out[idx] = s + c + both.0;
}

fn main() {}
