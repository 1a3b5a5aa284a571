use amp::prelude::*;

#[kernel(amp)]
fn classify(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    out[idx] = match a[idx] {
        0 => 10,
        _ => 20,
    };
}

fn main() {}
