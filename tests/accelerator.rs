//! Accelerators and accelerator views (C++ AMP chapter 3) on the real device: properties,
//! default selection and its overrides, views (queues), launches from several host threads.
//!
//! Tests that need the default accelerator chosen differently run in a child process (the
//! default is chosen once per process): the test re-runs this binary with `AMP_TEST_CHILD` set
//! and only itself selected.

mod common;
use common::assert_validation_clean;
use common::{in_child, run_child};

use amp::prelude::*;
use amp::{AcceleratorView, DeviceType};

#[kernel(amp)]
fn affine(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>, k: i32, c: i32) {
    out[idx] = a[idx] * k + c;
}

#[kernel(amp)]
fn fill_index(idx: Index<1>, out: &mut Array<i32, 1>) {
    out[idx] = idx[0] as i32;
}

#[kernel(amp)]
fn add_scaled(idx: Index<1>, src: &Array<i32, 1>, dst: &mut Array<i32, 1>, k: i32) {
    dst[idx] = dst[idx] + src[idx] * k;
}

/// `out = a * k + c` on `target`, with fresh views; returns `out`.
fn affine_on<T: amp::LaunchTarget>(
    target: &T,
    a: &[i32],
    k: i32,
    c: i32,
) -> Result<Vec<i32>, Error> {
    let mut out = vec![0; a.len()];
    {
        let av = ArrayView::new([a.len()], a)?;
        let mut ov = ArrayViewMut::new([a.len()], &mut out)?;
        ov.discard_data();
        parallel_for_each_on(target, ov.extent(), affine(&av, &mut ov, k, c))?;
    }
    Ok(out)
}

fn affine_cpu(a: &[i32], k: i32, c: i32) -> Vec<i32> {
    a.iter()
        .map(|&x| x.wrapping_mul(k).wrapping_add(c))
        .collect()
}

#[test]
fn properties_describe_the_device() -> Result<(), Error> {
    let acc = Accelerator::default()?;
    assert!(!acc.name().is_empty());
    assert!(
        acc.description().starts_with(acc.name()),
        "{}",
        acc.description()
    );
    assert_eq!(acc.is_emulated(), acc.device_type() == DeviceType::Cpu);
    if acc.is_native() {
        assert_eq!(acc.device_path(), "cpu");
        assert_eq!(acc.dedicated_memory(), 0);
        assert!(acc.supports_cpu_shared_memory() && acc.supports_double_precision());
        assert_eq!(acc.limits().max_tile_threads(), 1024);
        assert_validation_clean();
        return Ok(());
    }
    assert!(acc.dedicated_memory() > 0);
    let limits = acc.limits();
    // Vulkan's required minimums.
    assert!(limits.max_tile_threads() >= 128);
    assert!(limits.max_tile_static_bytes() >= 16384);
    assert!(limits.max_memory_allocation_size >= 1 << 30);
    assert_eq!(limits.max_tile_threads(), limits.max_threads_per_workgroup);
    assert_eq!(
        limits.max_tile_static_bytes(),
        limits.max_shared_memory_bytes
    );
    if acc.name().contains("llvmpipe") {
        // Mesa's lavapipe: a CPU device whose only memory is device-local and host-coherent.
        assert!(acc.is_emulated());
        // Unless it simulates a discrete GPU, which shares nothing.
        let simulated = std::env::var("AMP_SIMULATE_DISCRETE").is_ok_and(|v| v == "1");
        assert_eq!(acc.supports_cpu_shared_memory(), !simulated);
        assert_eq!(
            acc.description().contains("simulating a discrete GPU"),
            simulated
        );
        assert!(acc.supports_double_precision());
        assert_eq!(limits.max_tile_threads(), 1024);
        assert_eq!(limits.max_tile_static_bytes(), 32768);
        assert!(
            acc.description().contains("CPU device"),
            "{}",
            acc.description()
        );
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn device_path_finds_the_same_accelerator() -> Result<(), Error> {
    let all = Accelerator::all()?;
    assert!(!all.is_empty());
    for acc in &all {
        if acc.is_native() {
            assert_eq!(acc.device_path(), "cpu");
            assert_eq!(&Accelerator::from_path("cpu")?, acc);
            continue;
        }
        assert!(
            acc.device_path().starts_with("vulkan:"),
            "{}",
            acc.device_path()
        );
        assert!(
            acc.device_path().ends_with(acc.name()),
            "{}",
            acc.device_path()
        );
        assert_eq!(&Accelerator::from_path(acc.device_path())?, acc);
    }
    let paths: std::collections::HashSet<_> = all.iter().map(|a| a.device_path()).collect();
    assert_eq!(paths.len(), all.len(), "device paths are unique");
    match Accelerator::from_path("vulkan:99:no such device") {
        Err(Error::DeviceNotFound { name, available }) => {
            assert_eq!(name, "vulkan:99:no such device");
            assert!(available.contains(all[0].device_path()), "{available}");
        }
        other => panic!("expected DeviceNotFound, got {other:?}"),
    }
    assert_validation_clean();
    Ok(())
}

/// `Accelerator::set_default` before first use picks the default; afterwards it only agrees
/// with the existing choice.
#[test]
fn set_default_overrides_before_first_use() -> Result<(), Error> {
    let name = "set_default_overrides_before_first_use";
    if !in_child(name) {
        run_child(name, &[("AMP_DEVICE", "no-such-device-xyz")], &[]);
        return Ok(());
    }
    // The environment names no device, but the API choice comes first and wins.
    let all = Accelerator::all()?;
    let chosen = all.last().expect("a device").clone();
    assert!(Accelerator::set_default(&chosen));
    assert_eq!(Accelerator::default()?, chosen);
    assert!(
        Accelerator::set_default(&chosen),
        "setting the same default again agrees"
    );
    let data: Vec<i32> = (0..100).collect();
    assert_eq!(affine_on(&chosen, &data, 3, 1)?, affine_cpu(&data, 3, 1));
    assert_validation_clean();
    Ok(())
}

/// `AMP_DEVICE` also accepts a device path.
#[test]
fn amp_device_accepts_a_device_path() -> Result<(), Error> {
    let name = "amp_device_accepts_a_device_path";
    if !in_child(name) {
        let path = Accelerator::all()?[0].device_path().to_owned();
        run_child(
            name,
            &[("AMP_DEVICE", &path), ("AMP_TEST_EXPECT", &path)],
            &[],
        );
        return Ok(());
    }
    let want = std::env::var("AMP_TEST_EXPECT").unwrap();
    assert_eq!(Accelerator::default()?.device_path(), want);
    Ok(())
}

#[test]
fn set_default_after_first_use_is_refused_when_different() -> Result<(), Error> {
    let name = "set_default_after_first_use_is_refused_when_different";
    if !in_child(name) {
        run_child(name, &[], &[]);
        return Ok(());
    }
    let acc = Accelerator::default()?;
    assert!(Accelerator::set_default(&acc));
    // A second logical device is only available where there is a second physical one; the
    // refusal path is exercised with any accelerator that is not the default.
    if let Some(other) = Accelerator::all()?.into_iter().find(|a| *a != acc) {
        assert!(!Accelerator::set_default(&other));
        assert_eq!(Accelerator::default()?, acc);
    }
    Ok(())
}

/// The submissions a created view makes for `launches` launches of host data: exactly that
/// many where the device uses host memory in place; where the data travels through staging
/// buffers (a discrete GPU, simulated or real, or staging forced), up to one more per launch
/// for its upload.
fn submissions_of(acc: &Accelerator, launches: u64) -> std::ops::RangeInclusive<u64> {
    let staged = !acc.supports_host_memory_import()
        || !acc.supports_cpu_shared_memory()
        || std::env::var("AMP_FORCE_STAGING").is_ok_and(|v| v == "1");
    launches..=if staged { 2 * launches } else { launches }
}

#[test]
fn default_view_and_created_views() -> Result<(), Error> {
    let acc = Accelerator::default()?;
    let default = acc.default_view();
    assert!(default.is_default());
    assert_eq!(default, acc.default_view());
    assert_eq!(default.accelerator(), &acc);
    let v1 = acc.create_view()?;
    let v2 = acc.create_view()?;
    assert!(!v1.is_default());
    assert_ne!(v1, v2);
    assert_ne!(v1, default);
    assert_eq!(v1.clone(), v1);

    let data: Vec<i32> = (0..1000).map(|i| i * 7 - 300).collect();
    assert_eq!(v1.submission_count(), 0);
    assert_eq!(affine_on(&v1, &data, 2, 5)?, affine_cpu(&data, 2, 5));
    assert_eq!(affine_on(&v2, &data, -3, 1)?, affine_cpu(&data, -3, 1));
    assert_eq!(affine_on(&v1, &data, 4, 0)?, affine_cpu(&data, 4, 0));
    // Copies go through the default view: a created view submits its launches. Where host
    // data travels through staging buffers (a discrete GPU), the upload recorded ahead of each
    // launch on its own view is a submission of its own when the view was idle, or goes in the
    // launch's batch when not.
    assert!(submissions_of(&acc, 2).contains(&v1.submission_count()));
    assert!(submissions_of(&acc, 1).contains(&v2.submission_count()));
    v1.flush()?;
    v1.wait()?;
    v2.wait()?;
    assert_validation_clean();
    Ok(())
}

/// Launches on one view run in order: each step reads what the previous one wrote.
#[test]
fn launches_on_one_view_run_in_order() -> Result<(), Error> {
    let acc = Accelerator::default()?;
    let view = acc.create_view()?;
    let n = 4096;
    let mut base = Array::<i32, 1>::new_on(&acc, [n])?;
    let mut acc_sum = Array::<i32, 1>::new_on(&acc, [n])?;
    parallel_for_each_on(&view, base.extent(), fill_index(&mut base))?;
    for k in 1..=10 {
        parallel_for_each_on(&view, acc_sum.extent(), add_scaled(&base, &mut acc_sum, k))?;
    }
    view.wait()?;
    // sum over k = 1..=10 of i * k = 55 i
    let want: Vec<i32> = (0..n as i32).map(|i| 55 * i).collect();
    assert_eq!(acc_sum.to_vec()?, want);
    // Batched: the eleven launches take at most eleven submissions (usually one to three).
    assert!((1..=11).contains(&view.submission_count()));
    assert_validation_clean();
    Ok(())
}

/// Arrays on an accelerator can be used through any of its views, interleaved.
#[test]
fn two_views_share_arrays() -> Result<(), Error> {
    let acc = Accelerator::default()?;
    let (v1, v2) = (acc.create_view()?, acc.create_view()?);
    let n = 1000;
    let mut base = Array::<i32, 1>::new_on(&acc, [n])?;
    let mut sum = Array::<i32, 1>::new_on(&acc, [n])?;
    parallel_for_each_on(&v1, base.extent(), fill_index(&mut base))?;
    parallel_for_each_on(&v2, sum.extent(), add_scaled(&base, &mut sum, 2))?;
    parallel_for_each_on(&v1, sum.extent(), add_scaled(&base, &mut sum, 3))?;
    parallel_for_each_on(&acc, sum.extent(), add_scaled(&base, &mut sum, 4))?;
    let want: Vec<i32> = (0..n as i32).map(|i| 9 * i).collect();
    assert_eq!(sum.to_vec()?, want);
    assert_validation_clean();
    Ok(())
}

fn thread_data(t: usize, n: usize) -> Vec<i32> {
    (0..n).map(|i| (i * 31 + t * 1000) as i32 - 5000).collect()
}

/// Eight host threads launch on the default accelerator at once, each checking its results.
#[test]
fn eight_threads_launch_on_the_default_accelerator() -> Result<(), Error> {
    let launches: usize = 25;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                s.spawn(move || -> Result<(), Error> {
                    let data = thread_data(t, 513 + t * 97);
                    for i in 0..launches {
                        let (k, c) = (t as i32 + 2, i as i32);
                        let out = affine_on(&Accelerator::default()?, &data, k, c)?;
                        assert_eq!(out, affine_cpu(&data, k, c), "thread {t}, launch {i}");
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().expect("thread panicked"))
    })?;
    assert_validation_clean();
    Ok(())
}

/// Eight host threads, each with its own view, plus shared views used from several threads:
/// every launch sees its own data.
#[test]
fn eight_threads_on_their_own_and_shared_views() -> Result<(), Error> {
    let acc = Accelerator::default()?;
    let shared: Vec<AcceleratorView> = (0..2)
        .map(|_| acc.create_view())
        .collect::<Result<_, _>>()?;
    let launches: usize = 20;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let acc = acc.clone();
                let shared = shared[t % 2].clone();
                s.spawn(move || -> Result<(), Error> {
                    let own = acc.create_view()?;
                    let data = thread_data(t, 300 + t * 61);
                    for i in 0..launches {
                        let view = if i % 2 == 0 { &own } else { &shared };
                        let (k, c) = (-(t as i32) - 1, 3 * i as i32);
                        let out = affine_on(view, &data, k, c)?;
                        assert_eq!(out, affine_cpu(&data, k, c), "thread {t}, launch {i}");
                    }
                    own.wait()?;
                    // One submission per launch, up to two where host data is staged (as
                    // above).
                    let own_launches = launches as u64 / 2;
                    assert!(submissions_of(&acc, own_launches).contains(&own.submission_count()));
                    // (Each launch of host data waits for its batch; on a shared view, one
                    // batch may hold another thread's launch too.)
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().expect("thread panicked"))
    })?;
    for view in &shared {
        view.wait()?;
        // Four threads used each shared view for half of their launches: one submission per
        // launch at most (a batch may carry launches of two threads), with uploads up to two.
        let count = view.submission_count();
        let most = *submissions_of(&acc, 4 * launches as u64 / 2).end();
        assert!((1..=most).contains(&count), "{count}");
    }
    assert_validation_clean();
    Ok(())
}

/// Every accelerator in the system runs work from its own thread at the same time.
#[test]
fn every_accelerator_runs_from_its_own_thread() -> Result<(), Error> {
    let all = Accelerator::all()?;
    std::thread::scope(|s| {
        let handles: Vec<_> = all
            .iter()
            .enumerate()
            .map(|(t, acc)| {
                s.spawn(move || -> Result<(), Error> {
                    let data = thread_data(t, 2048);
                    let out = affine_on(acc, &data, 5, -2)?;
                    assert_eq!(out, affine_cpu(&data, 5, -2), "{}", acc.name());
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().expect("thread panicked"))
    })?;
    assert_validation_clean();
    Ok(())
}
