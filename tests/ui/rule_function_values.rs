use amp::prelude::*;

#[kernel(amp)]
fn calls(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let doubled = (|x: f32| x * 2.0)(a[idx]);
    let picked = [min, max][0](1.0, 2.0);
    let smaller = a[idx].min::<f32>(1.0);
    let steps = (0..4).step_by(2);
    out[idx] = 1.0;
}

fn main() {}
