use amp::prelude::*;

#[kernel(amp)]
fn k(t: TiledIndex<8>, out: ArrayViewMut<f32, 1>) {
    let u = t;
    out[t.global] = 1.0;
}

fn main() {}
