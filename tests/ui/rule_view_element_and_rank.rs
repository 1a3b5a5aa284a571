use amp::prelude::*;

#[kernel(amp)]
fn views(
    idx: Index<1>,
    flags: ArrayView<usize, 1>,
    wide: ArrayView<u64, 1>,
    flat: ArrayView<f32>,
    deep: ArrayViewMut<f32, 4>,
) {
    deep[[0, 0, 0, 0]] = 1.0;
}

fn main() {}
