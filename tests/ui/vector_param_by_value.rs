use amp::prelude::*;

// Push constants carry scalars only: a short vector is not (yet) a by-value kernel parameter.
#[kernel(amp)]
fn shade(idx: Index<1>, offset: Float3, out: ArrayViewMut<Float3, 1>) {
    out[idx] = offset;
}

fn main() {}
