use amp::prelude::*;

// A barrier in one branch of a per-thread `if` (here the `else` of an `else if` chain).
#[kernel(amp)]
fn branches(t: TiledIndex<8, 8>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>, n: u32) {
    if n == 0 {
        out[t.global] = 0.0;
    } else if a[t.global] > 0.0 {
        out[t.global] = a[t.global];
    } else {
        t.barrier.wait_with_global_memory_fence();
        out[t.global] = -a[t.global];
    }
}

fn main() {}
