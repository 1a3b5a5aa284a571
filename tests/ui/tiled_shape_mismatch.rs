use amp::prelude::*;

#[kernel(amp)]
fn k(t: TiledIndex<16, 16>, out: ArrayViewMut<f32, 2>) {
    out[t.global] = 1.0;
}

fn main() -> Result<(), amp::Error> {
    let mut data = vec![0.0f32; 64 * 64];
    let mut out = ArrayViewMut::new([64, 64], &mut data)?;
    let e = out.extent();
    parallel_for_each(e.tile::<8, 8>(), k(&mut out))?;
    Ok(())
}
