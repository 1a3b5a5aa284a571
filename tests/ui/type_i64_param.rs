use amp::prelude::*;

#[kernel(amp)]
fn scale(idx: Index<1>, out: ArrayViewMut<i32, 1>, factor: i64) {
    out[idx] *= factor as i32;
}

fn main() {}
