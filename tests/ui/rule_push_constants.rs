use amp::prelude::*;

// The domain and four rank-3 extents take 60 bytes (64 once aligned for the f64s); nine f64
// scalars need 72 more: 136, beyond the 128 bytes of push constants every device has.
#[kernel(amp)]
fn many(
    idx: Index<3>,
    a: ArrayView<f32, 3>,
    b: ArrayView<f32, 3>,
    c: ArrayView<f32, 3>,
    out: ArrayViewMut<f32, 3>,
    s0: f64,
    s1: f64,
    s2: f64,
    s3: f64,
    s4: f64,
    s5: f64,
    s6: f64,
    s7: f64,
    s8: f64,
) {
    out[idx] = a[idx] + b[idx] + c[idx] + (s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8) as f32;
}

fn main() {}
