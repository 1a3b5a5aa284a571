use amp::prelude::*;

#[kernel(amp, unchecked, allow(write_conflict), unchecked)]
fn twice(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = 1.0;
}

fn main() {}
