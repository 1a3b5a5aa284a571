use amp::prelude::*;

#[amp::device(amp)]
fn head(v: ArrayView<f32, 1>) -> f32 {
    v[0]
}

// A view parameter of a device function takes a view or array of the caller, by its name.
#[kernel(amp)]
fn heads(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = head(a[idx]);
}

fn main() {}
