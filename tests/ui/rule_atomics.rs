use amp::prelude::*;

// Atomics work on `i32` / `u32` (and, for two of them, `f32`) elements of writable views,
// arrays and tile_static memory, through `&mut`, with their own number of arguments;
// compare-exchange's expected value is a thread's local.
#[kernel(amp)]
fn atomics(
    idx: Index<1>,
    doubles: ArrayViewMut<f64, 1>,
    counts: ArrayViewMut<u32, 1>,
    input: ArrayView<u32, 1>,
) {
    atomic_exchange(&mut doubles[idx], 1.0);
    let mut mine = 0u32;
    atomic_fetch_add(&mut mine, 1);
    atomic_fetch_add(counts[idx], 1);
    atomic_fetch_inc(&mut counts[idx], 1);
    atomic_fetch_add(&mut input[idx], 1);
    atomic_compare_exchange(&mut counts[idx], &mut counts[0], 2);
}

fn main() {}
