use amp::prelude::*;

#[kernel(amp)]
fn indexing(
    idx: Index<2>,
    row: ArrayView<f32, 1>,
    m: ArrayView<f32, 2>,
    out: ArrayViewMut<f32, 2>,
) {
    let a = row[idx];
    let b = m[idx[0]];
    let c = m[m.extent()];
    let d = m[[1.0, 2.0]];
    let x = 1.0f32;
    let e = x[0];
    out[idx] = 1.0;
}

fn main() {}
