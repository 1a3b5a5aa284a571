use amp::prelude::*;

#[kernel(amp)]
fn shared(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {
    #[tile_static]
    let mut untyped;
    #[tile_static]
    let (mut a, mut b): (f32, f32);
    out[t.global] = 1.0;
}

fn main() {}
