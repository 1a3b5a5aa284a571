use amp::prelude::*;

#[kernel(amp)]
fn barriers(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {
    t.barrier.sync();
    t.barrier.wait(1);
    let b = t.barrier;
    out[t.global] = 1.0;
}

fn main() {}
