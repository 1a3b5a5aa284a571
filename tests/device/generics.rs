//! Generic kernels and device functions: one kernel written over `DeviceFloat`,
//! `DeviceInt` or `DeviceScalar` runs for each member, the instance chosen from the argument
//! types; generic device functions are instantiated at their calls (inferred or with a
//! turbofish) and stay ordinary generic Rust on the host; tiled kernels with `tile_static`
//! arrays of `T`; two type parameters; const generics beside type parameters.

use crate::common;
use common::assert_validation_clean;

use amp::prelude::*;

#[kernel(amp)]
fn axpy<T: DeviceFloat>(idx: Index<1>, a: T, x: ArrayView<T, 1>, y: ArrayViewMut<T, 1>) {
    y[idx] = a * x[idx] + y[idx];
}

fn run_axpy<T: DeviceFloat>(a: T, x: &[T], y: &mut [T]) -> Result<(), amp::Error> {
    let x = ArrayView::new([x.len()], x)?;
    let n = y.len();
    let mut y = ArrayViewMut::new([n], y)?;
    parallel_for_each(y.extent(), axpy(a, &x, &mut y))?;
    y.synchronize()
}

#[test]
fn axpy_runs_for_f32_and_f64() {
    let x: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5).collect();
    let mut y: Vec<f32> = (0..1000).map(|i| i as f32).collect();
    run_axpy(2.0f32, &x, &mut y).unwrap();
    for (i, v) in y.iter().enumerate() {
        assert_eq!(*v, 2.0 * (i as f32 * 0.5) + i as f32);
    }
    let x: Vec<f64> = (0..1000).map(|i| i as f64 / 3.0).collect();
    let mut y = vec![1.0f64; 1000];
    if common::f64_result(run_axpy(0.25f64, &x, &mut y)).is_some() {
        for (i, v) in y.iter().enumerate() {
            assert_eq!(*v, 0.25 * (i as f64 / 3.0) + 1.0);
        }
    }
    assert_validation_clean();
}

/// A generic device function: on the host it is plain generic Rust over the trait.
#[amp::device]
fn clamp_to<T: DeviceScalar>(x: T, lo: T, hi: T) -> T {
    x.max(lo).min(hi)
}

#[amp::device]
fn sum_of<T: DeviceScalar>(v: &ArrayView<T, 1>) -> T {
    let mut s = T::ZERO;
    for i in 0..v.extent()[0] {
        s += v[i];
    }
    s
}

#[kernel(amp)]
fn clamp_and_shift<T: DeviceScalar>(
    idx: Index<1>,
    lo: T,
    hi: T,
    v: ArrayView<T, 1>,
    out: ArrayViewMut<T, 1>,
) {
    // Inferred from the arguments, and with a turbofish (an `i32` instance inside a `u32` one).
    let k = clamp_to::<i32>(idx[0] as i32 - 2, 0, 3);
    out[idx] = clamp_to(v[idx], lo, hi) + T::ONE * (k as T) + sum_of(v) - sum_of(v);
}

fn check_clamp<T: DeviceScalar>(data: &[T], lo: T, hi: T, from_i32: impl Fn(i32) -> T) {
    let v = Array::from_slice([data.len()], data).unwrap();
    let mut out = Array::<T, 1>::new([data.len()]).unwrap();
    parallel_for_each(
        out.extent(),
        clamp_and_shift(lo, hi, &v.view(), &mut out.view_mut()),
    )
    .unwrap();
    let got = out.to_vec().unwrap();
    for (i, (x, g)) in data.iter().zip(&got).enumerate() {
        let k = clamp_to(i as i32 - 2, 0, 3);
        let want = clamp_to(*x, lo, hi) + from_i32(k);
        assert_eq!(*g, want, "element {i} of {}", std::any::type_name::<T>());
    }
}

#[test]
fn generic_device_functions_follow_the_host() {
    let ints: Vec<i32> = (-20..20).collect();
    check_clamp(&ints, -5, 7, |k| k);
    let uints: Vec<u32> = (0..40).collect();
    check_clamp(&uints, 3, 30, |k| k as u32);
    let floats: Vec<f32> = (0..40).map(|i| i as f32 * 0.75 - 10.0).collect();
    check_clamp(&floats, -2.5, 8.0, |k| k as f32);
    assert_validation_clean();
}

/// A tiled reduction of each tile, written once: `tile_static` of `T`, const generic tile size.
#[kernel(amp)]
fn tile_sums<T: DeviceScalar, const TS: usize>(
    t: TiledIndex<TS>,
    v: ArrayView<T, 1>,
    sums: ArrayViewMut<T, 1>,
) {
    #[tile_static]
    let mut part: [T; TS];
    part[t.local[0]] = v[t.global];
    t.barrier.wait();
    let mut stride = TS / 2;
    while stride > 0 {
        if t.local[0] < stride {
            part[t.local[0]] = part[t.local[0]] + part[t.local[0] + stride];
        }
        t.barrier.wait();
        stride /= 2;
    }
    if t.local[0] == 0 {
        sums[t.tile] = part[0];
    }
}

fn tile_sums_of<T: DeviceScalar>(data: &[T]) -> Vec<T> {
    const TS: usize = 64;
    let v = Array::from_slice([data.len()], data).unwrap();
    let mut sums = Array::<T, 1>::new([data.len() / TS]).unwrap();
    let domain = v.extent().tile::<TS>();
    parallel_for_each(domain, tile_sums::<T, TS>(&v.view(), &mut sums.view_mut())).unwrap();
    sums.to_vec().unwrap()
}

#[test]
fn a_tiled_generic_kernel_reduces_each_tile() {
    let ints: Vec<i32> = (0..256).map(|i| i * 3 - 100).collect();
    let want: Vec<i32> = ints.chunks(64).map(|c| c.iter().sum()).collect();
    assert_eq!(tile_sums_of(&ints), want);
    let floats: Vec<f32> = (0..256).map(|i| (i % 7) as f32 * 0.5).collect();
    let want: Vec<f32> = floats.chunks(64).map(|c| c.iter().sum()).collect();
    assert_eq!(tile_sums_of(&floats), want);
    let uints: Vec<u32> = (0..256).collect();
    let want: Vec<u32> = uints.chunks(64).map(|c| c.iter().sum()).collect();
    assert_eq!(tile_sums_of(&uints), want);
    assert_validation_clean();
}

#[kernel(amp)]
fn convert<S, D>(idx: Index<1>, src: ArrayView<S, 1>, dst: ArrayViewMut<D, 1>)
where
    S: DeviceInt,
    D: DeviceFloat,
{
    dst[idx] = src[idx] as D / (D::ONE + D::ONE);
}

#[test]
fn two_type_parameters_pick_their_instance() {
    let src: Vec<i32> = (-8..8).collect();
    let src_u: Vec<u32> = (0..16).collect();
    let s = ArrayView::new([16], &src).unwrap();
    let su = ArrayView::new([16], &src_u).unwrap();
    let mut out = vec![0.0f32; 16];
    {
        let mut d = ArrayViewMut::new([16], &mut out).unwrap();
        parallel_for_each(d.extent(), convert(&s, &mut d)).unwrap();
        d.synchronize().unwrap();
    }
    assert_eq!(out, src.iter().map(|&x| x as f32 / 2.0).collect::<Vec<_>>());
    {
        let mut d = ArrayViewMut::new([16], &mut out).unwrap();
        parallel_for_each(d.extent(), convert(&su, &mut d)).unwrap();
        d.synchronize().unwrap();
    }
    assert_eq!(
        out,
        src_u.iter().map(|&x| x as f32 / 2.0).collect::<Vec<_>>()
    );
    assert_validation_clean();
}

#[test]
fn the_scalar_traits_behave_as_documented_on_the_host() {
    assert_eq!(DeviceScalar::abs(i32::MIN), i32::MIN);
    assert_eq!(DeviceScalar::abs(7u32), 7);
    assert_eq!(<f32 as DeviceScalar>::ZERO, 0.0);
    assert_eq!(<u32 as DeviceScalar>::ONE, 1);
    assert_eq!(DeviceScalar::min(&f32::NAN, 1.0), 1.0);
    // With the prelude in scope, a concrete integer's `min` is still `Ord::min`.
    let (three, five) = (std::hint::black_box(3i32), std::hint::black_box(5i32));
    assert_eq!(three.min(five), 3);
    assert_eq!(<f64 as DeviceFloat>::sqrt(4.0), 2.0);
}

/// `N` elements of `T` in `tile_static` memory: 24 KiB for f32 at `N = 6144`, which fits the
/// 32 KiB, while the f64 instance (48 KiB) would not; only the launched instance is checked.
#[kernel(amp)]
fn big_tile<T: DeviceScalar, const N: usize>(t: TiledIndex<256>, out: ArrayViewMut<T, 1>) {
    #[tile_static]
    let mut cache: [T; N];
    let l = t.local[0];
    for k in 0..N / 256 {
        cache[k * 256 + l] = T::ONE;
    }
    t.barrier.wait();
    let mut s = T::ZERO;
    for k in 0..N / 256 {
        s += cache[k * 256 + (l + 1) % 256];
    }
    out[t.global] = s;
}

#[test]
fn only_the_launched_instance_is_checked_against_tile_static_limits() {
    let mut out = vec![0.0f32; 256];
    {
        let mut v = ArrayViewMut::new([256], &mut out).unwrap();
        parallel_for_each(v.extent().tile::<256>(), big_tile::<f32, 6144>(&mut v)).unwrap();
        v.synchronize().unwrap();
    }
    assert!(out.iter().all(|&x| x == 24.0), "{:?}", &out[..4]);
    assert_validation_clean();
}
