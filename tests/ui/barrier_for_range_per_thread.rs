use amp::prelude::*;

// The trip count depends on the thread's global index.
#[kernel(amp)]
fn triangle(t: TiledIndex<16, 16>, out: ArrayViewMut<f32, 2>) {
    let mut sum = 0.0;
    for k in 0..t.global[1] {
        sum += k as f32;
        t.barrier.wait_with_tile_static_memory_fence();
    }
    out[t.global] = sum;
}

fn main() {}
