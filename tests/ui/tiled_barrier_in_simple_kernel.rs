use amp::prelude::*;

#[kernel(amp)]
fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>) {
    out[idx] = 1;
    idx.barrier.wait();
}

fn main() {}
