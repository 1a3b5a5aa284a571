use amp::prelude::*;

#[kernel(amp)]
fn helpers(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    static SCALE: f32 = 2.0;
    fn twice(x: f32) -> f32 {
        x * 2.0
    }
    out[idx] = 1.0;
}

fn main() {}
