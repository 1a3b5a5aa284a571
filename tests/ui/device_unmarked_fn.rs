use amp::prelude::*;

mod util {
    // Not marked `#[amp::device]`: kernels cannot call it.
    pub fn halve(x: f32) -> f32 {
        x * 0.5
    }
}

#[kernel(amp)]
fn halves(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = util::halve(a[idx]);
}

fn main() {
    let _ = util::halve(2.0);
}
