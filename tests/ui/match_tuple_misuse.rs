// `match` on a tuple: an arm must match every value; names are not allowed inside `|`; the
// patterns have the tuple's length.
use amp::prelude::*;

#[kernel(amp)]
fn classes(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    let x = a[idx];
    out[idx] = match (x % 2, x > 7) {
        (0, true) => 1,
        (_, false) => 2,
    };
    let y = match (x, x % 3) {
        (v, 0) | (0, v) => v,
        (1, 2, 3) => 0,
        _ => 9,
    };
    out[idx] += y;
}

fn main() {}
