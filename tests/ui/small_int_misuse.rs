// The small integers as Rust has them: literals in range, no negation of unsigned values; no
// atomics on them.
use amp::prelude::*;

#[kernel(amp)]
fn bytes(idx: Index<1>, out: ArrayViewMut<u8, 1>, counts: ArrayViewMut<u32, 1>) {
    let b: u8 = 256;
    let c: i8 = -129;
    let d: i16 = 40000;
    let e = -(out[idx]);
    atomic_fetch_add(&mut out[idx], 1u8);
    out[idx] = b + (c as u8) + (d as u8) + e;
    counts[idx] = 1;
}

fn main() {}
