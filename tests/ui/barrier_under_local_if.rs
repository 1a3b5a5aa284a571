use amp::prelude::*;

// Only thread 0 of each tile reaches the barrier: the others never arrive (C++ AMP 8.1.1).
#[kernel(amp)]
fn first_waits(t: TiledIndex<64>, data: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    #[tile_static]
    let mut shared: [f32; 64];
    shared[t.local[0]] = data[t.global];
    if t.local[0] == 0 {
        t.barrier.wait();
    }
    out[t.global] = shared[t.local[0]];
}

fn main() {}
