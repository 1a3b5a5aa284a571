//! Range loops: `a..b` steps by one; `a..=b` and `.step_by(s)` track a `done` flag so the
//! counter never passes the type's end, and a step of 0 runs no iteration.
use amp::prelude::*;

#[kernel(amp)]
fn exclusive(idx: Index<1>, out: ArrayViewMut<i32, 1>, n: i32) {
    let mut s = 0;
    for i in 0..n {
        s += i;
    }
    out[idx] = s;
}

#[kernel(amp)]
fn inclusive_to_the_end(idx: Index<1>, out: ArrayViewMut<u32, 1>, from: u32) {
    let mut count = 0u32;
    for _ in from..=u32::MAX {
        count += 1;
    }
    out[idx] = count;
}

#[kernel(amp)]
fn stepped(idx: Index<1>, out: ArrayViewMut<u32, 1>, n: u32, step: u32) {
    let mut s = 0u32;
    for i in (0..n).step_by(step as usize) {
        s += i;
    }
    out[idx] = s;
}
