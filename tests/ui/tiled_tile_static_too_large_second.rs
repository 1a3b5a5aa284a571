use amp::prelude::*;

// Two arrays fit (16 KiB + 12 KiB); the third takes the total past 32 KiB, and the error points
// at it. The fourth, past the limit already, is not reported again.
#[kernel(amp)]
fn k(t: TiledIndex<16, 16>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    #[tile_static]
    let mut first: [[f32; 64]; 64];
    #[tile_static]
    let mut second: [f32; 3072];
    #[tile_static]
    let mut third: [Float4; 512];
    #[tile_static]
    let mut fourth: [u32; 16];
    first[t.local[0]][t.local[1]] = a[t.global];
    second[t.local[1]] = a[t.global];
    third[t.local[0]] = Float4::splat(a[t.global]);
    fourth[t.local[0]] = 1;
    t.barrier.wait();
    out[t.global] = first[t.local[1]][t.local[0]] + second[0] + third[1].x + fourth[2] as f32;
}

fn main() {}
