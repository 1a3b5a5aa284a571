use amp::prelude::*;

#[kernel(amp)]
fn bytes(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    let b: u8 = 7;
    out[idx] = b as u32;
}

fn main() {}
