use amp::prelude::*;

#[kernel(amp)]
fn search(idx: Index<2>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    'rows: for i in 0..a.extent()[0] {
        for j in 0..a.extent()[1] {
            if a[[i, j]] == 0.0 {
                break 'row;
            }
        }
    }
    'block: {
        out[idx] = 2.0;
    }
    out[idx] = 1.0;
}

fn main() {}
