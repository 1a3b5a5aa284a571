use amp::prelude::*;

// Three different mistakes in one kernel: a single build reports all of them.
#[kernel(amp)]
fn blur(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let count: u64 = 3;
    let left = a[idx] + 1;
    a[idx] = left;
    out[idx] = left;
}

fn main() {}
