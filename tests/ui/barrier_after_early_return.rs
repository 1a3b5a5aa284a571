use amp::prelude::*;

// Threads whose element is zero leave before the barrier the others wait at.
#[kernel(amp)]
fn skip_zeros(t: TiledIndex<64>, data: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    #[tile_static]
    let mut shared: [f32; 64];
    if data[t.global] == 0.0 {
        return;
    }
    shared[t.local[0]] = data[t.global];
    t.barrier.wait();
    out[t.global] = shared[63 - t.local[0]];
}

fn main() {}
