use amp::prelude::*;

#[kernel(amp)]
fn k(t: TiledIndex<16, 16>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    #[tile_static]
    let mut cache: [[f32; 128]; 128];
    cache[t.local[0]][t.local[1]] = a[t.global];
    t.barrier.wait();
    out[t.global] = cache[t.local[1]][t.local[0]];
}

fn main() {}
