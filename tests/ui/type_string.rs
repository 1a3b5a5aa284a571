use amp::prelude::*;

#[kernel(amp)]
fn label(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    let name: String;
    out[idx] = 1;
}

fn main() {}
