use amp::prelude::*;

const BIG: usize = 64;

#[kernel(amp)]
fn k(t: TiledIndex<BIG, BIG>, out: ArrayViewMut<f32, 2>) {
    out[t.global] = 1.0;
}

fn main() -> Result<(), amp::Error> {
    let mut data = vec![0.0f32; 64 * 64];
    let mut out = ArrayViewMut::new([64, 64], &mut data)?;
    let e = out.extent();
    parallel_for_each(e.tile::<BIG, BIG>(), k(&mut out))?;
    Ok(())
}
