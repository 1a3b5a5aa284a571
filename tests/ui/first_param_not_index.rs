use amp::prelude::*;

#[kernel(amp)]
fn fill(i: u32, out: ArrayViewMut<u32, 1>) {
    out[i as usize] = 1;
}

fn main() {}
