use amp::prelude::*;

// Texture views and samplers are device-function parameters; passing the wrong kind is an
// error at the argument.
#[amp::device]
fn brightness(t: &TextureView<Unorm4, 2>, idx: Index<2>) -> f32 {
    let c = t[idx];
    c.x.get() + c.y.get()
}

#[kernel(amp)]
fn luma(idx: Index<2>, t: TextureView<Float4, 2>, out: ArrayViewMut<f32, 2>) {
    out[idx] = brightness(&t, idx);
}

#[kernel(amp)]
fn luma_of_view(idx: Index<2>, v: ArrayView<Unorm4, 2>, out: ArrayViewMut<f32, 2>) {
    out[idx] = brightness(&v, idx);
}

fn main() {}
