//! A pass case: named tile sizes and `tile_static` lengths exactly at the limits (32 x 32 =
//! 1024 threads; 8 KiB of `tile_static`) build, and the call carries the size.
use amp::prelude::*;

const SIDE: usize = 32;

#[kernel(amp)]
fn k(t: TiledIndex<SIDE, SIDE>, out: ArrayViewMut<f32, 2>) {
    #[tile_static]
    let mut a: [[f32; SIDE]; SIDE];
    #[tile_static]
    let mut b: [[f32; SIDE]; SIDE];
    a[t.local[0]][t.local[1]] = 1.0;
    b[t.local[1]][t.local[0]] = 2.0;
    t.barrier.wait();
    out[t.global] = a[t.local[1]][t.local[0]] + b[t.local[0]][t.local[1]];
}

fn main() {
    let mut data = vec![0.0f32; 64 * 64];
    let mut out = ArrayViewMut::new([64, 64], &mut data).unwrap();
    let call = k(&mut out);
    assert_eq!(call.tile_static_bytes(), 2 * 32 * 32 * 4);
    assert_eq!(call.kernel().name, "k");
}
