//! A crate that depends on the kernel library `amp_kernel_lib`: its kernels call the library's
//! device functions by path (`amp_kernel_lib::interp::point_at`, which calls the library's
//! `lerp`, which calls its private `clamp01`) and through plain `use` items (nothing hidden
//! imported), take the library's device struct as an element type by path and through `use`,
//! and it launches the library's own kernel.

#[path = "../../../common/mod.rs"]
mod common;
use common::assert_validation_clean;

use amp::prelude::*;
use amp_kernel_lib::interp::{affine, point_at};
use amp_kernel_lib::shapes::Segment;

#[kernel(amp)]
fn points_by_path(
    idx: Index<1>,
    segs: ArrayView<amp_kernel_lib::shapes::Segment, 1>,
    t: ArrayView<f32, 1>,
    out: ArrayViewMut<Float2, 1>,
) {
    out[idx] = amp_kernel_lib::interp::point_at(segs[idx], t[idx]);
}

#[kernel(amp)]
fn weights_through_use(idx: Index<1>, segs: ArrayView<Segment, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = affine(
        segs[idx].weight,
        3.0,
        amp_kernel_lib::interp::lerp(1.0, 2.0, 0.5),
    );
}

/// Everything through `use`: `point_at` (whose source calls the library's `lerp`, which calls
/// its private `clamp01`, by paths from the library's module), `Segment` in the signature, in a
/// type annotation and in a struct expression.
#[kernel(amp)]
fn points_through_use(
    idx: Index<1>,
    segs: ArrayView<Segment, 1>,
    t: ArrayView<f32, 1>,
    out: ArrayViewMut<Float2, 1>,
) {
    let s: Segment = segs[idx];
    let doubled = Segment {
        from: s.from,
        to: s.to,
        weight: s.weight * 2.0,
    };
    out[idx] = point_at(doubled, t[idx]);
}

fn segments(n: usize) -> Vec<Segment> {
    (0..n)
        .map(|i| {
            let f = i as f32;
            Segment {
                from: Float2::new(f, -f),
                to: Float2::new(2.0 * f + 1.0, 0.5 * f),
                weight: 0.25 * (i % 5) as f32 + 0.5,
            }
        })
        .collect()
}

#[test]
fn library_device_functions_and_structs_by_path() -> Result<(), amp::Error> {
    let n = 41;
    let segs = segments(n);
    // Some `t` outside [0, 1], which the library's private `clamp01` clamps.
    let t: Vec<f32> = (0..n).map(|i| (i as f32 - 5.0) / 30.0).collect();
    let mut out = vec![Float2::default(); n];
    {
        let sv = ArrayView::new([n], &segs)?;
        let tv = ArrayView::new([n], &t)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(ov.extent(), points_by_path(&sv, &tv, &mut ov))?;
    }
    for i in 0..n {
        // The library's functions run on the host too.
        let want = amp_kernel_lib::interp::point_at(segs[i], t[i]);
        assert_eq!(out[i], want, "segment {i}");
    }
    assert_eq!(out[0], segs[0].from * segs[0].weight);
    assert_validation_clean();
    Ok(())
}

#[test]
fn library_items_through_use() -> Result<(), amp::Error> {
    let n = 23;
    let segs = segments(n);
    let mut out = vec![0.0f32; n];
    {
        let sv = ArrayView::new([n], &segs)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(ov.extent(), weights_through_use(&sv, &mut ov))?;
    }
    for (i, s) in segs.iter().enumerate() {
        assert_eq!(out[i], affine(s.weight, 3.0, 1.5), "segment {i}");
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn library_device_functions_and_structs_through_plain_use() -> Result<(), amp::Error> {
    let n = 37;
    let segs = segments(n);
    let t: Vec<f32> = (0..n).map(|i| (i as f32 - 4.0) / 25.0).collect();
    let mut out = vec![Float2::default(); n];
    {
        let sv = ArrayView::new([n], &segs)?;
        let tv = ArrayView::new([n], &t)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(ov.extent(), points_through_use(&sv, &tv, &mut ov))?;
    }
    for i in 0..n {
        let doubled = Segment {
            weight: segs[i].weight * 2.0,
            ..segs[i]
        };
        assert_eq!(out[i], point_at(doubled, t[i]), "segment {i}");
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn library_kernel_launches() -> Result<(), amp::Error> {
    let mut data: Vec<f32> = (0..50).map(|i| i as f32).collect();
    {
        let mut v = ArrayViewMut::new([50], &mut data)?;
        parallel_for_each(v.extent(), amp_kernel_lib::scale(&mut v, 1.5))?;
    }
    assert_eq!(data, (0..50).map(|i| i as f32 * 1.5).collect::<Vec<_>>());
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn clamped<T: DeviceScalar>(idx: Index<1>, v: ArrayViewMut<T, 1>, lo: T, hi: T) {
    v[idx] = amp_kernel_lib::generic::clamp_to(v[idx], lo, hi);
}

#[test]
fn library_generic_functions_and_kernels() -> Result<(), amp::Error> {
    let mut ints: Vec<i32> = (-10..10).collect();
    {
        let mut v = ArrayViewMut::new([20], &mut ints)?;
        parallel_for_each(v.extent(), clamped(&mut v, -3, 4))?;
    }
    assert_eq!(
        ints,
        (-10..10).map(|x: i32| x.clamp(-3, 4)).collect::<Vec<_>>()
    );
    let x: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let mut y = vec![1.0f32; 64];
    {
        let xv = ArrayView::new([64], &x)?;
        let mut yv = ArrayViewMut::new([64], &mut y)?;
        parallel_for_each(
            yv.extent(),
            amp_kernel_lib::generic::axpy(0.5f32, &xv, &mut yv),
        )?;
    }
    assert_eq!(y, x.iter().map(|v| 0.5 * v + 1.0).collect::<Vec<_>>());
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn toned(idx: Index<1>, v: ArrayViewMut<f32, 1>) {
    v[idx] = amp_kernel_lib::tone::limited(v[idx]);
}

/// The library's device functions call their helpers by `crate::` path and read private
/// constants by name, by `super::` and by `crate::` path: all resolve in the library.
#[test]
fn library_paths_and_constants_resolve_in_the_library() -> Result<(), amp::Error> {
    let mut data: Vec<f32> = (0..40).map(|i| i as f32 * 0.25 - 2.0).collect();
    let want: Vec<f32> = data
        .iter()
        .map(|&x| amp_kernel_lib::tone::limited(x))
        .collect();
    {
        let mut v = ArrayViewMut::new([40], &mut data)?;
        parallel_for_each(v.extent(), toned(&mut v))?;
    }
    assert_eq!(data, want);
    assert!(want.contains(&10.0) && want.iter().any(|&y| y < 0.0));
    assert_validation_clean();
    Ok(())
}
