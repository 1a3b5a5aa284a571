use amp::prelude::*;

#[kernel(amp)]
fn k(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {
    #[tile_static]
    let mut shared: [f32; 64] = [0.0; 64];
    t.barrier.wait();
    out[t.global] = shared[t.local[0]];
}

fn main() {}
