use amp::prelude::*;

// `Norm` and `Unorm` convert with `new` / `from` (clamping, as on the host), never with `as`,
// and combine only with their own type.
#[kernel(amp)]
fn normalized(idx: Index<1>, a: ArrayView<f32, 1>, u: ArrayViewMut<Unorm, 1>, n: ArrayView<Norm, 1>) {
    let x = a[idx] as Unorm;
    let f = n[idx] as f32;
    let y = u[idx] + 0.5;
    let z = -u[idx];
    u[idx] = Unorm::new(f);
}

fn main() {}
