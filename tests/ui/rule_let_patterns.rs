use amp::prelude::*;

#[kernel(amp)]
fn patterns(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    let [x, y] = [1u32, 2];
    let ref r = a[idx];
    let (p, q) = (1u32, 2u32, 3u32);
    let untyped;
    out[idx] = 1;
}

#[kernel(amp)]
fn let_else(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    let v = 1u32 else {
        return;
    };
    out[idx] = v;
}

fn main() {}
