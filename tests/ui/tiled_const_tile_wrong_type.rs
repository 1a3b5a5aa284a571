use amp::prelude::*;

const TS: u32 = 16;

#[kernel(amp)]
fn k(t: TiledIndex<TS, TS>, out: ArrayViewMut<f32, 2>) {
    out[t.global] = 1.0;
}

fn main() {}
