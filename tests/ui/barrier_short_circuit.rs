use amp::prelude::*;

// The right side of `&&` only runs on the threads whose left side is true.
#[kernel(amp)]
fn lazy(t: TiledIndex<64>, out: ArrayViewMut<u32, 1>) {
    let waited = t.local[0] % 2 == 0 && {
        t.barrier.wait();
        true
    };
    out[t.global] = waited as u32;
}

fn main() {}
