use amp::prelude::*;

// Each parameter breaks a different rule; all are reported.
#[kernel(amp)]
fn params(
    idx: Index<1>,
    scale: &f32,
    data: Array<f32, 1>,
    weights: [f32; 4],
    out: ArrayViewMut<f32, 1>,
) {
    out[idx] = 1.0;
}

fn main() {}
