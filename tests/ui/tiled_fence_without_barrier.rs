use amp::prelude::*;

#[kernel(amp)]
fn k(t: TiledIndex<8>, out: ArrayViewMut<i32, 1>) {
    out[t.global] = 1;
    all_memory_fence();
    t.barrier.wait();
}

fn main() {}
