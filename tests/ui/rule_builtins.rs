use amp::prelude::*;

#[kernel(amp)]
fn builtins(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    let one = min(a[idx]);
    let pos = abs(a[idx]);
    let yes = max(true, false);
    let n = a.extent(0);
    out[idx] = 1;
}

fn main() {}
