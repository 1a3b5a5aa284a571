use amp::prelude::*;

#[kernel(amp)]
fn k(t: TiledIndex<16, 0>, out: ArrayViewMut<f32, 2>) {
    out[t.global] = 1.0;
}

fn main() {}
