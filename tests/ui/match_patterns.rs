use amp::prelude::*;

#[kernel(amp)]
fn patterns(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    let v = a[idx];
    out[idx] = match v {
        (0, 1) => 1,
        [x, y] => 2,
        9..=3 => 3,
        1 | n => n,
        _ => 4,
    };
    out[idx] += match v {
        0 => 1,
        _ => 2.0,
    };
    let b = v > 0;
    out[idx] += match b {
        true => 1,
    };
}

fn main() {}
