//! Empty data behaves as an empty `Vec` does: empty views, arrays and sections are values,
//! a launch over an empty extent runs nothing and succeeds, a kernel may take an empty view
//! beside a full one, and the algorithms answer for empty input as docs/algorithms.md says.
//! Textures are the exception (Vulkan images have at least one texel per dimension).

use crate::common;
use common::assert_validation_clean;

use amp::algorithms;
use amp::prelude::*;

/// Copies `src` where it has elements (`i < n`) and writes -1 past its end.
#[kernel(amp)]
fn copy_or_mark(idx: Index<1>, src: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>, n: u32) {
    if (idx[0] as u32) < n {
        out[idx] = src[idx];
    } else {
        out[idx] = -1;
    }
}

/// Sums each tile of 8 into its first element (a tiled kernel with a barrier).
#[kernel(amp)]
fn tile_sums(t: TiledIndex<8>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    #[tile_static]
    let mut sh: [i32; 8];
    sh[t.local[0]] = a[t.global];
    t.barrier.wait();
    if t.local[0] == 0 {
        let mut s = 0;
        for k in 0..8 {
            s += sh[k];
        }
        out[t.global] = s;
    }
}

/// The accelerators every test here runs on: the default one and the native one.
fn accelerators() -> Vec<Accelerator> {
    let default = Accelerator::default().unwrap();
    let mut accs = vec![default.clone()];
    if !default.is_native() {
        accs.push(Accelerator::cpu().unwrap());
    }
    accs
}

#[test]
fn empty_views_arrays_and_sections_are_values() -> Result<(), amp::Error> {
    let empty: [i32; 0] = [];
    let v = ArrayView::new([0], &empty[..])?;
    assert_eq!(v.extent()[0], 0);
    assert_eq!(v.to_vec()?, Vec::<i32>::new());
    assert!(v.get([0]).is_none());
    let v2 = ArrayView::new([0, 5], &empty[..])?;
    assert_eq!(v2.to_vec()?, Vec::<i32>::new());
    let mut none: [f32; 0] = [];
    let mut m = ArrayViewMut::new([0], &mut none[..])?;
    m.synchronize()?;
    drop(m);

    for acc in accelerators() {
        let a = Array::<i32, 1>::new_on(&acc, [0])?;
        assert_eq!(a.len(), 0);
        assert_eq!(a.to_vec()?, Vec::<i32>::new());
        let b = Array::from_slice_on(&acc, [0], &empty[..])?;
        assert_eq!(b.try_clone()?.to_vec()?, Vec::<i32>::new());
        let c = Array::<u32, 2>::new_on(&acc, [4, 0])?;
        assert_eq!(c.to_vec()?, Vec::<u32>::new());
        let mut d = Array::from_slice_on(&acc, [3], &[1, 2, 3])?;
        // One element of an array, read and written from the host.
        assert_eq!(d.get([2])?, Some(3));
        assert_eq!(d.get([3])?, None);
        d.set([1], 20)?;
        assert_eq!(d.to_vec()?, vec![1, 20, 3]);
        assert!(matches!(
            d.set([3], 0),
            Err(amp::Error::SectionOutOfBounds { .. })
        ));
        assert_eq!(a.get([0])?, None);
        for k in 0..=3 {
            assert_eq!(d.view().section([k], [0])?.to_vec()?, Vec::<i32>::new());
        }
        assert!(matches!(
            d.view().section([4], [0]),
            Err(amp::Error::SectionOutOfBounds { .. })
        ));
    }

    // Sections of length 0 at every origin up to the extent, in each dimension.
    let data: Vec<i32> = (0..12).collect();
    let v = ArrayView::new([3, 4], &data)?;
    for r in 0..=3 {
        for c in 0..=4 {
            assert_eq!(v.section([r, c], [0, 4 - c])?.to_vec()?, Vec::<i32>::new());
            assert_eq!(v.section([r, c], [3 - r, 0])?.to_vec()?, Vec::<i32>::new());
        }
    }
    let flat = ArrayView::new([12], &data)?;
    assert!(flat.section([12], [0])?.data()?.is_empty());
    assert!(matches!(
        flat.section([13], [0]),
        Err(amp::Error::SectionOutOfBounds { .. })
    ));
    assert_validation_clean();
    Ok(())
}

#[test]
fn launches_over_an_empty_extent_run_nothing() -> Result<(), amp::Error> {
    let a = vec![1; 16];
    for acc in accelerators() {
        let mut out = vec![7; 16];
        let av = ArrayView::new([16], &a)?;
        let mut ov = ArrayViewMut::new([16], &mut out)?;
        parallel_for_each_on(&acc, Extent::new([0]), copy_or_mark(&av, &mut ov, 16))?;
        parallel_for_each_on(&acc, Extent::new([0]).tile::<8>(), tile_sums(&av, &mut ov))?;
        // A dimension smaller than its tile truncates to nothing: nothing runs.
        let domain = Extent::new([5]).tile::<8>().truncate();
        parallel_for_each_on(&acc, domain, tile_sums(&av, &mut ov))?;
        ov.synchronize()?;
        drop(ov);
        assert_eq!(
            out,
            vec![7; 16],
            "{}: an empty launch writes nothing",
            acc.name()
        );

        // Empty views in an empty launch.
        let empty: [i32; 0] = [];
        let mut nothing: [i32; 0] = [];
        let ev = ArrayView::new([0], &empty[..])?;
        let mut em = ArrayViewMut::new([0], &mut nothing[..])?;
        parallel_for_each_on(&acc, em.extent(), copy_or_mark(&ev, &mut em, 0))?;
        drop(em);
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn a_kernel_takes_an_empty_view_beside_a_full_one() -> Result<(), amp::Error> {
    let empty: [i32; 0] = [];
    let data = [5, 6, 7];
    for acc in accelerators() {
        // An empty host view, an empty array's view, and an empty section of a full view.
        let host = ArrayView::new([0], &empty[..])?;
        let array = Array::<i32, 1>::new_on(&acc, [0])?;
        let full = ArrayView::new([3], &data)?;
        let sources = [host, array.view(), full.section([3], [0])?];
        for src in &sources {
            let mut out = vec![0; 6];
            let mut ov = ArrayViewMut::new([6], &mut out)?;
            parallel_for_each_on(&acc, ov.extent(), copy_or_mark(src, &mut ov, 0))?;
            ov.synchronize()?;
            drop(ov);
            assert_eq!(out, vec![-1; 6], "{}", acc.name());
        }
        // And writes into an empty array's view from an empty launch.
        let mut target = Array::<i32, 1>::new_on(&acc, [0])?;
        parallel_for_each_on(
            &acc,
            target.extent(),
            copy_or_mark(&full, &mut target.view_mut(), 3),
        )?;
        assert_eq!(target.to_vec()?, Vec::<i32>::new());
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn algorithms_answer_for_empty_input() -> Result<(), amp::Error> {
    for acc in accelerators() {
        let a_i = Array::<i32, 1>::new_on(&acc, [0])?;
        let a_f = Array::<f32, 1>::new_on(&acc, [0])?;
        assert_eq!(algorithms::sum(&a_i.view())?, 0);
        assert_eq!(algorithms::sum(&a_f.view())?.to_bits(), 0.0f32.to_bits());
        assert!(matches!(
            algorithms::min(&a_i.view()),
            Err(amp::Error::EmptyInput { .. })
        ));
        assert!(matches!(
            algorithms::max(&a_f.view()),
            Err(amp::Error::EmptyInput { .. })
        ));
        let mut out = Array::<i32, 1>::new_on(&acc, [0])?;
        algorithms::inclusive_scan(&a_i.view(), &mut out.view_mut())?;
        algorithms::exclusive_scan(&a_i.view(), &mut out.view_mut())?;
        let mut keys = Array::<f32, 1>::new_on(&acc, [0])?;
        algorithms::sort(&mut keys.view_mut())?;
        let mut values = Array::<u32, 1>::new_on(&acc, [0])?;
        algorithms::sort_by_key(&mut keys.view_mut(), &mut values.view_mut())?;
    }
    // Empty host views too.
    let empty: [u32; 0] = [];
    let mut none: [u32; 0] = [];
    let v = ArrayView::new([0], &empty[..])?;
    assert_eq!(algorithms::sum(&v)?, 0);
    algorithms::inclusive_scan(&v, &mut ArrayViewMut::new([0], &mut none[..])?)?;
    algorithms::sort(&mut ArrayViewMut::new([0], &mut none[..])?)?;
    assert_validation_clean();
    Ok(())
}

#[test]
fn a_texture_still_needs_texels() {
    let result = Texture::<f32, 2>::new([0, 4]);
    assert!(
        matches!(result, Err(amp::Error::ZeroExtent)),
        "{:?}",
        result.err()
    );
    let message = amp::Error::ZeroExtent.to_string();
    assert!(message.contains("texture"), "{message}");
}
