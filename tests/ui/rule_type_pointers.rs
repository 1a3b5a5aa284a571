use amp::prelude::*;

// No references, pointers, slices, function pointers or trait objects on the device.
#[kernel(amp)]
fn pointers(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    let r: &f32;
    let p: *const f32;
    let s: [f32];
    let f: fn(f32) -> f32;
    let d: dyn Copy;
    let i: impl Copy;
    out[idx] = 1.0;
}

fn main() {}
