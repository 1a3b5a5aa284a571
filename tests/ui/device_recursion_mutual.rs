use amp::prelude::*;

mod parity {
    #[amp::device]
    pub fn is_even(n: u32) -> bool {
        if n == 0 {
            return true;
        }
        is_odd(n - 1)
    }

    #[amp::device]
    pub fn is_odd(n: u32) -> bool {
        if n == 0 {
            return false;
        }
        is_even(n - 1)
    }
}

#[kernel(amp)]
fn evens(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    if parity::is_even(idx[0] as u32) {
        out[idx] = 1;
    }
}

fn main() {}
