use amp::prelude::*;

// A closure called in a kernel: the closure is reported, and so is the call; the kernel's other
// error comes out in the same build.
#[kernel(amp)]
fn squares(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let sq = |x: f32| x * x;
    out[idx] = sq(a[idx]);
    let s: String = 1.0;
}

fn main() {}
