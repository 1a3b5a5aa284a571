use amp::prelude::*;

const SIDE: usize = 128;

#[kernel(amp)]
fn k(t: TiledIndex<16, 16>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    #[tile_static]
    let mut cache: [[f32; SIDE]; SIDE];
    cache[t.local[0]][t.local[1]] = a[t.global];
    t.barrier.wait();
    out[t.global] = cache[t.local[1]][t.local[0]];
}

fn main() -> Result<(), amp::Error> {
    let a = vec![0.0f32; 64 * 64];
    let mut data = vec![0.0f32; 64 * 64];
    let a = ArrayView::new([64, 64], &a)?;
    let mut out = ArrayViewMut::new([64, 64], &mut data)?;
    parallel_for_each(out.extent().tile::<16, 16>(), k(&a, &mut out))?;
    Ok(())
}
