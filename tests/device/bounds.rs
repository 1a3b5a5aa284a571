//! Checked device access: out-of-bounds view and array accesses on the device read 0, drop
//! writes, skip atomics, and make the launch return `Error::IndexOutOfBounds` naming the
//! kernel, the view, the index and the extent. `#[kernel(amp, unchecked)]` turns the checks off.

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

/// The fields of an `IndexOutOfBounds` error, or a panic naming what came instead.
pub(crate) fn out_of_bounds(
    result: Result<(), amp::Error>,
) -> (String, String, Vec<usize>, Vec<usize>) {
    match result {
        Err(amp::Error::IndexOutOfBounds {
            kernel,
            param,
            index,
            extent,
        }) => (kernel, param, index, extent),
        other => panic!("expected IndexOutOfBounds, got {other:?}"),
    }
}

#[kernel(amp)]
fn read_next(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = a[idx[0] + 1] + 0.5;
}

#[test]
fn out_of_bounds_read_gives_zero_and_an_error() -> Result<(), amp::Error> {
    let a = vec![1.0f32, 2.0, 3.0, 4.0];
    let mut out = vec![-1.0f32; 4];
    let result = {
        let av = ArrayView::new([4], &a)?;
        let mut ov = ArrayViewMut::new([4], &mut out)?;
        parallel_for_each(ov.extent(), read_next(&av, &mut ov))
    };
    let err = result.clone_display();
    let (kernel, param, index, extent) = out_of_bounds(result);
    assert_eq!(
        (kernel.as_str(), param.as_str(), index, extent),
        ("read_next", "a", vec![4], vec![4])
    );
    assert_eq!(
        err,
        "kernel `read_next`: index [4] is out of bounds for view `a` of extent [4]"
    );
    // The in-bounds reads are unaffected; the out-of-bounds one read 0.0.
    assert_eq!(out, [2.5, 3.5, 4.5, 0.5]);
    assert_validation_clean();
    Ok(())
}

/// The launches of these tests report their device errors at once: each runs on a fresh view
/// that is then waited for (a launch over arrays or copied host data, e.g. with
/// `AMP_FORCE_STAGING=1`, is asynchronous and its error comes with `wait`).
fn parallel_for_each<D: amp::ComputeDomain>(
    domain: D,
    call: D::Call<'_>,
) -> Result<(), amp::Error> {
    on_own_view(|v| parallel_for_each_on(v, domain, call))
}

/// Runs `launch` on a fresh view of the default accelerator, then waits for the view: the
/// launch's error whether it waited for its work (host memory used in place) or not (arrays,
/// copied views), and no other test's.
pub(crate) fn on_own_view(
    launch: impl FnOnce(&AcceleratorView) -> Result<(), amp::Error>,
) -> Result<(), amp::Error> {
    let view = Accelerator::default()?.create_view()?;
    launch(&view)?;
    view.wait()
}

/// `Result::to_string` for the error case, so the message can be checked before the error is
/// taken apart.
trait CloneDisplay {
    fn clone_display(&self) -> String;
}

impl CloneDisplay for Result<(), amp::Error> {
    fn clone_display(&self) -> String {
        match self {
            Ok(()) => "Ok".into(),
            Err(e) => e.to_string(),
        }
    }
}

#[kernel(amp)]
fn write_next(idx: Index<1>, out: ArrayViewMut<i32, 1>) {
    out[idx[0] + 1] = idx[0] as i32 + 10;
}

#[test]
fn out_of_bounds_write_is_dropped_and_reported() -> Result<(), amp::Error> {
    let mut out = vec![-7i32; 5];
    let result = {
        let mut ov = ArrayViewMut::new([5], &mut out)?;
        parallel_for_each(ov.extent(), write_next(&mut ov))
    };
    assert_eq!(
        out_of_bounds(result),
        ("write_next".into(), "out".into(), vec![5], vec![5])
    );
    // Threads 0..4 wrote elements 1..5; thread 4's write to element 5 was dropped.
    assert_eq!(out, [-7, 10, 11, 12, 13]);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn read_shifted(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>, shift: i32) {
    out[idx] = a[(idx[0] as i32 + shift) as usize];
}

/// A negative `i32` index cast to `usize` is a huge index, out of bounds like any other.
#[test]
fn negative_index_through_an_i32_cast_is_out_of_bounds() -> Result<(), amp::Error> {
    let a = vec![5i32, 6, 7];
    let mut out = vec![-1i32; 3];
    let result = {
        let av = ArrayView::new([3], &a)?;
        let mut ov = ArrayViewMut::new([3], &mut out)?;
        parallel_for_each(ov.extent(), read_shifted(&av, &mut ov, -1))
    };
    let (kernel, param, index, extent) = out_of_bounds(result);
    assert_eq!((kernel.as_str(), param.as_str()), ("read_shifted", "a"));
    assert_eq!(index, [(-1i32) as u32 as usize]);
    assert_eq!(extent, [3]);
    assert_eq!(out, [0, 5, 6]);

    // In bounds, the same kernel returns Ok.
    let mut out = vec![-1i32; 3];
    {
        let av = ArrayView::new([3], &a)?;
        let mut ov = ArrayViewMut::new([3], &mut out)?;
        parallel_for_each(ov.extent(), read_shifted(&av, &mut ov, 0))?;
    }
    assert_eq!(out, a);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn copy_wide(idx: Index<2>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    out[idx] = a[idx];
}

/// Rank 2: the domain (and output) is one column wider than the input; the last column reads
/// 0 and one of its threads is reported.
#[test]
fn rank_2_checks_every_dimension() -> Result<(), amp::Error> {
    let a: Vec<f32> = (1..=9).map(|v| v as f32).collect();
    let mut out = vec![-1.0f32; 12];
    let result = {
        let av = ArrayView::new([3, 3], &a)?;
        let mut ov = ArrayViewMut::new([3, 4], &mut out)?;
        parallel_for_each(ov.extent(), copy_wide(&av, &mut ov))
    };
    let (kernel, param, index, extent) = out_of_bounds(result);
    assert_eq!((kernel.as_str(), param.as_str()), ("copy_wide", "a"));
    assert_eq!(extent, [3, 3]);
    assert!(index[0] < 3 && index[1] == 3, "{index:?}");
    let expected: Vec<f32> = (0..12)
        .map(|k| {
            let (i, j) = (k / 4, k % 4);
            if j < 3 {
                (i * 3 + j + 1) as f32
            } else {
                0.0
            }
        })
        .collect();
    assert_eq!(out, expected);

    // The first dimension is checked on its own too (a row past the end, same element count).
    let mut out = vec![-1.0f32; 12];
    let result = {
        let av = ArrayView::new([3, 3], &a)?;
        let mut ov = ArrayViewMut::new([4, 3], &mut out)?;
        parallel_for_each(ov.extent(), copy_wide(&av, &mut ov))
    };
    let (_, _, index, extent) = out_of_bounds(result);
    assert_eq!(extent, [3, 3]);
    assert!(index[0] == 3 && index[1] < 3, "{index:?}");
    assert_eq!(&out[..9], &a[..]);
    assert_eq!(&out[9..], &[0.0; 3]);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn spread_3d(idx: Index<3>, out: ArrayViewMut<u32, 3>) {
    out[[idx[0], idx[1], 2 * idx[2]]] = (1 + idx[0] * 4 + idx[1] * 2 + idx[2]) as u32;
}

#[test]
fn rank_3_write_past_the_last_dimension() -> Result<(), amp::Error> {
    let mut out = vec![0u32; 8];
    let result = {
        let mut ov = ArrayViewMut::new([2, 2, 2], &mut out)?;
        parallel_for_each(Extent::new([2, 2, 2]), spread_3d(&mut ov))
    };
    let (kernel, param, index, extent) = out_of_bounds(result);
    assert_eq!((kernel.as_str(), param.as_str()), ("spread_3d", "out"));
    assert_eq!(extent, [2, 2, 2]);
    assert!(index[0] < 2 && index[1] < 2 && index[2] == 2, "{index:?}");
    // Threads with idx[2] == 0 wrote their element; those with idx[2] == 1 were dropped.
    assert_eq!(out, [1, 0, 3, 0, 5, 0, 7, 0]);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn count_into(
    idx: Index<1>,
    data: ArrayView<u32, 1>,
    bins: &mut Array<u32, 1>,
    old: ArrayViewMut<u32, 1>,
) {
    old[idx] = atomic_fetch_add(&mut bins[data[idx] as usize], 1);
}

/// Atomics on an array: out-of-bounds ones do nothing and return 0.
#[test]
fn out_of_bounds_atomics_do_nothing_and_return_zero() -> Result<(), amp::Error> {
    let data = vec![0u32, 1, 9, 1, 4, 2];
    let mut bins = Array::from_slice([3], &[1000u32; 3])?;
    let mut old = vec![7u32; 6];
    let result = {
        let dv = ArrayView::new([6], &data)?;
        let mut ov = ArrayViewMut::new([6], &mut old)?;
        parallel_for_each(dv.extent(), count_into(&dv, &mut bins, &mut ov))
    };
    let (kernel, param, index, extent) = out_of_bounds(result);
    assert_eq!((kernel.as_str(), param.as_str()), ("count_into", "bins"));
    assert!(index == [9] || index == [4], "{index:?}");
    assert_eq!(extent, [3]);
    assert_eq!(bins.to_vec()?, [1001, 1002, 1001]);
    for (k, &o) in old.iter().enumerate() {
        if data[k] < 3 {
            assert!(o >= 1000, "thread {k} saw {o}");
        } else {
            assert_eq!(o, 0, "thread {k}");
        }
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp, allow(write_conflict))]
fn exchange_at(
    idx: Index<1>,
    v: ArrayViewMut<i32, 1>,
    res: ArrayViewMut<i32, 1>,
    at: u32,
    first: i32,
) {
    let mut expected = first;
    let swapped = atomic_compare_exchange(&mut v[at as usize], &mut expected, 5);
    res[0] = expected;
    res[1] = if swapped { 1 } else { 0 };
    // A compare-exchange loop: on an out-of-bounds element it sees 0 and ends.
    loop {
        let current = v[at as usize + idx[0]];
        let mut seen = current;
        if atomic_compare_exchange(&mut v[at as usize + idx[0]], &mut seen, current + 1) {
            break;
        }
    }
}

/// A compare-exchange out of bounds treats the element as a constant 0: it succeeds iff
/// `expected` is 0, and otherwise stores 0 into `expected`.
#[test]
fn out_of_bounds_compare_exchange_sees_zero() -> Result<(), amp::Error> {
    for (first, want) in [(3, [0, 0]), (0, [0, 1])] {
        let mut v = vec![3i32; 2];
        let mut res = vec![-1i32; 2];
        let result = {
            let mut vv = ArrayViewMut::new([2], &mut v)?;
            let mut rv = ArrayViewMut::new([2], &mut res)?;
            parallel_for_each(Extent::new([1]), exchange_at(&mut vv, &mut rv, 2, first))
        };
        let (kernel, param, index, extent) = out_of_bounds(result);
        assert_eq!(
            (kernel.as_str(), param.as_str(), index, extent),
            ("exchange_at", "v", vec![2], vec![2])
        );
        assert_eq!(res, want, "first = {first}");
        assert_eq!(v, [3, 3], "nothing was written");
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn tiled_reverse_next(t: TiledIndex<4>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    #[tile_static]
    let mut s: [f32; 4];
    s[t.local[0]] = a[t.global[0] + 1];
    t.barrier.wait();
    out[t.global] = s[3 - t.local[0]];
}

/// Tiled kernels are checked too; the check does not disturb the barrier.
#[test]
fn tiled_kernel_out_of_bounds_read() -> Result<(), amp::Error> {
    let a: Vec<f32> = (0..8).map(|v| v as f32).collect();
    let mut out = vec![-1.0f32; 8];
    let result = {
        let av = ArrayView::new([8], &a)?;
        let mut ov = ArrayViewMut::new([8], &mut out)?;
        parallel_for_each(
            Extent::new([8]).tile::<4>(),
            tiled_reverse_next(&av, &mut ov),
        )
    };
    assert_eq!(
        out_of_bounds(result),
        ("tiled_reverse_next".into(), "a".into(), vec![8], vec![8])
    );
    assert_eq!(out, [4.0, 3.0, 2.0, 1.0, 0.0, 7.0, 6.0, 5.0]);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp, unchecked)]
fn write_next_unchecked(idx: Index<1>, out: ArrayViewMut<i32, 1>) {
    out[idx[0] + 1] = idx[0] as i32 + 10;
}

#[kernel(amp, unchecked, allow(write_conflict))]
fn write_first_unchecked(idx: Index<1>, out: ArrayViewMut<i32, 1>) {
    out[0] = 42;
    out[idx] = 42;
}

/// `unchecked` kernels have no report binding; on a Vulkan device an out-of-bounds write
/// returns Ok (the device's `robustBufferAccess` keeps the stray write inside the buffer);
/// in-bounds work is the same. On the native CPU accelerator nothing stops a stray write
/// (which is why the launcher is `unsafe`), so there only in-bounds launches run.
#[test]
fn unchecked_kernels_run_without_a_report() -> Result<(), amp::Error> {
    if !Accelerator::default()?.is_native() {
        let mut out = vec![-7i32; 5];
        {
            let mut ov = ArrayViewMut::new([5], &mut out)?;
            // SAFETY: not kept, on purpose: thread 4 writes `out[5]`, past the view. The launch
            // runs on Vulkan devices only, where robust buffer access (enabled wherever the
            // device has it: lavapipe and every GPU met so far) discards the write.
            let call = unsafe { write_next_unchecked(&mut ov) };
            assert_eq!(call.kernel().report_binding, None);
            parallel_for_each(Extent::new([5]), call)?;
        }
        assert_eq!(&out[..5], &[-7, 10, 11, 12, 13]);
    }
    {
        let mut out = vec![-7i32; 5];
        let mut ov = ArrayViewMut::new([5], &mut out)?;
        // SAFETY: thread `i < 4` writes `out[i + 1]`, inside the view.
        let call = unsafe { write_next_unchecked(&mut ov) };
        assert_eq!(call.kernel().report_binding, None);
        parallel_for_each(Extent::new([4]), call)?;
        drop(ov);
        assert_eq!(out, [-7, 10, 11, 12, 13]);
    }

    let mut out = vec![0i32; 4];
    {
        let mut ov = ArrayViewMut::new([4], &mut out)?;
        // SAFETY: thread `i < 4` writes `out[0]` and `out[i]`, inside the view.
        let call = unsafe { write_first_unchecked(&mut ov) };
        assert_eq!(call.kernel().report_binding, None);
        parallel_for_each(Extent::new([4]), call)?;
    }
    assert_eq!(out, [42; 4]);

    let mut out = vec![0i32; 5];
    let mut ov = ArrayViewMut::new([5], &mut out)?;
    assert_eq!(write_next(&mut ov).kernel().report_binding, Some(1));
    assert_validation_clean();
    Ok(())
}

// Threads i and i + 1 both write element i + 1: a real write conflict, by design.
#[kernel(amp, allow(write_conflict))]
fn fill_domain(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    out[idx] = (100 + idx[0]) as u32;
    out[idx[0] + 1] = (200 + idx[0]) as u32;
}

/// Guards: a checked kernel whose domain is twice its output view, writing at `idx` and
/// `idx + 1`, touches nothing outside the view: not the rest of the host vector the view was
/// split from, and not a neighbouring device array allocated right after it.
#[test]
fn checked_writes_never_leave_their_view() -> Result<(), amp::Error> {
    let mut data = vec![0xdead_u32; 12];
    let (inside, guard) = data.split_at_mut(4);
    let result = {
        let mut ov = ArrayViewMut::new([4], inside)?;
        let guard_view = ArrayViewMut::new([8], guard)?;
        let r = parallel_for_each(Extent::new([8]), fill_domain(&mut ov));
        drop(guard_view);
        r
    };
    let (_, param, index, extent) = out_of_bounds(result);
    assert_eq!(param, "out");
    assert_eq!(extent, [4]);
    assert!((4..9).contains(&index[0]), "{index:?}");
    // Each element holds one of its two writers' values (a real write conflict, by design).
    for (k, &v) in data[..4].iter().enumerate() {
        let k = k as u32;
        assert!(v == 100 + k || (k > 0 && v == 199 + k), "element {k}: {v}");
    }
    assert!(data[4..].iter().all(|&v| v == 0xdead), "{data:?}");

    // Device memory: two small arrays allocated back to back; the first is written far past
    // its end, the second keeps its guard values.
    let mut target = Array::from_slice([4], &[0u32; 4])?;
    let neighbour = Array::from_slice([64], &[0xdead_u32; 64])?;
    // A launch over arrays is asynchronous: the error comes with the view's `wait`.
    let result =
        on_own_view(|v| parallel_for_each_on(v, Extent::new([64]), fill_array(&mut target)));
    let (_, param, _, extent) = out_of_bounds(result);
    assert_eq!((param.as_str(), extent), ("out", vec![4]));
    assert!(neighbour.to_vec()?.iter().all(|&v| v == 0xdead));
    for (k, v) in target.to_vec()?.into_iter().enumerate() {
        let k = k as u32;
        assert!(v == 100 + k || (k > 0 && v == 199 + k), "element {k}: {v}");
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp, allow(write_conflict))]
fn fill_array(idx: Index<1>, out: &mut Array<u32, 1>) {
    out[idx] = (100 + idx[0]) as u32;
    out[idx[0] + 1] = (200 + idx[0]) as u32;
}

/// A kernel's pipeline is specialized per launch on whether each view covers the domain (then
/// the thread's own index needs no check) and starts at its buffer's first element: covering
/// and non-covering launches of the same kernel, alternated, each get the right answer, and
/// sections (offset > 0) read the right elements.
#[test]
fn specialization_follows_each_launch() -> Result<(), amp::Error> {
    let a: Vec<f32> = (1..=12).map(|v| v as f32).collect();
    for round in 0..2 {
        // Covers: [3, 4] into [3, 4].
        let mut out = vec![-1.0f32; 12];
        {
            let av = ArrayView::new([3, 4], &a)?;
            let mut ov = ArrayViewMut::new([3, 4], &mut out)?;
            parallel_for_each(ov.extent(), copy_wide(&av, &mut ov))?;
        }
        assert_eq!(out, a, "round {round}");

        // Does not cover: a [3, 3] section (offset 1, row stride 4) into a [3, 4] domain.
        let mut out = vec![-1.0f32; 12];
        let result = {
            let av = ArrayView::new([3, 4], &a)?;
            let section = av.section([0, 1], [3, 3])?;
            let mut ov = ArrayViewMut::new([3, 4], &mut out)?;
            parallel_for_each(ov.extent(), copy_wide(&section, &mut ov))
        };
        let (_, param, index, extent) = out_of_bounds(result);
        assert_eq!((param.as_str(), extent), ("a", vec![3, 3]));
        assert_eq!(index[1], 3, "{index:?}");
        let expected: Vec<f32> = (0..12)
            .map(|k| {
                let (i, j) = (k / 4, k % 4);
                if j < 3 {
                    a[i * 4 + j + 1]
                } else {
                    0.0
                }
            })
            .collect();
        assert_eq!(out, expected, "round {round}");

        // Covers with room to spare: a [3, 4] view into a [2, 3] domain.
        let mut out = vec![-1.0f32; 6];
        {
            let av = ArrayView::new([3, 4], &a)?;
            let mut ov = ArrayViewMut::new([2, 3], &mut out)?;
            parallel_for_each(ov.extent(), copy_wide(&av, &mut ov))?;
        }
        assert_eq!(out, [1.0, 2.0, 3.0, 5.0, 6.0, 7.0], "round {round}");
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn tiled_copy(t: TiledIndex<4>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[t.global] = a[t.global];
}

/// `t.global` is covered the same way: a view shorter than the tiled domain is still caught.
#[test]
fn tiled_global_index_on_a_short_view_is_caught() -> Result<(), amp::Error> {
    let a: Vec<f32> = (0..6).map(|v| v as f32).collect();
    let mut out = vec![-1.0f32; 8];
    let result = {
        let av = ArrayView::new([6], &a)?;
        let mut ov = ArrayViewMut::new([8], &mut out)?;
        parallel_for_each(Extent::new([8]).tile::<4>(), tiled_copy(&av, &mut ov))
    };
    let (_, param, index, extent) = out_of_bounds(result);
    assert_eq!((param.as_str(), extent), ("a", vec![6]));
    assert!(index[0] >= 6, "{index:?}");
    assert_eq!(out, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 0.0, 0.0]);
    let a: Vec<f32> = (0..8).map(|v| v as f32).collect();
    let mut out = vec![-1.0f32; 8];
    {
        let av = ArrayView::new([8], &a)?;
        let mut ov = ArrayViewMut::new([8], &mut out)?;
        parallel_for_each(Extent::new([8]).tile::<4>(), tiled_copy(&av, &mut ov))?;
    }
    assert_eq!(out, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    assert_validation_clean();
    Ok(())
}

/// The compiler and the runtime agree on the ABI's numbers (the `SpecId`s and bits of the
/// layout facts).
#[test]
fn compiler_and_runtime_share_the_abi_constants() {
    assert_eq!(amp_spirv::LAYOUT_SPEC_ID_BASE, amp::LAYOUT_SPEC_ID_BASE);
    use amp::layout_fact as rt;
    use amp_spirv::layout_fact as cc;
    assert_eq!(
        [
            cc::ZERO_OFFSET,
            cc::DENSE,
            cc::COVERS_DOMAIN,
            cc::EQUALS_DOMAIN_DIM0
        ],
        [
            rt::ZERO_OFFSET,
            rt::DENSE,
            rt::COVERS_DOMAIN,
            rt::EQUALS_DOMAIN_DIM0
        ]
    );
}

#[kernel(amp)]
fn dot_columns(idx: Index<2>, a: ArrayView<f32, 2>, b: ArrayView<f32, 2>, c: ArrayViewMut<f32, 2>) {
    let mut sum = 0.0;
    for k in 0..a.extent()[1] {
        sum += a[[idx[0], k]] * b[[k, idx[1]]];
    }
    c[idx] = sum;
}

/// The checks a tile (or a batch of a simple kernel's threads) can decide at its start, like
/// `b[[k, col]]` for every `k` of a loop over `a`'s columns, are one comparison there on the
/// native accelerator; where it fails, every access is checked as before.
#[test]
fn checks_decided_per_batch_still_catch_a_short_view() -> Result<(), amp::Error> {
    let (rows, inner, cols) = (2, 3, 70);
    let a: Vec<f32> = (0..rows * inner).map(|v| v as f32 + 1.0).collect();
    let b: Vec<f32> = (0..inner * cols).map(|v| (v % 7) as f32 - 2.0).collect();
    let expected = |b_rows: usize| -> Vec<f32> {
        let mut c = vec![0.0f32; rows * cols];
        for r in 0..rows {
            for j in 0..cols {
                let mut sum = 0.0f32;
                for k in 0..inner {
                    let bv = if k < b_rows { b[k * cols + j] } else { 0.0 };
                    sum += a[r * inner + k] * bv;
                }
                c[r * cols + j] = sum;
            }
        }
        c
    };
    for b_rows in [inner, inner - 1] {
        let mut c = vec![-1.0f32; rows * cols];
        let result = {
            let av = ArrayView::new([rows, inner], &a)?;
            let bv = ArrayView::new([b_rows, cols], &b[..b_rows * cols])?;
            let mut cv = ArrayViewMut::new([rows, cols], &mut c)?;
            parallel_for_each(cv.extent(), dot_columns(&av, &bv, &mut cv))
        };
        if b_rows == inner {
            result?;
        } else {
            let (kernel, param, index, extent) = out_of_bounds(result);
            assert_eq!((kernel.as_str(), param.as_str()), ("dot_columns", "b"));
            assert_eq!((index[0], extent), (b_rows, vec![b_rows, cols]));
        }
        assert_eq!(c, expected(b_rows), "b with {b_rows} rows");
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn tiled_window(t: TiledIndex<8>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>, n: u32) {
    let mut acc = 0;
    let mut i = 0;
    while i < n as usize {
        acc += a[t.global[0] + i];
        t.barrier.wait();
        i += 1;
    }
    out[t.global] = acc;
}

/// A check that depends on a tile-uniform local (`i`, stepped between barriers) is decided
/// before each work-item loop: the first tile never fails it, the second fails it for its
/// last steps, and those steps run checked (the reads past the view give 0 and the report).
#[test]
fn checks_decided_per_work_item_loop_still_catch_a_short_view() -> Result<(), amp::Error> {
    let a: Vec<i32> = (0..18).map(|v| v * 3 - 7).collect();
    let n = 4usize;
    let mut out = vec![-1i32; 16];
    let result = {
        let av = ArrayView::new([a.len()], &a)?;
        let mut ov = ArrayViewMut::new([16], &mut out)?;
        parallel_for_each(
            Extent::new([16]).tile::<8>(),
            tiled_window(&av, &mut ov, n as u32),
        )
    };
    let (kernel, param, index, extent) = out_of_bounds(result);
    assert_eq!((kernel.as_str(), param.as_str()), ("tiled_window", "a"));
    assert!(index[0] >= 18 && extent == [18], "{index:?} {extent:?}");
    let expected: Vec<i32> = (0..16)
        .map(|j| (0..n).map(|i| a.get(j + i).copied().unwrap_or(0)).sum())
        .collect();
    assert_eq!(out, expected);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn stamp(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    out[idx] = 99;
}

// One thread writes one element past the view, after every thread wrote its own.
#[kernel(amp, allow(write_conflict))]
fn stamp_then_one_past(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    out[idx] = 10 + idx[0] as u32;
    if idx[0] == 7 {
        out[8] = 1;
    }
}

/// A view of host data dropped without `synchronize` after a launch with an out-of-bounds
/// write keeps the launch's in-bounds writes, on every device and path (the error, which no
/// later call could return, does not take the results with it).
#[test]
fn a_dropped_view_keeps_the_in_bounds_writes_of_a_failed_launch() -> Result<(), amp::Error> {
    let mut data = vec![0u32; 8];
    {
        let mut view = ArrayViewMut::new([8], &mut data)?;
        // An earlier launch, so the failing one finds the data on the device already.
        parallel_for_each(view.extent(), stamp(&mut view))?;
        let launched = parallel_for_each(view.extent(), stamp_then_one_past(&mut view));
        // Waited-for launches report it here; deferred ones at the next wait (here: none).
        assert!(
            matches!(launched, Ok(()) | Err(amp::Error::IndexOutOfBounds { .. })),
            "{launched:?}"
        );
    }
    assert_eq!(data, (10..18).collect::<Vec<u32>>());
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn five_point(idx: Index<2>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    let (i, j) = (idx[0] + 1, idx[1] + 1);
    out[[i, j]] = a[[i - 1, j]] + a[[i + 1, j]] + a[[i, j - 1]] + a[[i, j + 1]] - a[[i, j]];
}

/// A stencil's offset indices, over a domain wide enough for whole batches of threads and a
/// remainder: inside the grid they compute what the host does; a domain one row and one
/// column too large reads past the grid's edge, which reads zero and is reported, whether the
/// threads' checks are decided one by one or once for a batch of them (natively).
#[test]
fn offset_indices_in_and_past_a_grid() -> Result<(), amp::Error> {
    let n = 70;
    let a: Vec<f32> = (0..n * n).map(|v| (v % 13) as f32 - 6.0).collect();
    let at = |i: usize, j: usize| if i < n && j < n { a[i * n + j] } else { 0.0 };
    let expect =
        |i: usize, j: usize| at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1) - at(i, j);
    for (rows, cols, past) in [(n - 2, n - 2, false), (n - 1, n - 1, true)] {
        let mut out = vec![-1.0f32; (n + 1) * (n + 1)];
        let result = {
            let av = ArrayView::new([n, n], &a)?;
            let mut ov = ArrayViewMut::new([n + 1, n + 1], &mut out)?;
            parallel_for_each(Extent::new([rows, cols]), five_point(&av, &mut ov))
        };
        match past {
            false => result?,
            true => {
                let (kernel, param, index, extent) = out_of_bounds(result);
                assert_eq!((kernel.as_str(), param.as_str()), ("five_point", "a"));
                assert_eq!(extent, [n, n]);
                assert!(index[0] == n || index[1] == n, "{index:?}");
            }
        }
        for i in 1..=rows {
            for j in 1..=cols {
                assert_eq!(
                    out[i * (n + 1) + j],
                    expect(i, j),
                    "({i}, {j}) of {rows} x {cols}"
                );
            }
        }
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn heat_row(idx: Index<3>, a: ArrayView<f32, 3>, out: ArrayViewMut<f32, 3>) {
    let (i, j, k) = (idx[0] + 1, idx[1] + 1, idx[2] + 1);
    out[[i, j, k]] =
        a[[i, j, k - 1]] + 2.0 * a[[i, j, k + 1]] + a[[i - 1, j, k]] + a[[i, j + 1, k]];
}

/// Rows of lengths around 32 and of several batches (natively, a stencil's rows run as batches
/// of 32 neighbouring threads and a shorter last one, the batches between a row's first and
/// last whole ones in one call): the host's values, and an access past a row's end found in
/// its last threads and reported.
#[test]
fn stencil_rows_of_any_length_match_the_host() -> Result<(), amp::Error> {
    for n in [1usize, 3, 31, 32, 33, 37, 64, 70, 96, 100, 130] {
        let d = [4, 3, n + 2];
        let len = d.iter().product();
        let a: Vec<f32> = (0..len).map(|x| (x % 13) as f32).collect();
        let mut out = vec![0f32; len];
        {
            let av = ArrayView::new(d, &a)?;
            let mut ov = ArrayViewMut::new(d, &mut out)?;
            let interior = Extent::new([d[0] - 2, d[1] - 2, n]);
            parallel_for_each(interior, heat_row(&av, &mut ov))?;
        }
        let at = |i: usize, j: usize, k: usize| (i * d[1] + j) * d[2] + k;
        for i in 1..d[0] - 1 {
            for j in 1..d[1] - 1 {
                for k in 1..=n {
                    let want = a[at(i, j, k - 1)]
                        + 2.0 * a[at(i, j, k + 1)]
                        + a[at(i - 1, j, k)]
                        + a[at(i, j + 1, k)];
                    assert_eq!(out[at(i, j, k)], want, "rows of {n}, at [{i}, {j}, {k}]");
                }
            }
        }
        // One thread more per row: each row's last thread reads `a` one past the row's end.
        let av = ArrayView::new(d, &a)?;
        let mut ov = ArrayViewMut::new(d, &mut out)?;
        let wider = Extent::new([d[0] - 2, d[1] - 2, n + 1]);
        let (_, param, index, extent) =
            out_of_bounds(parallel_for_each(wider, heat_row(&av, &mut ov)));
        assert_eq!((param.as_str(), index[2], extent), ("a", n + 2, d.to_vec()));
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn next_minus_own(idx: Index<2>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    let (i, j) = (idx[0], idx[1]);
    out[idx] = a[[i, j + 1]] - a[idx];
}

#[kernel(amp)]
fn next_minus_own_1d(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = a[idx[0] + 1] - a[idx];
}

/// A view that ends inside a row, anywhere along it: natively the batches between a row's
/// first and last whole ones run in one call whose checks are decided once, so a view ending
/// among them sends that call down the checked path. Every thread still gets the host's value
/// (a read past the view's end reads zero) and the access is reported; rows of one dimension
/// too, whose launch is split into chunks of batches.
#[test]
fn a_view_ending_inside_a_row_of_many_batches() -> Result<(), amp::Error> {
    for (n, m) in [
        (300usize, 301usize),
        (300, 300),
        (300, 150),
        (300, 33),
        (130, 64),
    ] {
        let a: Vec<f32> = (0..3 * m).map(|x| (x % 17) as f32).collect();
        let at = |i: usize, j: usize| if j < m { a[i * m + j] } else { 0.0 };
        let mut out = vec![0f32; 3 * n];
        let result = {
            let av = ArrayView::new([3, m], &a)?;
            let mut ov = ArrayViewMut::new([3, n], &mut out)?;
            parallel_for_each(Extent::new([3, n]), next_minus_own(&av, &mut ov))
        };
        match m > n {
            true => result?,
            false => {
                let (_, param, index, extent) = out_of_bounds(result);
                assert_eq!((param.as_str(), extent), ("a", vec![3, m]));
                assert!(index[1] >= m, "{index:?} in rows of {m}");
            }
        }
        for i in 0..3 {
            for j in 0..n {
                let want = at(i, j + 1) - at(i, j);
                assert_eq!(out[i * n + j], want, "[{i}, {j}], rows of {n}, view of {m}");
            }
        }
        // One dimension: the same rows end to end.
        let (n1, m1) = (3 * n, 3 * m.min(n) - 7);
        let a1 = &a[..m1];
        let mut out1 = vec![0f32; n1];
        let result = {
            let av = ArrayView::new([m1], a1)?;
            let mut ov = ArrayViewMut::new([n1], &mut out1)?;
            parallel_for_each(Extent::new([n1]), next_minus_own_1d(&av, &mut ov))
        };
        let (_, param, index, _) = out_of_bounds(result);
        assert_eq!(param.as_str(), "a");
        assert!(index[0] >= m1, "{index:?} in a view of {m1}");
        let at1 = |j: usize| if j < m1 { a1[j] } else { 0.0 };
        for (j, &got) in out1.iter().enumerate() {
            assert_eq!(got, at1(j + 1) - at1(j), "[{j}] of {n1}, view of {m1}");
        }
    }
    assert_validation_clean();
    Ok(())
}

/// A tiled kernel reading at a value less its lane (`k + origin - local`): natively a guard
/// proves the whole tile in bounds once where the smallest index is at least 0 and the largest
/// below the extent, and the tile runs checked otherwise, so a lane whose index would fall
/// below 0 (wrapping its 32 bits) is still reported.
#[kernel(amp)]
fn read_back_from(t: TiledIndex<8>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>, k: u32) {
    out[t.global] = a[k as usize + t.tile_origin[0] - t.local[0]];
}

#[test]
fn an_index_less_the_lane_is_checked_where_it_could_fall_below_zero() -> Result<(), amp::Error> {
    let a: Vec<i32> = (0..64).map(|i| i * 3 + 1).collect();
    let run = |k: u32, out: &mut Vec<i32>| {
        let av = ArrayView::new([64], &a)?;
        let mut ov = ArrayViewMut::new([64], out)?;
        parallel_for_each(ov.extent().tile::<8>(), read_back_from(&av, &mut ov, k))
    };
    // Every index in bounds: 7 + origin - local is 0 ..= 63.
    let mut out = vec![0i32; 64];
    run(7, &mut out)?;
    let want: Vec<i32> = (0..64).map(|g| a[7 + g / 8 * 8 - g % 8]).collect();
    assert_eq!(out, want);
    // Lane 7 of tile 0 reads at 6 - 7: reported, and read as 0.
    let mut out = vec![0i32; 64];
    let (kernel, param, index, extent) = out_of_bounds(run(6, &mut out));
    assert_eq!(
        (kernel.as_str(), param.as_str(), extent),
        ("read_back_from", "a", vec![64])
    );
    assert_eq!(index, vec![u32::MAX as usize]);
    assert_eq!(out[7], 0);
    assert_eq!(out[8], a[6 + 8]);
    assert_validation_clean();
    Ok(())
}

/// A wavefront's reads (`let y = m - tx;` under `if tx <= m`, as in Needleman-Wunsch): the
/// `let`s of a work-item loop are fixed for the loop, so natively a guard before it proves the
/// `tile_static` read and the view read for every lane it runs, and the loop runs checked where
/// a lane's view index could wrap below 0 or pass the end.
#[kernel(amp)]
fn wavefront_reads(t: TiledIndex<8>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>, k: u32) {
    #[tile_static]
    let mut sh: [i32; 8];
    let tx = t.local[0];
    sh[tx] = a[t.global];
    t.barrier.wait();
    let mut acc = 0i32;
    for m in 0..8 {
        if tx <= m {
            let y = m - tx;
            let z = y + k as usize + t.tile_origin[0] - 4;
            acc = acc.wrapping_mul(31).wrapping_add(sh[y] * 3 + a[z]);
        }
        t.barrier.wait();
    }
    out[t.global] = acc;
}

#[test]
fn a_wavefronts_lets_are_guarded_for_the_lanes_that_run() -> Result<(), amp::Error> {
    let a: Vec<i32> = (0..64).map(|i| i * 7 - 100).collect();
    let run = |k: u32, out: &mut Vec<i32>| {
        let av = ArrayView::new([64], &a)?;
        let mut ov = ArrayViewMut::new([64], out)?;
        parallel_for_each(ov.extent().tile::<8>(), wavefront_reads(&av, &mut ov, k))
    };
    let want = |k: usize| -> Vec<i32> {
        let at = |i: usize| a.get(i).copied().unwrap_or(0);
        (0..64)
            .map(|g| {
                let (o, tx) = (g / 8 * 8, g % 8);
                (tx..8).fold(0i32, |acc, m| {
                    let y = m - tx;
                    let z = (y + k + o).wrapping_sub(4) as u32 as usize;
                    acc.wrapping_mul(31).wrapping_add(a[o + y] * 3 + at(z))
                })
            })
            .collect()
    };
    // Every index in bounds: 4 + origin + m - tx - 4 is 0 ..= 63.
    let mut out = vec![0i32; 64];
    run(4, &mut out)?;
    assert_eq!(out, want(4));
    // Tile 0's lanes read at m - tx - 1: -1 where m is tx, reported, and read as 0.
    let mut out = vec![0i32; 64];
    let (kernel, param, index, extent) = out_of_bounds(run(3, &mut out));
    assert_eq!(
        (kernel.as_str(), param.as_str(), extent),
        ("wavefront_reads", "a", vec![64])
    );
    assert_eq!(index, vec![u32::MAX as usize]);
    assert_eq!(out, want(3));
    // The last tile's lane 0 reads at 64 where m is 7.
    let mut out = vec![0i32; 64];
    let (_, param, index, _) = out_of_bounds(run(5, &mut out));
    assert_eq!((param.as_str(), index), ("a", vec![64]));
    assert_eq!(out, want(5));
    assert_validation_clean();
    Ok(())
}

/// A loop every thread of a tile runs the same way: natively it runs several iterations per
/// work-item loop (jammed), and a guard before each such loop proves the rows of all of them
/// at once (`r + 1` for `r` up to the counter plus the last step), so a chunk whose last row
/// passes the end runs checked and reports it.
#[kernel(amp)]
fn rows_in_steps(t: TiledIndex<4>, a: ArrayView<i32, 2>, out: ArrayViewMut<i32, 1>, rows: u32) {
    let mut s = 0i32;
    for r in 0..rows as usize {
        s = s.wrapping_mul(7).wrapping_add(a[[r + 1, t.global[0]]]);
    }
    out[t.global] = s;
}

#[test]
fn a_jammed_loops_rows_are_guarded_together() -> Result<(), amp::Error> {
    let (h, w) = (10usize, 8usize);
    let a: Vec<i32> = (0..h * w).map(|i| (i as i32) * 5 - 17).collect();
    let run = |rows: u32, out: &mut Vec<i32>| {
        let av = ArrayView::new([h, w], &a)?;
        let mut ov = ArrayViewMut::new([w], out)?;
        parallel_for_each(ov.extent().tile::<4>(), rows_in_steps(&av, &mut ov, rows))
    };
    let want = |rows: usize| -> Vec<i32> {
        (0..w)
            .map(|g| {
                (0..rows).fold(0i32, |s, r| {
                    let v = if r + 1 < h { a[(r + 1) * w + g] } else { 0 };
                    s.wrapping_mul(7).wrapping_add(v)
                })
            })
            .collect()
    };
    for rows in [0u32, 3, 4, 8, 9] {
        let mut out = vec![0i32; w];
        run(rows, &mut out)?;
        assert_eq!(out, want(rows as usize), "{rows} rows");
    }
    for rows in [10u32, 12] {
        let mut out = vec![0i32; w];
        let (kernel, param, index, extent) = out_of_bounds(run(rows, &mut out));
        assert_eq!(
            (kernel.as_str(), param.as_str(), extent),
            ("rows_in_steps", "a", vec![h, w])
        );
        assert!(index[0] >= h, "{index:?}");
        assert_eq!(out, want(rows as usize), "{rows} rows");
    }
    assert_validation_clean();
    Ok(())
}
