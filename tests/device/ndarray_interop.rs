//! `ndarray` interop (the `ndarray` feature): views of `ndarray` views in standard layout, used
//! as host slices are; a typed error naming any other layout; `Array`s to and from
//! `ndarray::Array`, in any layout, round trip.

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;
use ndarray::{s, Array1, Array2, Array3, Axis};

#[kernel(amp)]
fn nd_affine2(idx: Index<2>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    out[idx] = a[idx] * 2.0 + 1.0;
}

#[kernel(amp)]
fn nd_add1(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    out[idx] += a[idx];
}

#[kernel(amp)]
fn nd_index3(idx: Index<3>, out: ArrayViewMut<u32, 3>) {
    out[idx] = (idx[0] * 100 + idx[1] * 10 + idx[2]) as u32;
}

#[test]
fn standard_layout_views_run_in_place_in_every_rank() -> Result<(), amp::Error> {
    let a = Array2::from_shape_fn((7, 5), |(i, j)| (i * 5 + j) as f32);
    let mut out = Array2::<f32>::zeros((7, 5));
    {
        let av = ArrayView::try_from(a.view())?;
        let mut ov = ArrayViewMut::try_from(out.view_mut())?;
        assert_eq!(ov.extent(), Extent::new([7, 5]));
        ov.discard_data();
        parallel_for_each(ov.extent(), nd_affine2(&av, &mut ov))?;
        ov.synchronize()?;
    }
    assert_eq!(out, a.mapv(|x| x * 2.0 + 1.0));

    let x = Array1::from_vec(vec![1, 2, 3, 4]);
    let mut y = Array1::from_vec(vec![10, 20, 30, 40]);
    {
        let xv = ArrayView::try_from(x.view())?;
        let mut yv = ArrayViewMut::try_from(y.view_mut())?;
        parallel_for_each(yv.extent(), nd_add1(&xv, &mut yv))?;
        yv.synchronize()?;
    }
    assert_eq!(y.to_vec(), [11, 22, 33, 44]);

    let mut z = Array3::<u32>::zeros((2, 3, 4));
    {
        let mut zv = ArrayViewMut::try_from(z.view_mut())?;
        parallel_for_each(zv.extent(), nd_index3(&mut zv))?;
        zv.synchronize()?;
    }
    assert_eq!(z[[1, 2, 3]], 123);
    assert_eq!(z[[0, 1, 2]], 12);
    // A standard-layout part of a larger array (whole rows) is a view too.
    let rows = ArrayView::try_from(a.slice(s![2..4, ..]))?;
    assert_eq!(
        rows.to_vec()?,
        a.slice(s![2..4, ..]).iter().copied().collect::<Vec<_>>()
    );
    assert_validation_clean();
    Ok(())
}

fn layout_of(e: amp::Error) -> &'static str {
    match e {
        amp::Error::NotStandardLayout { layout, .. } => layout,
        other => panic!("expected NotStandardLayout, got {other:?}"),
    }
}

#[test]
fn other_layouts_are_an_error_that_names_the_layout() {
    let mut a = Array2::from_shape_fn((4, 6), |(i, j)| (i * 6 + j) as f32);
    let e = ArrayView::try_from(a.t()).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("[6, 4]") && text.contains("[1, 6]"), "{text}");
    assert_eq!(layout_of(e), "column-major (Fortran order)");
    let stepped = a.slice(s![.., ..;2]);
    assert_eq!(
        layout_of(ArrayView::try_from(stepped).unwrap_err()),
        "strided (stepped or sliced axes)"
    );
    let columns = a.slice(s![.., 1..3]);
    assert_eq!(
        layout_of(ArrayView::try_from(columns).unwrap_err()),
        "strided (stepped or sliced axes)"
    );
    let mut reversed = a.view_mut();
    reversed.invert_axis(Axis(0));
    assert_eq!(
        layout_of(ArrayViewMut::try_from(reversed).unwrap_err()),
        "reversed (negative strides)"
    );
    assert_eq!(
        layout_of(ArrayViewMut::try_from(a.view_mut().reversed_axes()).unwrap_err()),
        "column-major (Fortran order)"
    );
}

#[test]
fn arrays_round_trip_through_ndarray_in_any_layout() -> Result<(), amp::Error> {
    let nd = Array3::from_shape_fn((3, 4, 5), |(i, j, k)| (i * 20 + j * 5 + k) as i32);
    let a = Array::from_ndarray(nd.view())?;
    assert_eq!(a.extent(), Extent::new([3, 4, 5]));
    assert_eq!(a.to_ndarray()?, nd);

    // A transposed (column-major) source is copied in its logical order.
    let m = Array2::from_shape_fn((3, 2), |(i, j)| (i * 2 + j) as f32);
    let t = Array::from_ndarray(m.t())?;
    assert_eq!(t.extent(), Extent::new([2, 3]));
    assert_eq!(t.to_ndarray()?, m.t().to_owned());
    assert_eq!(t.to_vec()?, [0.0, 2.0, 4.0, 1.0, 3.0, 5.0]);

    // Through a launch and back.
    let acc = Accelerator::default()?;
    let src = Array::from_ndarray_on(&acc, m.view())?;
    let mut dst = Array::<f32, 2>::new_on(&acc, [3, 2])?;
    parallel_for_each(dst.extent(), nd_affine2(&src.view(), &mut dst.view_mut()))?;
    assert_eq!(dst.to_ndarray()?, m.mapv(|x| x * 2.0 + 1.0));
    assert_validation_clean();
    Ok(())
}
