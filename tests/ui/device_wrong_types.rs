use amp::prelude::*;

#[amp::device]
fn scale(x: f32, k: i32) -> f32 {
    x * k as f32
}

#[amp::device]
fn row_first(v: &ArrayView<f32, 2>, row: usize) -> f32 {
    v[[row, 0]]
}

#[kernel(amp)]
fn scaled(idx: Index<1>, a: ArrayView<f32, 1>, n: u32, out: ArrayViewMut<f32, 1>) {
    out[idx] = scale(a[idx], n);
    out[idx] += row_first(&a, 0);
}

fn main() {}
