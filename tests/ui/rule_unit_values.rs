use amp::prelude::*;

#[kernel(amp)]
fn units(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    let nothing = loop {
        break;
    };
    {
        1u32
    }
    out[idx] = 1;
}

fn main() {}
