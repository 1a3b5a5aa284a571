//! The native CPU accelerator (`Accelerator::cpu()`): its identity, launches over host
//! slices and CPU arrays, copies between it and Vulkan, its errors, and what only it gets right
//! (a loop past llvmpipe's 65,535-iteration cut-off).

mod common;
use common::{in_child, run_child};

use amp::prelude::*;
use amp::Error;

#[kernel(amp)]
fn add(idx: Index<1>, a: ArrayView<i32, 1>, b: ArrayView<i32, 1>, sum: ArrayViewMut<i32, 1>) {
    sum[idx] = a[idx] + b[idx];
}

#[kernel(amp)]
fn saxpy2(idx: Index<2>, alpha: f32, x: &Array<f32, 2>, y: &mut Array<f32, 2>) {
    y[idx] = alpha * x[idx] + y[idx];
}

#[kernel(amp)]
fn long_loop(idx: Index<1>, n: u32, out: ArrayViewMut<u32, 1>) {
    let mut acc = 0u32;
    let mut i = 0u32;
    while i < n {
        acc += i ^ idx[0] as u32;
        i += 1;
    }
    out[idx] = acc;
}

#[kernel(amp)]
fn shifted(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = a[idx + Index::new([1])];
}

#[test]
fn cpu_accelerator_identity() -> Result<(), Error> {
    let cpu = Accelerator::cpu()?;
    assert_eq!(cpu.device_path(), "cpu");
    assert!(!cpu.description().is_empty());
    assert!(cpu.is_native());
    assert_eq!(Accelerator::from_path("cpu")?, cpu);
    assert!(Accelerator::all()?.contains(&cpu));
    assert!(cpu.supports_double_precision());
    assert_eq!(cpu.limits().max_tile_threads(), 1024);
    Ok(())
}

#[test]
fn vector_add_over_host_slices() -> Result<(), Error> {
    let cpu = Accelerator::cpu()?;
    let n = 100_003;
    let a: Vec<i32> = (0..n).collect();
    let b: Vec<i32> = (0..n).map(|i| 3 * i).collect();
    let mut out = vec![0; n as usize];
    {
        let av = ArrayView::new([n as usize], &a)?;
        let bv = ArrayView::new([n as usize], &b)?;
        let mut sum = ArrayViewMut::new([n as usize], &mut out)?;
        sum.discard_data();
        parallel_for_each_on(&cpu, sum.extent(), add(&av, &bv, &mut sum))?;
        sum.synchronize()?;
    }
    assert!(out.iter().enumerate().all(|(i, &v)| v == 4 * i as i32));
    Ok(())
}

#[test]
fn arrays_on_the_cpu() -> Result<(), Error> {
    let cpu = Accelerator::cpu()?;
    let x: Vec<f32> = (0..300 * 200).map(|i| i as f32).collect();
    let xs = Array::from_slice_on(&cpu, [300, 200], &x)?;
    let mut ys = Array::<f32, 2>::new_on(&cpu, [300, 200])?;
    assert_eq!(ys.accelerator(), &cpu);
    ys.as_mut_slice()?.fill(1.0);
    parallel_for_each_on(&cpu, ys.extent(), saxpy2(2.0, &xs, &mut ys))?;
    let got = ys.to_vec()?;
    assert!(got
        .iter()
        .enumerate()
        .all(|(i, &v)| v == 2.0 * i as f32 + 1.0));
    Ok(())
}

#[test]
fn a_200k_iteration_loop_runs_to_the_end() -> Result<(), Error> {
    let cpu = Accelerator::cpu()?;
    let n = 200_000u32;
    let mut out = vec![0u32; 4];
    {
        let mut v = ArrayViewMut::new([4], &mut out)?;
        parallel_for_each_on(&cpu, v.extent(), long_loop(n, &mut v))?;
    }
    for (t, &got) in out.iter().enumerate() {
        let want = (0..n).fold(0u32, |acc, i| acc.wrapping_add(i ^ t as u32));
        assert_eq!(got, want, "thread {t}");
    }
    Ok(())
}

#[test]
fn out_of_bounds_reads_give_zero_and_an_error() -> Result<(), Error> {
    let cpu = Accelerator::cpu()?;
    let a = vec![1.0f32, 2.0, 3.0, 4.0];
    let mut out = vec![9.0f32; 4];
    let err = {
        let av = ArrayView::new([4], &a)?;
        let mut ov = ArrayViewMut::new([4], &mut out)?;
        parallel_for_each_on(&cpu, ov.extent(), shifted(&av, &mut ov)).unwrap_err()
    };
    match err {
        Error::IndexOutOfBounds {
            kernel,
            param,
            index,
            extent,
        } => {
            assert_eq!(kernel, "shifted");
            assert_eq!(param, "a");
            assert_eq!(index, vec![4]);
            assert_eq!(extent, vec![4]);
        }
        other => panic!("expected IndexOutOfBounds, got {other:?}"),
    }
    assert_eq!(out, [2.0, 3.0, 4.0, 0.0]);
    Ok(())
}

#[test]
fn arrays_move_between_cpu_and_vulkan() -> Result<(), Error> {
    let cpu = Accelerator::cpu()?;
    let Some(gpu) = Accelerator::all()?.into_iter().find(|a| !a.is_native()) else {
        return Ok(()); // no Vulkan device here: nothing to copy to
    };
    let data: Vec<i32> = (0..1000).collect();
    let on_cpu = Array::from_slice_on(&cpu, [1000], &data)?;
    let mut on_gpu = Array::<i32, 1>::new_on(&gpu, [1000])?;
    amp::copy(&on_cpu, &mut on_gpu)?;
    let mut back = Array::<i32, 1>::new_on(&cpu, [1000])?;
    amp::copy(&on_gpu, &mut back)?;
    assert_eq!(back.to_vec()?, data);
    // A CPU array cannot be used by a Vulkan launch, nor the reverse.
    let mut out = vec![0; 1000];
    let mut ov = ArrayViewMut::new([1000], &mut out)?;
    let err = parallel_for_each_on(
        &gpu,
        ov.extent(),
        add(&on_cpu.view(), &on_cpu.view(), &mut ov),
    )
    .unwrap_err();
    assert!(matches!(err, Error::AcceleratorMismatch { .. }), "{err:?}");
    Ok(())
}

#[test]
fn a_view_used_on_vulkan_then_on_the_cpu_stays_coherent() -> Result<(), Error> {
    let cpu = Accelerator::cpu()?;
    let Some(gpu) = Accelerator::all()?.into_iter().find(|a| !a.is_native()) else {
        return Ok(());
    };
    let a = vec![1i32; 64];
    let mut out = vec![0i32; 64];
    {
        let av = ArrayView::new([64], &a)?;
        let mut ov = ArrayViewMut::new([64], &mut out)?;
        parallel_for_each_on(&gpu, ov.extent(), add(&av, &av, &mut ov))?;
        // The CPU launch reads `ov`'s device result, not the stale host slice.
        let ov_read = ov.as_view();
        let mut out2 = vec![0i32; 64];
        let mut o2 = ArrayViewMut::new([64], &mut out2)?;
        parallel_for_each_on(&cpu, o2.extent(), add(&ov_read, &av, &mut o2))?;
        drop(o2);
        assert_eq!(out2, vec![3; 64]);
    }
    assert_eq!(out, vec![2; 64]);
    Ok(())
}

/// Adds 1 to every element of `data` on the default accelerator.
fn add_one_on_default(data: &[i32]) -> Result<Vec<i32>, Error> {
    let ones = vec![1; data.len()];
    let mut out = vec![0; data.len()];
    {
        let a = ArrayView::new([data.len()], data)?;
        let b = ArrayView::new([data.len()], &ones)?;
        let mut o = ArrayViewMut::new([data.len()], &mut out)?;
        parallel_for_each(o.extent(), add(&a, &b, &mut o))?;
    }
    Ok(out)
}

#[test]
fn amp_device_cpu_makes_it_the_default_with_amp_cpu_threads() -> Result<(), Error> {
    let name = "amp_device_cpu_makes_it_the_default_with_amp_cpu_threads";
    if !in_child(name) {
        run_child(
            name,
            &[("AMP_DEVICE", "cpu"), ("AMP_CPU_THREADS", "3")],
            &["AMP_DEVICE"],
        );
        return Ok(());
    }
    let acc = Accelerator::default()?;
    assert_eq!(acc.device_path(), "cpu");
    assert!(acc.name().contains("3 threads"), "{}", acc.name());
    let data: Vec<i32> = (0..50_000).collect();
    assert_eq!(
        add_one_on_default(&data)?,
        data.iter().map(|x| x + 1).collect::<Vec<_>>()
    );
    Ok(())
}

#[test]
fn a_bad_amp_cpu_threads_is_a_typed_error() -> Result<(), Error> {
    let name = "a_bad_amp_cpu_threads_is_a_typed_error";
    if !in_child(name) {
        run_child(name, &[("AMP_CPU_THREADS", "zero")], &["AMP_DEVICE"]);
        return Ok(());
    }
    match Accelerator::cpu() {
        Err(Error::InvalidSetting { setting, from, .. }) => {
            assert_eq!(setting, "AMP_CPU_THREADS");
            assert_eq!(from, amp::SettingSource::Environment);
        }
        other => panic!("expected InvalidSetting, got {other:?}"),
    }
    Ok(())
}

#[test]
fn a_bad_thread_count_from_config_names_the_method() -> Result<(), Error> {
    let name = "a_bad_thread_count_from_config_names_the_method";
    if !in_child(name) {
        run_child(name, &[], &["AMP_DEVICE", "AMP_CPU_THREADS"]);
        return Ok(());
    }
    amp::Config::new().cpu_threads(0).apply()?;
    match Accelerator::cpu() {
        Err(e @ Error::InvalidSetting { .. }) => {
            let Error::InvalidSetting { setting, from, .. } = &e else {
                unreachable!()
            };
            assert_eq!(*setting, "AMP_CPU_THREADS");
            assert_eq!(*from, amp::SettingSource::Config("cpu_threads"));
            assert!(e.to_string().contains("Config::cpu_threads"), "{e}");
        }
        other => panic!("expected InvalidSetting, got {other:?}"),
    }
    Ok(())
}

/// Every flag has one grammar, and a value outside it is an error when an accelerator is
/// made, whichever flag it is (this one is read only at the first launch).
#[test]
fn an_invalid_flag_is_an_error_when_an_accelerator_is_made() -> Result<(), Error> {
    let name = "an_invalid_flag_is_an_error_when_an_accelerator_is_made";
    if !in_child(name) {
        run_child(name, &[("AMP_SYNC_LAUNCHES", "maybe")], &["AMP_DEVICE"]);
        return Ok(());
    }
    match Accelerator::cpu() {
        Err(Error::InvalidSetting { setting, value, .. }) => {
            assert_eq!((setting, value.as_str()), ("AMP_SYNC_LAUNCHES", "maybe"));
        }
        other => panic!("expected InvalidSetting, got {other:?}"),
    }
    Ok(())
}

#[test]
fn without_a_vulkan_loader_the_default_is_native() -> Result<(), Error> {
    let name = "without_a_vulkan_loader_the_default_is_native";
    if !in_child(name) {
        run_child(
            name,
            &[("AMP_VULKAN_LIBRARY", "/nonexistent/libvulkan.so.1")],
            &["AMP_DEVICE"],
        );
        return Ok(());
    }
    let all = Accelerator::all()?;
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].device_path(), "cpu");
    assert!(Accelerator::default()?.is_native());
    let data: Vec<i32> = (0..10).collect();
    assert_eq!(add_one_on_default(&data)?, (1..11).collect::<Vec<_>>());
    // Textures live in host memory on the native accelerator.
    let t = amp::Texture::<f32, 2>::from_slice([2, 2], &[1.0, 2.0, 3.0, 4.0])?;
    assert!(t.accelerator().is_native());
    assert_eq!(t.to_vec()?, [1.0, 2.0, 3.0, 4.0]);
    Ok(())
}

#[kernel(amp)]
fn copy_at(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = a[idx];
}

#[test]
fn a_view_smaller_than_the_domain_keeps_its_checks() -> Result<(), Error> {
    // Views covering the domain run the variant without the checks of `a[idx]`; this one does
    // not cover it, so the checked variant runs and reports the first index past `a`.
    let cpu = Accelerator::cpu()?;
    let a = vec![1.0f32, 2.0, 3.0, 4.0];
    let mut out = vec![9.0f32; 8];
    let err = {
        let av = ArrayView::new([4], &a)?;
        let mut ov = ArrayViewMut::new([8], &mut out)?;
        parallel_for_each_on(&cpu, ov.extent(), copy_at(&av, &mut ov)).unwrap_err()
    };
    assert!(
        matches!(&err, Error::IndexOutOfBounds { param, extent, .. } if param == "a" && *extent == vec![4]),
        "{err:?}"
    );
    assert_eq!(out, [1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0]);
    // And covering views give the same values as on any device.
    let mut out2 = vec![0.0f32; 4];
    {
        let av = ArrayView::new([4], &a)?;
        let mut ov = ArrayViewMut::new([4], &mut out2)?;
        parallel_for_each_on(&cpu, ov.extent(), copy_at(&av, &mut ov))?;
    }
    assert_eq!(out2, a);
    Ok(())
}

#[kernel(amp)]
fn matmul_rows(idx: Index<2>, a: ArrayView<f32, 2>, b: ArrayView<f32, 2>, c: ArrayViewMut<f32, 2>) {
    let row = idx[0];
    let col = idx[1];
    let mut sum = 0.0;
    for k in 0..a.extent()[1] {
        sum += a[[row, k]] * b[[k, col]];
    }
    c[idx] = sum;
}

#[kernel(amp)]
fn window_sum(idx: Index<1>, radius: u32, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    let mut s = 0;
    for k in 0..2 * radius + 1 {
        s += a[[idx[0] + k as usize]];
    }
    out[idx] = s;
}

/// Kernels with a loop every thread runs the same way run in batches of neighbouring threads
/// with the loop outside the work-item loop; a row's remainder runs thread by thread. Both
/// give the thread-by-thread results, and a batch reports an out-of-bounds read like a thread.
#[test]
fn batched_kernels_match_plain_rust_on_every_shape() -> Result<(), Error> {
    let cpu = Accelerator::cpu()?;
    for (m, n, w) in [
        (7usize, 45usize, 13usize),
        (3, 20, 5),
        (2, 64, 3),
        (1, 1, 1),
    ] {
        let a: Vec<f32> = (0..m * w).map(|x| (x % 9) as f32 - 4.0).collect();
        let b: Vec<f32> = (0..w * n).map(|x| (x % 5) as f32 * 0.5).collect();
        let mut c = vec![f32::NAN; m * n];
        {
            let av = ArrayView::new([m, w], &a)?;
            let bv = ArrayView::new([w, n], &b)?;
            let mut cv = ArrayViewMut::new([m, n], &mut c)?;
            parallel_for_each_on(&cpu, cv.extent(), matmul_rows(&av, &bv, &mut cv))?;
            cv.synchronize()?;
        }
        for i in 0..m {
            for j in 0..n {
                let mut s = 0f32;
                for k in 0..w {
                    s += a[i * w + k] * b[k * n + j];
                }
                assert_eq!(c[i * n + j], s, "{m} x {n} x {w} at [{i}, {j}]");
            }
        }
    }
    // The window of the last threads reaches past the view: those reads give 0 and the
    // launch reports the first one.
    let a: Vec<i32> = (1..=100).collect();
    let mut out = vec![0; 100];
    let r = {
        let av = ArrayView::new([100], &a)?;
        let mut ov = ArrayViewMut::new([100], &mut out)?;
        let r = parallel_for_each_on(&cpu, ov.extent(), window_sum(2, &av, &mut ov))
            .and_then(|_| ov.synchronize());
        r
    };
    match r {
        Err(Error::IndexOutOfBounds { .. }) => {}
        other => panic!("expected an out-of-bounds error, got {other:?}"),
    }
    for (i, &x) in out.iter().enumerate() {
        let expect: i32 = (i..i + 5).filter(|&j| j < 100).map(|j| a[j]).sum();
        assert_eq!(x, expect, "window at {i}");
    }
    Ok(())
}

/// Conditions on `t.local[0]` against a tile-uniform bound in every spelling the native back
/// end splits its work-item loops at (`l < u`, `l >= u`, `u > l`, `u <= l`), inside a value,
/// an `if` statement, a loop and a compound condition, with bounds below, inside and past the
/// tile, and a Hillis-Steele scan whose bound changes between the loops.
#[kernel(amp)]
fn split_lanes(t: TiledIndex<64>, u: u32, a: &Array<u32, 1>, out: &mut Array<u32, 1>) {
    #[tile_static]
    let mut sh: [u32; 64];
    let l = t.local[0];
    let x = a[t.global];
    sh[l] = x;
    t.barrier.wait_with_tile_static_memory_fence();
    let mut off = 1;
    while off < 64 {
        let v = if l >= off { sh[l - off] } else { 0u32 };
        t.barrier.wait_with_tile_static_memory_fence();
        sh[l] += v;
        t.barrier.wait_with_tile_static_memory_fence();
        off *= 2;
    }
    // Each condition first in its region (a barrier between them), so each splits one.
    let uu = u as usize;
    let mut r = sh[l] * 3;
    if l < uu {
        r += 1;
    }
    t.barrier.wait();
    if uu > l && x % 2 == 0 {
        r += 10;
    }
    t.barrier.wait();
    for k in 0..3 {
        if uu <= l {
            r += 100 * k;
        }
    }
    t.barrier.wait();
    r += if l >= uu { 1000 } else { 2000 };
    out[t.global] = r;
}

#[test]
fn split_work_item_loops_match_plain_rust() -> Result<(), Error> {
    let cpu = Accelerator::cpu()?;
    let n = 64 * 5;
    let a: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 20)
        .collect();
    let xs = Array::from_slice_on(&cpu, [n], &a)?;
    for u in [0u32, 1, 5, 63, 64, 100, u32::MAX] {
        let mut out = Array::<u32, 1>::new_on(&cpu, [n])?;
        parallel_for_each_on(
            &cpu,
            Extent::new([n]).tile::<64>(),
            split_lanes(u, &xs, &mut out),
        )?;
        let mut want = Vec::new();
        for tile in a.chunks(64) {
            let mut s = 0u32;
            for (l, &x) in tile.iter().enumerate() {
                s = s.wrapping_add(x);
                let uu = u as usize;
                let mut r = s.wrapping_mul(3);
                r += u32::from(l < uu);
                r += if uu > l && x % 2 == 0 { 10 } else { 0 };
                r += if uu <= l { 300 } else { 0 };
                r += if l >= uu { 1000 } else { 2000 };
                want.push(r);
            }
        }
        assert_eq!(out.to_vec()?, want, "u = {u}");
    }
    Ok(())
}
