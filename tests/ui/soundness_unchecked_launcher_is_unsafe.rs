//! The launcher of an `unchecked` kernel is an `unsafe fn`: its accesses are not checked, so
//! the caller promises that they stay in bounds, inside `unsafe` (E0133 without it), for plain,
//! generic and tiled kernels alike.
use amp::prelude::*;

#[kernel(amp, unchecked)]
fn shifted(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = a[idx[0] + 100_000_000];
}

#[kernel(amp, unchecked)]
fn scale<T: DeviceFloat>(idx: Index<1>, k: T, out: ArrayViewMut<T, 1>) {
    out[idx] = out[idx] * k;
}

#[kernel(amp, unchecked)]
fn tiled<const TS: usize>(t: TiledIndex<TS>, out: ArrayViewMut<u32, 1>) {
    out[t.global] = t.local[0] as u32;
}

fn main() -> Result<(), amp::Error> {
    let a = vec![1.0f32; 16];
    let mut out = vec![0.0f32; 16];
    let a = ArrayView::new([16], &a)?;
    let mut view = ArrayViewMut::new([16], &mut out)?;
    parallel_for_each(view.extent(), shifted(&a, &mut view))?;
    parallel_for_each(view.extent(), scale(2.0f32, &mut view))?;
    let mut ints = vec![0u32; 16];
    let mut ints = ArrayViewMut::new([16], &mut ints)?;
    parallel_for_each(ints.extent().tile::<8>(), tiled::<8>(&mut ints))?;
    Ok(())
}
