use amp::prelude::*;

// `frexp`, `modf`, `sincos` and `sin_cos` return two values; kernels have no tuple values, so
// they are only bound at once: `let (a, b) = ...;`.
#[kernel(amp)]
fn pairs(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let x = a[idx];
    let y = precise_math::frexp(x);
    out[idx] = precise_math::modf(x) + 1.0;
    let both = x.sin_cos();
    let (s, c) = x.sin_cos();
    out[idx] = s + c;
}

fn main() {}
