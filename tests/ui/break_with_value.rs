use amp::prelude::*;

#[kernel(amp)]
fn first_negative(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<u32, 1>) {
    let mut found = 0;
    for i in 0..a.extent()[0] {
        if a[i] < 0.0 {
            break i;
        }
    }
    let mut j = 0u32;
    let v = loop {
        if j > 3 {
            break 1.0f32;
        }
        j += 1;
        if j == 2 {
            break 7u32;
        }
    };
    out[idx] = found + j + v;
}

fn main() {}
