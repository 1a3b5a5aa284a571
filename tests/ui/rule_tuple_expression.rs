use amp::prelude::*;

// Only `let (a, b) = (x, y);` destructures; other tuples do not exist on the device.
#[kernel(amp)]
fn pair(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    let both = (1.0f32, 2.0f32);
    out[idx] = 1.0;
}

fn main() {}
