use amp::prelude::*;

#[kernel(amp)]
fn conditions(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    let mut n = 0;
    loop {
        while {
            if n > 3 {
                break;
            }
            n < 10
        } {
            n += 1;
        }
    }
    out[idx] = n;
}

fn main() {}
