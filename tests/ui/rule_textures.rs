use amp::prelude::*;

#[kernel(amp)]
fn textures(
    idx: Index<2>,
    src: TextureView<Float3, 2>,
    ints: TextureView<Int4, 2>,
    s: Sampler,
    dst: WriteonlyTextureView<Float4, 2>,
) {
    let c = ints.sample(&s, Float2::new(0.5, 0.5));
    let old = dst[idx];
    dst[idx] = old;
}

fn main() {}
