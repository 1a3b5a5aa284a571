use amp::prelude::*;

#[kernel(amp)]
fn per_thread_arm(t: TiledIndex<64>, a: ArrayViewMut<f32, 1>) {
    match t.local[0] % 4 {
        0 => t.barrier.wait(),
        _ => {}
    }
    a[t.global] = 1.0;
}

fn main() {}
