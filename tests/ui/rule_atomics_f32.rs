use amp::prelude::*;

// On `f32` elements only `atomic_fetch_add` (a device feature, checked at launch) and
// `atomic_exchange` exist; every other atomic is an `i32` / `u32` operation, and `f64` elements
// have none.
#[kernel(amp)]
fn float_atomics(
    t: TiledIndex<64>,
    floats: ArrayViewMut<f32, 1>,
    doubles: ArrayViewMut<f64, 1>,
) {
    #[tile_static]
    let mut local: [f32; 64];
    atomic_fetch_add(&mut floats[0], 1.0);
    atomic_exchange(&mut local[t.local[0]], 2.0);
    atomic_fetch_sub(&mut floats[0], 1.0);
    atomic_fetch_max(&mut local[0], 3.0);
    atomic_fetch_or(&mut floats[1], 1.0);
    atomic_fetch_inc(&mut floats[2]);
    let mut expected = 0.0f32;
    atomic_compare_exchange(&mut floats[3], &mut expected, 1.0);
    atomic_fetch_add(&mut doubles[0], 1.0);
}

fn main() {}
