//! C++ AMP's data model (spec chapters 3 to 5) on the real device: sections (nested),
//! projections, `view_as`, `reinterpret_as`, `discard_data` / `refresh` / `synchronize`
//! (and its async form), views over arrays, `copy` / `copy_async` between every pair, and host
//! access to arrays (`AccessType`). Every value is checked against what the kernel or copy
//! must produce.

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

/// Stamps each element with its index in the launch domain (the view's own coordinates).
#[kernel(amp)]
fn stamp2(idx: Index<2>, out: ArrayViewMut<i32, 2>) {
    out[idx] = 1000 + (idx[0] * 10 + idx[1]) as i32;
}

#[kernel(amp)]
fn stamp1(idx: Index<1>, out: ArrayViewMut<i32, 1>) {
    out[idx] = 500 + idx[0] as i32;
}

#[kernel(amp)]
fn copy2(idx: Index<2>, src: ArrayView<i32, 2>, dst: ArrayViewMut<i32, 2>) {
    dst[idx] = src[idx];
}

#[kernel(amp)]
fn increment(idx: Index<1>, v: ArrayViewMut<i32, 1>) {
    v[idx] = v[idx] + 1;
}

#[kernel(amp)]
fn flip_sign_bits(idx: Index<1>, bits: ArrayViewMut<u32, 1>) {
    bits[idx] = bits[idx] ^ 0x8000_0000;
}

#[kernel(amp)]
fn double_array(idx: Index<1>, a: &mut Array<f32, 1>) {
    a[idx] = a[idx] * 2.0;
}

/// The rows x cols matrix with element `[r, c]` = `r * 100 + c`.
fn numbered(rows: usize, cols: usize) -> Vec<i32> {
    (0..rows * cols)
        .map(|i| ((i / cols) * 100 + i % cols) as i32)
        .collect()
}

#[test]
fn nested_section_writes_exactly_its_elements() -> Result<(), amp::Error> {
    let (rows, cols) = (6, 8);
    let mut data = vec![0i32; rows * cols];
    {
        let mut whole = ArrayViewMut::new([rows, cols], &mut data)?;
        let mut outer = whole.section_mut([1, 2], [4, 5])?;
        let mut inner = outer.section_mut([1, 1], [2, 3])?;
        assert_eq!(inner.offset(), 2 * cols + 3);
        assert_eq!(inner.strides(), [cols, 1]);
        parallel_for_each(inner.extent(), stamp2(&mut inner))?;
        assert_eq!(inner.to_vec()?, [1000, 1001, 1002, 1010, 1011, 1012]);
    }
    for r in 0..rows {
        for c in 0..cols {
            let expected = if (2..4).contains(&r) && (3..6).contains(&c) {
                1000 + ((r - 2) * 10 + (c - 3)) as i32
            } else {
                0
            };
            assert_eq!(data[r * cols + c], expected, "element [{r}, {c}]");
        }
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn nested_read_only_section_is_read_in_place() -> Result<(), amp::Error> {
    let src = numbered(5, 7);
    let mut out = vec![-1i32; 3 * 4];
    {
        let view = ArrayView::new([5, 7], &src)?;
        let outer = view.section([1, 1], [4, 6])?;
        let inner = outer.section([1, 2], [3, 4])?; // rows 2..5, columns 3..7
        let mut dst = ArrayViewMut::new([3, 4], &mut out)?;
        dst.discard_data();
        parallel_for_each(dst.extent(), copy2(&inner, &mut dst))?;
        dst.synchronize()?;
    }
    let expected: Vec<i32> = (2..5)
        .flat_map(|r| (3..7).map(move |c: i32| r * 100 + c))
        .collect();
    assert_eq!(out, expected);
    assert_validation_clean();
    Ok(())
}

#[test]
fn projection_is_row_i_of_the_view() -> Result<(), amp::Error> {
    let (rows, cols) = (4, 6);
    let mut data = vec![0i32; rows * cols];
    {
        let mut view = ArrayViewMut::new([rows, cols], &mut data)?;
        {
            // C++ AMP's view[2]: row 2 as a rank-1 view.
            let mut row = view.project_mut(2)?;
            parallel_for_each(row.extent(), stamp1(&mut row))?;
        }
        {
            // A projection of a section: row 1 of the section at [2, 3] is row 3, columns 3..6.
            let mut section = view.section_mut([2, 3], [2, 3])?;
            let mut row = section.project_mut(1)?;
            assert_eq!(row.offset(), 3 * cols + 3);
            parallel_for_each(row.extent(), stamp1(&mut row))?;
        }
        let read_back = view.project(2)?.to_vec()?;
        assert_eq!(read_back, [500, 501, 502, 503, 504, 505]);
    }
    let mut expected = vec![0i32; rows * cols];
    for c in 0..cols {
        expected[2 * cols + c] = 500 + c as i32;
    }
    for c in 0..3 {
        expected[3 * cols + 3 + c] = 500 + c as i32;
    }
    assert_eq!(data, expected);
    assert!(matches!(
        ArrayView::new([rows, cols], &data)?.project(rows),
        Err(amp::Error::SectionOutOfBounds { .. })
    ));
    assert_validation_clean();
    Ok(())
}

#[test]
fn discard_then_write_then_synchronize_gives_the_kernels_values() -> Result<(), amp::Error> {
    let mut data = vec![7i32; 10];
    {
        let mut v = ArrayViewMut::new([10], &mut data)?;
        v.discard_data();
        parallel_for_each(v.extent(), stamp1(&mut v))?;
        v.synchronize()?;
        assert_eq!(v.data()?, (500..510).collect::<Vec<i32>>().as_slice());
    }
    assert_eq!(data, (500..510).collect::<Vec<i32>>());
    assert_validation_clean();
    Ok(())
}

#[test]
fn refresh_and_host_writes_reach_the_next_launch() -> Result<(), amp::Error> {
    let mut data: Vec<i32> = (0..8).collect();
    {
        let mut v = ArrayViewMut::new([8], &mut data)?;
        parallel_for_each(v.extent(), increment(&mut v))?;
        // A host write after the launch: data_mut synchronizes, then marks the device stale.
        v.data_mut()?[0] = 100;
        v.refresh();
        parallel_for_each(v.extent(), increment(&mut v))?;
        v.set([7], -5)?;
        parallel_for_each(v.extent(), increment(&mut v))?;
        assert_eq!(v.get([0])?, Some(102));
        assert_eq!(v.get([8])?, None);
    }
    assert_eq!(data, [102, 4, 5, 6, 7, 8, 9, -4]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn view_as_round_trips() -> Result<(), amp::Error> {
    let mut data = vec![0i32; 12];
    {
        let mut flat = ArrayViewMut::new([12], &mut data)?;
        let mut matrix = flat.view_as_mut([3, 4])?;
        parallel_for_each(matrix.extent(), stamp2(&mut matrix))?;
        let back = matrix.view_as::<1>([12])?;
        assert_eq!(back.to_vec()?[5], 1000 + 11); // [1, 1]
    }
    let expected: Vec<i32> = (0..12).map(|i| 1000 + ((i / 4) * 10 + i % 4)).collect();
    assert_eq!(data, expected);

    let matrix = numbered(4, 5);
    let view = ArrayView::new([4, 5], &matrix)?;
    let section = view.section([0, 1], [2, 3])?;
    assert!(matches!(
        section.view_as::<1>([6]),
        Err(amp::Error::NotContiguous { .. })
    ));
    // Whole rows of a section are contiguous.
    let rows = view.section([1, 0], [2, 5])?.view_as::<1>([10])?;
    assert_eq!(rows.to_vec()?, &matrix[5..15]);
    assert!(matches!(
        view.view_as::<1>([21]),
        Err(amp::Error::ExtentMismatch { .. })
    ));
    assert_validation_clean();
    Ok(())
}

#[test]
fn reinterpret_as_round_trips() -> Result<(), amp::Error> {
    let original = [1.5f32, -2.0, 0.25, 8.0, -0.0, 3.0];
    let mut data = original.to_vec();
    {
        let mut floats = ArrayViewMut::new([2, 3], &mut data)?;
        let mut bits = floats.reinterpret_as_mut::<u32>()?;
        assert_eq!(bits.extent(), Extent::new([6]));
        parallel_for_each(bits.extent(), flip_sign_bits(&mut bits))?;
        let back = bits.reinterpret_as::<f32>()?;
        assert_eq!(back.to_vec()?, original.map(|x| -x));
    }
    let negated: Vec<u32> = original.iter().map(|x| (-x).to_bits()).collect();
    assert_eq!(
        data.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        negated
    );

    let three = [1i32, 2, 3];
    let view = ArrayView::new([3], &three)?;
    assert!(matches!(
        view.reinterpret_as::<f64>(),
        Err(amp::Error::Reinterpret { .. })
    ));
    assert!(matches!(
        view.section([1], [2])?.reinterpret_as::<f64>(),
        Err(amp::Error::Reinterpret { .. })
    ));
    assert_validation_clean();
    Ok(())
}

#[test]
fn views_over_an_array_use_its_buffer() -> Result<(), amp::Error> {
    let mut array = Array::<i32, 2>::new([4, 5])?;
    let acc = array.accelerator().clone();
    {
        let mut section = array.section_mut([1, 1], [2, 3])?;
        assert_eq!(section.accelerator(), Some(acc));
        parallel_for_each(section.extent(), stamp2(&mut section))?;
    }
    let mut expected = vec![0i32; 20];
    for r in 0..2 {
        for c in 0..3 {
            expected[(r + 1) * 5 + c + 1] = 1000 + (r * 10 + c) as i32;
        }
    }
    assert_eq!(array.to_vec()?, expected);
    // A read-only view of the array is a kernel input, read in place.
    let mut out = vec![0i32; 20];
    {
        let mut dst = ArrayViewMut::new([4, 5], &mut out)?;
        parallel_for_each(dst.extent(), copy2(&array.view(), &mut dst))?;
    }
    assert_eq!(out, expected);
    assert_eq!(array.section([1, 1], [1, 2])?.to_vec()?, [1000, 1001]);
    assert!(matches!(
        array.section([3, 0], [2, 5]),
        Err(amp::Error::SectionOutOfBounds { .. })
    ));
    assert_validation_clean();
    Ok(())
}

#[test]
fn copy_between_every_pair() -> Result<(), amp::Error> {
    let values = numbered(3, 4);
    let a = Array::from_slice([3, 4], &values)?;

    // array -> array (device to device), array -> slice
    let mut b = Array::<i32, 2>::new([3, 4])?;
    copy(&a, &mut b)?;
    assert_eq!(b.to_vec()?, values);
    let mut host = vec![0i32; 12];
    copy(&a, &mut host[..])?;
    assert_eq!(host, values);

    // slice -> array
    let doubled: Vec<i32> = values.iter().map(|v| v * 2).collect();
    copy(&doubled[..], &mut b)?;
    assert_eq!(b.to_vec()?, doubled);

    // array -> view, view -> array, view -> view, view -> slice, slice -> view
    let mut out = vec![0i32; 12];
    {
        let mut v = ArrayViewMut::new([3, 4], &mut out)?;
        copy(&a, &mut v)?;
        assert_eq!(v.to_vec()?, values);
        copy(&v, &mut b)?;
        assert_eq!(b.to_vec()?, values);
        let src = ArrayView::new([3, 4], &doubled)?;
        copy(&src, &mut v)?;
        let mut host2 = vec![0i32; 12];
        copy(&v, &mut host2[..])?;
        assert_eq!(host2, doubled);
        copy(&values[..], &mut v)?;
    }
    assert_eq!(out, values);

    // A section as source and destination copies only its elements.
    let mut grid = vec![0i32; 12];
    {
        let mut g = ArrayViewMut::new([3, 4], &mut grid)?;
        let src = a.section([1, 2], [2, 2])?;
        let mut dst = g.section_mut([0, 0], [2, 2])?;
        copy(&src, &mut dst)?;
    }
    assert_eq!(grid, [102, 103, 0, 0, 202, 203, 0, 0, 0, 0, 0, 0]);

    // Mismatched extents are an error, not a partial copy.
    let mut small = Array::<i32, 2>::new([4, 3])?;
    assert!(matches!(
        copy(&a, &mut small),
        Err(amp::Error::CopyExtentMismatch { .. })
    ));
    let mut short = [0i32; 11];
    assert!(matches!(
        copy(&a, &mut short[..]),
        Err(amp::Error::CopyExtentMismatch { .. })
    ));
    assert_eq!(small.to_vec()?, vec![0; 12]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn copy_async_completes_in_order() -> Result<(), amp::Error> {
    let n = 1 << 20;
    let big: Vec<u32> = (0..n as u32).collect();
    let a = Array::from_slice([n], &big)?;
    let mut b = Array::<u32, 1>::new([n])?;
    let mut c = Array::<u32, 1>::new([n])?;
    let mut host = vec![0u32; n];

    let first = copy_async(&a, &mut b)?;
    first.wait()?;
    // The second copy reads what the first wrote.
    let second = copy_async(&b, &mut c)?;
    let third_src = [9u32; 4];
    let mut small = Array::<u32, 1>::new([4])?;
    let third = copy_async(&third_src[..], &mut small)?;
    third.wait()?;
    assert_eq!(small.to_vec()?, [9; 4]);
    second.wait()?;
    let download = copy_async(&c, &mut host[..])?;
    download.wait()?;
    assert_eq!(host, big);

    // is_done turns true once the device part finishes; waiting is then immediate.
    let f = copy_async(&a, &mut b)?;
    while !f.is_done() {
        std::thread::yield_now();
    }
    f.wait()?;
    assert_eq!(b.to_vec()?[n - 1], n as u32 - 1);

    let mut wrong = Array::<u32, 1>::new([n - 1])?;
    assert!(matches!(
        copy_async(&a, &mut wrong),
        Err(amp::Error::CopyExtentMismatch { .. })
    ));
    assert_validation_clean();
    Ok(())
}

#[test]
fn synchronize_async_delivers_the_kernels_values() -> Result<(), amp::Error> {
    let mut data = vec![0i32; 64];
    {
        let mut v = ArrayViewMut::new([64], &mut data)?;
        v.discard_data();
        parallel_for_each(v.extent(), stamp1(&mut v))?;
        let done = v.synchronize_async()?;
        done.wait()?;
        assert_eq!(v.get([63])?, Some(563));
    }
    assert_eq!(data, (500..564).collect::<Vec<i32>>());
    assert_validation_clean();
    Ok(())
}

#[test]
fn array_host_access_follows_its_access_type() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let mut shared = Array::<f32, 1>::new_with_access(&acc, [4], AccessType::ReadWrite)?;
    match shared.as_mut_slice() {
        Ok(s) => s.copy_from_slice(&[1.0, 2.0, 3.0, 4.0]),
        // A device without host-visible memory: the error says so; copy instead.
        Err(amp::Error::NotHostAccessible { .. }) => {
            assert!(!acc.supports_cpu_shared_memory());
            shared.copy_from_slice(&[1.0, 2.0, 3.0, 4.0])?;
        }
        Err(e) => return Err(e),
    }
    parallel_for_each(shared.extent(), double_array(&mut shared))?;
    assert_eq!(shared.to_vec()?, [2.0, 4.0, 6.0, 8.0]);
    if let Ok(s) = shared.as_slice() {
        assert_eq!(s, [2.0, 4.0, 6.0, 8.0]);
    }

    let device_only = Array::<f32, 1>::new_with_access(&acc, [4], AccessType::None)?;
    assert_eq!(device_only.access_type(), AccessType::None);
    assert!(matches!(
        device_only.as_slice(),
        Err(amp::Error::NotHostAccessible { .. })
    ));
    let auto = Array::<f32, 1>::new_on(&acc, [4])?;
    assert_eq!(auto.access_type(), acc.default_cpu_access_type());
    if simulating_discrete_gpu(&acc) {
        assert!(!acc.supports_cpu_shared_memory());
        assert_eq!(auto.access_type(), AccessType::None);
    } else if std::env::var_os("AMP_FORCE_STAGING").is_none_or(|v| v != "1") {
        // lavapipe (and integrated GPUs) share memory with the host.
        if acc.device_type() == amp::DeviceType::Cpu {
            assert!(acc.supports_cpu_shared_memory());
            assert_eq!(auto.access_type(), AccessType::ReadWrite);
        }
    }
    assert_validation_clean();
    Ok(())
}

/// Whether `acc` is a Vulkan device simulating a discrete GPU (`AMP_SIMULATE_DISCRETE=1`).
fn simulating_discrete_gpu(acc: &Accelerator) -> bool {
    !acc.is_native() && std::env::var_os("AMP_SIMULATE_DISCRETE").is_some_and(|v| v == "1")
}

/// A discrete GPU (or the simulated one) keeps kernels' data in device memory: `Auto` arrays
/// have no host access, views of host slices are copied there on first use and back when the
/// host needs them (never imported), and host-visible arrays still work through their mapping.
#[test]
fn a_discrete_gpu_copies_views_to_device_memory_and_back() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    if acc.supports_cpu_shared_memory() {
        assert!(
            !simulating_discrete_gpu(&acc),
            "the simulated GPU shares no memory"
        );
        eprintln!("not a discrete GPU: run with AMP_SIMULATE_DISCRETE=1");
        return Ok(());
    }
    assert_eq!(acc.default_cpu_access_type(), AccessType::None);
    assert!(!acc.supports_host_memory_import());
    let auto = Array::<f32, 1>::new_on(&acc, [4])?;
    assert!(matches!(
        auto.as_slice(),
        Err(amp::Error::NotHostAccessible { .. })
    ));
    // Odd lengths: transfers that end inside a flush unit keep their neighbours.
    let n = 1001;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b = vec![0.25f32; n];
    let mut out = vec![-1f32; n];
    let before = amp::transfer_stats();
    {
        let av = ArrayView::new([n], &a)?;
        let bv = ArrayView::new([n], &b)?;
        let mut sum = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(sum.extent(), add_views(&av, &bv, &mut sum))?;
        sum.synchronize()?;
    }
    let moved = amp::transfer_stats();
    assert_eq!(moved.imports, before.imports);
    assert_eq!(moved.uploads - before.uploads, 3);
    assert_eq!(moved.downloads - before.downloads, 1);
    let expected: Vec<f32> = a.iter().map(|x| x + 0.25).collect();
    assert_eq!(out, expected);
    // A host-visible array: written and read through its mapping around a launch.
    let mut mapped = Array::<f32, 1>::new_with_access(&acc, [n], AccessType::ReadWrite)?;
    mapped.as_mut_slice()?.copy_from_slice(&a);
    parallel_for_each(mapped.extent(), double_array(&mut mapped))?;
    let doubled: Vec<f32> = a.iter().map(|x| 2.0 * x).collect();
    assert_eq!(mapped.as_slice()?, &doubled[..]);
    mapped.copy_from_slice(&b)?;
    parallel_for_each(mapped.extent(), double_array(&mut mapped))?;
    assert_eq!(mapped.to_vec()?, vec![0.5f32; n]);
    assert_validation_clean();
    Ok(())
}

/// Two views of one slice (two families) and two small vectors that share a page: the pages
/// are imported twice (or copied where the driver refuses), and every result is right.
#[test]
fn overlapping_host_slices_in_two_families_give_right_results() -> Result<(), amp::Error> {
    let a: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let b = vec![1.5f32; 64];
    let mut out = vec![0f32; 64];
    {
        let first = ArrayView::new([64], &a)?;
        let second = ArrayView::new([64], &a)?;
        let mut sum = ArrayViewMut::new([64], &mut out)?;
        parallel_for_each(sum.extent(), add_views(&first, &second, &mut sum))?;
        sum.synchronize()?;
    }
    let doubled: Vec<f32> = a.iter().map(|x| x + x).collect();
    assert_eq!(out, doubled);
    {
        let av = ArrayView::new([64], &a)?;
        let bv = ArrayView::new([64], &b)?;
        let mut sum = ArrayViewMut::new([64], &mut out)?;
        parallel_for_each(sum.extent(), add_views(&av, &bv, &mut sum))?;
    }
    let expected: Vec<f32> = a.iter().map(|x| x + 1.5).collect();
    assert_eq!(out, expected);
    assert_validation_clean();
    Ok(())
}

/// Adds two views into a third.
#[kernel(amp)]
fn add_views(idx: Index<1>, a: ArrayView<f32, 1>, b: ArrayView<f32, 1>, sum: ArrayViewMut<f32, 1>) {
    sum[idx] = a[idx] + b[idx];
}

#[test]
fn data_moves_only_when_it_must() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let n = 4096;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b = vec![0.5f32; n];
    let mut out = vec![0f32; n];
    let before = amp::transfer_stats();
    {
        let av = ArrayView::new([n], &a)?;
        let bv = ArrayView::new([n], &b)?;
        let mut sum = ArrayViewMut::new([n], &mut out)?;
        sum.discard_data();
        parallel_for_each(sum.extent(), add_views(&av, &bv, &mut sum))?;
        // The second launch reads the same inputs and rewrites the output: nothing new moves.
        parallel_for_each(sum.extent(), add_views(&av, &bv, &mut sum))?;
        let moved = amp::transfer_stats();
        if acc.is_native() {
            // Native kernels use the host slices where they are: nothing moves or is imported.
            assert_eq!(moved, before);
        } else if acc.supports_host_memory_import() {
            // Zero-copy: the kernels use the host slices themselves.
            assert_eq!(moved.upload_bytes, before.upload_bytes);
            assert_eq!(moved.imports - before.imports, 3);
        } else {
            // Each input uploaded once; the discarded output not at all.
            assert_eq!(moved.uploads - before.uploads, 2);
            assert_eq!(moved.upload_bytes - before.upload_bytes, 2 * 4 * n as u64);
        }
        // Nothing was read on the host yet, so nothing came back.
        assert_eq!(moved.downloads, before.downloads);
    }
    let after = amp::transfer_stats();
    let expected_downloads = if acc.supports_host_memory_import() {
        0
    } else {
        1
    };
    assert_eq!(after.downloads - before.downloads, expected_downloads);
    assert_eq!(out[n - 1], (n - 1) as f32 + 0.5);
    assert_validation_clean();
    Ok(())
}

#[test]
fn views_of_subslices_touch_only_their_elements() -> Result<(), amp::Error> {
    // Whatever the slice's alignment (imported in place, or copied when its address does not
    // suit the device), a kernel writes exactly the slice.
    for start in 0..5 {
        let mut data: Vec<i32> = (0..32).map(|_| -1).collect();
        {
            let mut v = ArrayViewMut::new([8], &mut data[start..start + 8])?;
            parallel_for_each(v.extent(), stamp1(&mut v))?;
        }
        for (i, &x) in data.iter().enumerate() {
            let expected = if (start..start + 8).contains(&i) {
                500 + (i - start) as i32
            } else {
                -1
            };
            assert_eq!(x, expected, "start {start}, element {i}");
        }
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn array_clones_are_deep() -> Result<(), amp::Error> {
    let mut a = Array::from_slice([4], &[1.0f32, 2.0, 3.0, 4.0])?;
    let b = a.try_clone()?;
    assert_eq!(b.access_type(), a.access_type());
    parallel_for_each(a.extent(), double_array(&mut a))?;
    assert_eq!(a.to_vec()?, [2.0, 4.0, 6.0, 8.0]);
    assert_eq!(b.to_vec()?, [1.0, 2.0, 3.0, 4.0]);
    let c = a.try_clone_to(a.accelerator())?;
    parallel_for_each(a.extent(), double_array(&mut a))?;
    assert_eq!(c.to_vec()?, [2.0, 4.0, 6.0, 8.0]);
    assert_eq!(a.to_vec()?, [4.0, 8.0, 12.0, 16.0]);
    assert_validation_clean();
    Ok(())
}

/// Transfers larger than a staging chunk (32 MiB) move in several, each placed at its offset:
/// an odd-length array written whole and in part, read whole and in part.
#[test]
fn transfers_larger_than_a_staging_chunk_arrive_whole() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let n = (80 << 20) / 4 + 3;
    let data: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let mut a = Array::<u32, 1>::new_on(&acc, [n])?;
    a.copy_from_slice(&data)?;
    assert!(a.to_vec()? == data, "whole array");
    // Doubled on the device, then the last 40 MiB (from an odd offset) overwritten from the
    // host through a section.
    // SAFETY: one thread per element of the array or view it writes.
    parallel_for_each(a.extent(), unsafe { double_u32(&mut a) })?;
    let tail = n - (40 << 20) / 4 - 1;
    {
        let mut section = a.section_mut([tail], [n - tail])?;
        amp::copy(&data[tail..], &mut section)?;
    }
    let back = a.to_vec()?;
    assert!(back[tail..] == data[tail..], "the copied section");
    assert!(
        back[..tail]
            .iter()
            .zip(&data[..tail])
            .all(|(b, d)| *b == d.wrapping_mul(2)),
        "the doubled rest"
    );
    assert_validation_clean();
    Ok(())
}

#[kernel(amp, unchecked)]
fn double_u32(idx: Index<1>, a: &mut Array<u32, 1>) {
    a[idx] = a[idx] * 2;
}

/// The public handles stay `Send`, `Sync` and unwind-safe (`catch_unwind` around view code
/// compiles), so no new field can take that away silently.
#[test]
fn public_handles_are_send_sync_and_unwind_safe() {
    use std::panic::{RefUnwindSafe, UnwindSafe};
    fn shared<T: Send + Sync + RefUnwindSafe>() {}
    fn owned<T: UnwindSafe>() {}
    shared::<Accelerator>();
    shared::<AcceleratorView>();
    shared::<Array<f32, 2>>();
    shared::<ArrayView<'static, f32, 2>>();
    shared::<ArrayViewMut<'static, f32, 2>>();
    owned::<Accelerator>();
    owned::<AcceleratorView>();
    owned::<Array<f32, 2>>();
    owned::<ArrayView<'static, f32, 2>>();
    // `ArrayViewMut` holds a `&mut` borrow, which std makes not `UnwindSafe`.
    let data = [1.0f32, 2.0, 3.0, 4.0];
    let view = ArrayView::new([2, 2], &data).unwrap();
    let caught = std::panic::catch_unwind(|| view.section([1, 0], [1, 2]).map(|s| s.to_vec()));
    assert_eq!(caught.unwrap().unwrap().unwrap(), vec![3.0, 4.0]);
}

/// `mem::forget` of a view after a launch wrote it ends the borrow without running any code:
/// the family is leaked, so nothing ever writes the slice again. Memory reused after the
/// slice is freed keeps what the program put there (on every path: in place, staged, deferred
/// or waited for).
#[test]
fn a_forgotten_view_never_writes_its_slice_again() -> Result<(), amp::Error> {
    const N: usize = 65_536;
    // Its own view: a wait of the default view could return another test's error.
    let queue = Accelerator::default()?.create_view()?;
    for round in 0..3 {
        let mut out = vec![0i32; N];
        let mut view = ArrayViewMut::new([N], &mut out)?;
        parallel_for_each_on(&queue, view.extent(), stamp1(&mut view))?;
        std::mem::forget(view);
        // Whatever the launch left in `out` (in place: its results; staged: the zeros), the
        // slice is the program's again.
        assert!(out[1] == 0 || out[1] == 501, "round {round}: {}", out[1]);
        drop(out);
        let other = vec![-1i32; N];
        // A later wait anywhere, and the end of the view's work.
        let mut probe = vec![0i32; 1];
        {
            let mut p = ArrayViewMut::new([1], &mut probe)?;
            parallel_for_each_on(&queue, p.extent(), stamp1(&mut p))?;
            p.synchronize()?;
        }
        queue.wait()?;
        assert!(
            other.iter().all(|&x| x == -1),
            "round {round}: reused memory written"
        );
    }
    assert_validation_clean();
    Ok(())
}
