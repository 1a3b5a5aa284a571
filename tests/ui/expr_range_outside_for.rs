use amp::prelude::*;

#[kernel(amp)]
fn span(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    let r = 0..10;
    out[idx] = 0;
}

fn main() {}
