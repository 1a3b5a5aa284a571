use amp::prelude::*;

#[kernel(amp)]
fn float_generic<const S: f32>(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = 1.0;
}

#[kernel(amp)]
fn bounded(idx: Index<1>, out: ArrayViewMut<f32, 1>)
where
    f32: Copy,
{
    out[idx] = 1.0;
}

fn main() {}
