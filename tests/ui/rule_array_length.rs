use amp::prelude::*;

#[kernel(amp)]
fn arrays(idx: Index<1>, out: ArrayViewMut<f32, 1>, n: u32) {
    let empty: [f32; 0];
    let huge: [f32; 16385];
    let len = n as usize;
    let runtime: [f32; len];
    let repeated = [0.0f32; len];
    let nothing = [];
    out[idx] = 1.0;
}

fn main() {}
