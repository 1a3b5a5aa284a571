use amp::prelude::*;

#[kernel(amp)]
fn literals(idx: Index<1>, out: ArrayViewMut<i32, 1>) {
    let byte = 5u64;
    let text = "five";
    let letter = 'f';
    let big: i32 = 3_000_000_000;
    let wide = 1e40f32;
    let huge = 1e999;
    let enormous = 999_999_999_999_999_999_999_999_999_999_999_999_999;
    out[idx] = 1;
}

fn main() {}
