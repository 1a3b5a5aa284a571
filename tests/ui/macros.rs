use amp::prelude::*;

#[kernel(amp)]
fn noisy(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    println!("thread {}", idx[0]);
    if a[idx] < 0.0 {
        panic!("negative input");
    }
    let scratch = vec![0.0f32; 4];
    out[idx] = a[idx];
}

fn main() {}
