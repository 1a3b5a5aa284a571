use amp::prelude::*;

#[kernel(amp)]
fn classify(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    out[idx] = match a[idx] {
        0 => 10,
        1..=9 => 20,
        20.. => 30,
    };
}

fn main() {}
