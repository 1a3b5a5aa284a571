use amp::prelude::*;

#[kernel(amp)]
fn first_negative(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<u32, 1>) {
    let mut i = 0;
    let found = loop {
        if a[i] < 0.0 {
            break i;
        }
        i += 1;
    };
    out[idx] = found as u32;
}

fn main() {}
