use amp::prelude::*;

#[amp::device]
fn factorial(n: u32) -> u32 {
    if n <= 1 {
        return 1;
    }
    n * factorial(n - 1)
}

#[kernel(amp)]
fn factorials(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    out[idx] = factorial(idx[0] as u32);
}

fn main() {}
