use amp::prelude::*;

#[kernel(amp)]
fn k(t: TiledIndex<8>, out: ArrayViewMut<u32, 1>) {
    out[t.global] = t.foo[0] as u32;
}

fn main() {}
