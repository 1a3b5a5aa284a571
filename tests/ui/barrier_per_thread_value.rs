use amp::prelude::*;

// `stop` is set under a per-thread condition, so it differs between threads; and `shared` is
// read before any barrier made the other threads' writes visible.
#[kernel(amp)]
fn flags(t: TiledIndex<64>, data: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    #[tile_static]
    let mut shared: [u32; 64];
    let mut stop = false;
    if data[t.global] > 100 {
        stop = true;
    }
    if !stop {
        t.barrier.wait();
    }
    shared[t.local[0]] = data[t.global];
    if shared[0] > 0 {
        t.barrier.wait();
    }
    out[t.global] = shared[t.local[0]];
}

fn main() {}
