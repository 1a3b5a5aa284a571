use amp::prelude::*;

#[kernel(amp)]
fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>) {
    #[tile_static]
    let mut shared: [i32; 64];
    shared[0] = 1;
    out[idx] = shared[0];
}

fn main() {}
