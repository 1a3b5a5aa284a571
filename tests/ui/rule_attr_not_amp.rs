use amp::prelude::*;

// The attribute's argument names the restriction, as C++ AMP's `restrict(amp)`.
#[kernel(cuda)]
fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = 1.0;
}

fn main() {}
