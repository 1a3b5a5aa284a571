use amp::prelude::*;

// A device function is checked where it is defined, with the kernel language's rules.
#[amp::device(amp)]
fn total(v: ArrayView<f32, 1>, n: usize) -> f32 {
    let mut s = 0.0;
    for i in 0..n {
        s += v[i];
    }
    v[0] = s;
    let name = "total";
    s
}

fn main() {}
