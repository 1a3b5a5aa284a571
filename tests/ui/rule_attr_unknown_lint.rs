use amp::prelude::*;

#[kernel(amp, allow(bank_conflicts))]
fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = 1.0;
}

fn main() {}
