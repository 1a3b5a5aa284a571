use amp::prelude::*;

#[kernel(amp)]
fn downscale(idx: Index<2>, src: TextureView<Float4, 2>, s: Sampler, out: ArrayViewMut<Float4, 2>) {
    out[idx] = src.sample(&s, idx);
}

fn main() {}
