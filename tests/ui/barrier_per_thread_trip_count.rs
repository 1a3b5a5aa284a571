use amp::prelude::*;

// Each thread loops as often as its own element says: the barrier is called a different number
// of times by the threads of a tile.
#[kernel(amp)]
fn repeat(t: TiledIndex<64>, data: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    let mut i = 0;
    while i < data[t.global] {
        t.barrier.wait();
        i += 1;
    }
    out[t.global] = i;
}

fn main() {}
