//! `match` becomes an `if` chain over the scrutinee, evaluated once; a labelled jump out of
//! nested loops sets its target's flag and leaves one loop at a time; `loop` values and tuples
//! are locals of their own.
use amp::prelude::*;

#[kernel(amp)]
fn classify(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    out[idx] = match a[idx] {
        i32::MIN..=-1 => 0,
        0 | 1 => 1,
        n @ 2..=9 if n % 2 == 0 => n / 2,
        _ => 9,
    };
}

#[kernel(amp)]
fn first_match(idx: Index<1>, grid: ArrayView<u32, 2>, out: ArrayViewMut<u32, 1>, target: u32) {
    out[idx] = 'rows: loop {
        for r in 0..grid.extent()[0] {
            for c in 0..grid.extent()[1] {
                if grid[[r, c]] == target {
                    break 'rows (r * grid.extent()[1] + c) as u32;
                }
            }
        }
        break u32::MAX;
    };
}

#[kernel(amp)]
fn carries(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    let (sum, carry) = a[idx].overflowing_add(a[idx]);
    let t = (sum, carry as u32);
    out[idx] = t.0 ^ t.1;
}
