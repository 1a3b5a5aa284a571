use amp::prelude::*;

// A constant from outside is one value of one type: a length or a tile size is a `usize`.
#[kernel(amp)]
fn lengths(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    let count: i32 = N;
    let weights: [f32; N];
    out[idx] = count as f32;
}

#[kernel(amp)]
fn tiles<const TS: i32>(t: TiledIndex<TS>, out: ArrayViewMut<f32, 1>) {
    out[t.global] = 1.0;
}

fn main() {}
