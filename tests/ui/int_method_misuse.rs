use amp::prelude::*;

#[kernel(amp)]
fn misuse(idx: Index<1>, a: ArrayView<f32, 1>, b: ArrayView<i32, 1>, out: ArrayViewMut<u32, 1>) {
    let x = a[idx].count_ones();
    let y = b[idx].is_power_of_two();
    let z = a[idx].wrapping_add(1.0);
    out[idx] = b[idx].rotate_left(2, 3);
}

fn main() {}
