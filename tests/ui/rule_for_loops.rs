use amp::prelude::*;

// `for` iterates over integer ranges: `a..b`, `a..=b`, `(a..b).step_by(s)`.
#[kernel(amp)]
fn loops(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let mut sum = 0.0;
    for x in a {
        sum += x;
    }
    for x in 0.0..1.0 {
        sum += x;
    }
    for i in 0.. {
        sum += 1.0;
    }
    for i in (0..8).step_by(0) {
        sum += 1.0;
    }
    for (i, j) in 0..4 {
        sum += 1.0;
    }
    out[idx] = sum;
}

fn main() {}
