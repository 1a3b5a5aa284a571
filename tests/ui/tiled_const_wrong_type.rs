use amp::prelude::*;

const N: i32 = 4;

#[kernel(amp)]
fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    let mut weights: [f32; N];
    for i in 0..4 {
        weights[i] = i as f32;
    }
    out[idx] = weights[idx[0] % 4];
}

fn main() {}
