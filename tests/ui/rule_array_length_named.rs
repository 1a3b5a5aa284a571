use amp::prelude::*;

const NONE: usize = 0;
const HUGE: usize = 20_000;

// Named lengths are specialization constants: the launcher checks their values at build time.
#[kernel(amp)]
fn named(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    let empty = [1.0f32; NONE];
    let huge: [f32; HUGE];
    out[idx] = 1.0;
}

fn main() {}
