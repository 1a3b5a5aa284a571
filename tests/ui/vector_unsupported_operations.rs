use amp::prelude::*;

#[kernel(amp)]
fn ops(idx: Index<1>, a: ArrayView<Int3, 1>, b: ArrayView<Float2, 1>, out: ArrayViewMut<f32, 1>) {
    let (v, w) = (a[idx], b[idx]);
    let same = w == w;
    let d = v.dot(v);
    let c = w.cross(w);
    out[idx] = 0.0;
}

fn main() {}
