use amp::prelude::*;

struct Point {
    x: f32,
}

#[kernel(amp)]
fn point(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    let p = Point { x: 1.0 };
    out[idx] = 0.0;
}

fn main() {
    let _ = Point { x: 0.0 }.x;
}
