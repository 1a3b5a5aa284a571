//! Nested `for`, `while` and `loop` with `break` and `continue` at each level, labelled and
//! not, and `loop` with `break value`.
#![deny(deprecated)]

use amp::prelude::*;

#[kernel(amp)]
fn search(idx: Index<1>, grid: ArrayView<i32, 2>, out: ArrayViewMut<i32, 1>, target: i32) {
    let mut hits = 0;
    let mut done = false;
    for r in 0..grid.extent()[0] {
        if done {
            break;
        }
        let mut c = 0;
        while c < grid.extent()[1] {
            c += 1;
            if grid[[r, c - 1]] < 0 {
                continue;
            }
            let mut k = 0;
            loop {
                k += 1;
                if k > 3 {
                    break;
                }
                if k == 2 {
                    continue;
                }
                hits += grid[[r, c - 1]] * k;
            }
            if hits > target {
                done = true;
                break;
            }
        }
    }
    out[idx] = hits;
}

fn main() {}

#[kernel(amp)]
fn labelled(idx: Index<1>, grid: ArrayView<i32, 2>, out: ArrayViewMut<i32, 1>, target: i32) {
    let found = 'rows: loop {
        for r in 0..grid.extent()[0] {
            'cols: for c in 0..grid.extent()[1] {
                if grid[[r, c]] < 0 {
                    continue 'cols;
                }
                if grid[[r, c]] == target {
                    break 'rows (r * grid.extent()[1] + c) as i32;
                }
            }
        }
        break -1;
    };
    out[idx] = found;
}
