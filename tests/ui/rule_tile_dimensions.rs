use amp::prelude::*;

#[kernel(amp)]
fn four_dims(t: TiledIndex<4, 4, 4, 4>, out: ArrayViewMut<f32, 3>) {
    out[[0, 0, 0]] = 1.0;
}

#[kernel(amp)]
fn computed(t: TiledIndex<{ 4 + 4 }>, out: ArrayViewMut<f32, 1>) {
    out[[0]] = 1.0;
}

#[kernel(amp)]
fn too_long(t: TiledIndex<2048>, out: ArrayViewMut<f32, 1>) {
    out[[0]] = 1.0;
}

fn main() {}
