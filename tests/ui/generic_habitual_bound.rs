use amp::prelude::*;

// Bounds a Rust programmer writes out of habit: each is reported once, at the bound, with the
// bound to write instead; nothing cascades to the parameters that use `T`.
#[kernel(amp)]
fn scale<T: Copy + std::ops::Mul<Output = T>>(idx: Index<1>, a: ArrayView<T, 1>, out: ArrayViewMut<T, 1>, k: T) {
    out[idx] = a[idx] * k;
}

#[kernel(amp)]
fn shift<T: DeviceFloat + Default>(idx: Index<1>, a: ArrayView<T, 1>, out: ArrayViewMut<T, 1>) {
    let x: T = a[idx];
    out[idx] = x;
}

fn main() {}
