use amp::prelude::*;

#[kernel(amp, deny(write_conflict))]
fn denied(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = 1.0;
}

#[kernel(amp, allow = "write_conflict")]
fn assigned(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = 1.0;
}

#[kernel(amp, allow(write_conflict, "bank_conflict"))]
fn quoted(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = 1.0;
}

fn main() {}
