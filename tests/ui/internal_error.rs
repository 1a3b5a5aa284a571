use amp::prelude::*;

// A bug in the compiler reaches the user as an error that asks for a report, not as a panic:
// this kernel's name asks the SPIR-V back end for an internal error.
#[kernel(amp)]
fn __amp_internal_error_probe(idx: Index<1>, out: ArrayViewMut<i32, 1>) {
    out[idx] = 1;
}

fn main() {}
