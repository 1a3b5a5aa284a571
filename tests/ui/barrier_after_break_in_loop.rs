use amp::prelude::*;

// A thread that breaks out of the loop misses the barrier of the iterations it skips.
#[kernel(amp)]
fn scan(t: TiledIndex<64>, data: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    let mut found = 0;
    for i in 0..16u32 {
        if data[t.global] == i {
            found = i;
            break;
        }
        t.barrier.wait();
    }
    out[t.global] = found;
}

fn main() {}
