//! Asynchronous launches: a launch over arrays records and returns; host access,
//! `wait` and `flush` are the sync points; chains of dependent launches, launches from several
//! threads and views, dropping arrays with work in flight, and device errors that surface
//! later (by the view's `wait` or the buffers' next host access, once).

use std::time::{Duration, Instant};

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

#[kernel(amp, unchecked)]
fn add_one(idx: Index<1>, a: &Array<u32, 1>, b: &mut Array<u32, 1>) {
    b[idx] = a[idx] + 1;
}

#[kernel(amp, unchecked)]
fn bump(idx: Index<1>, step: u32, a: &mut Array<u32, 1>) {
    a[idx] += step;
}

#[kernel(amp, unchecked)]
fn bump_view(idx: Index<1>, step: u32, a: ArrayViewMut<u32, 1>) {
    a[idx] += step;
}

/// Writes one past the end of `a` from the last thread (a checked kernel).
#[kernel(amp, allow(write_conflict))]
fn write_past_end(idx: Index<1>, a: &mut Array<u32, 1>) {
    let n = a.extent()[0];
    if idx[0] == n - 1 {
        a[n] = 7;
    }
    a[idx] = 5;
}

/// `steps` steps of a generator per thread ([`common::spin_step`]): a loop the compiler cannot
/// shorten (lavapipe ends a loop after 65,535 iterations, so `steps` stays below that).
#[kernel(amp, unchecked)]
fn spin(idx: Index<1>, out: &mut Array<u32, 1>, steps: u32) {
    let mut x = idx[0] as u32;
    let mut k = 0u32;
    while k < steps {
        x = x * 1_664_525 + 1_013_904_223;
        x ^= x >> 15;
        k += 1;
    }
    out[idx] = x;
}

#[test]
fn a_long_launch_returns_long_before_it_finishes() -> Result<(), amp::Error> {
    common::deferred_launches_only!();
    const THREADS: usize = 1 << 14;
    const STEPS: u32 = 30_000;
    let acc = Accelerator::default()?;
    let view = acc.create_view()?;
    let mut out = Array::<u32, 1>::new_on(&acc, [THREADS])?;
    // Warm up: the pipeline is built by the first launch.
    // SAFETY: one thread per element of the array or view it writes.
    parallel_for_each_on(&view, out.extent(), unsafe { spin(&mut out, 1) })?;
    view.wait()?;
    // Enough threads for a launch of 100 ms or more on this device (a GPU needs many more
    // than lavapipe).
    let threads = common::calibrated_threads(
        THREADS,
        common::max_long_launch_threads(&acc),
        Duration::from_millis(100),
        |threads| {
            let mut a = Array::<u32, 1>::new_on(&acc, [threads])?;
            let t = Instant::now();
            // SAFETY: one thread per element of the array or view it writes.
            parallel_for_each_on(&view, a.extent(), unsafe { spin(&mut a, STEPS) })?;
            view.wait()?;
            Ok(t.elapsed())
        },
    )?;
    let mut out = Array::<u32, 1>::new_on(&acc, [threads])?;

    let start = Instant::now();
    // SAFETY: one thread per element of the array or view it writes.
    parallel_for_each_on(&view, out.extent(), unsafe { spin(&mut out, STEPS) })?;
    let launched = start.elapsed();
    view.wait()?;
    let finished = start.elapsed();
    common::assert_spun(&out.to_vec()?, STEPS);
    // The kernel runs for 100 ms or more (half a second on lavapipe); the launch only records it. A
    // quarter is a margin no scheduling hiccup of a loaded machine comes near (the launch
    // does no device work at all, so it cannot grow with the kernel's run time).
    assert!(
        launched * 4 < finished && finished > Duration::from_millis(20),
        "launch {launched:?}, kernel {finished:?}"
    );
    assert_validation_clean();
    Ok(())
}

#[test]
fn a_hundred_ping_pong_launches_then_one_read() -> Result<(), amp::Error> {
    let n = 1000;
    let mut a = Array::from_slice([n], &vec![0u32; n])?;
    let mut b = Array::<u32, 1>::new([n])?;
    for i in 0..100 {
        if i % 2 == 0 {
            // SAFETY: one thread per element of the array or view it writes.
            parallel_for_each(a.extent(), unsafe { add_one(&a, &mut b) })?;
        } else {
            // SAFETY: one thread per element of the array or view it writes.
            parallel_for_each(a.extent(), unsafe { add_one(&b, &mut a) })?;
        }
    }
    // The 100th launch wrote `a`.
    assert_eq!(a.to_vec()?, vec![100u32; n]);
    assert_eq!(b.to_vec()?, vec![99u32; n]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn two_thousand_small_launches_then_one_read() -> Result<(), amp::Error> {
    common::deferred_launches_only!();
    let acc = Accelerator::default()?;
    let view = acc.create_view()?;
    let mut a = Array::from_slice_on(&acc, [64], &[1u32; 64])?;
    for i in 0..2000u32 {
        // SAFETY: one thread per element of the array or view it writes.
        parallel_for_each_on(&view, a.extent(), unsafe { bump(i % 3, &mut a) })?;
    }
    let want = 1 + (0..2000u32).map(|i| i % 3).sum::<u32>();
    assert_eq!(a.to_vec()?, vec![want; 64]);
    // Batched: far fewer submissions than launches (native launches each run at once).
    assert!(
        acc.is_native() || view.submission_count() < 200,
        "{} submissions",
        view.submission_count()
    );
    view.wait()?;
    assert_validation_clean();
    Ok(())
}

#[test]
fn an_out_of_bounds_write_is_returned_by_the_views_wait_once() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let view = acc.create_view()?;
    let mut a = Array::<u32, 1>::new_on(&acc, [16])?;
    let launched = parallel_for_each_on(&view, a.extent(), write_past_end(&mut a));
    let waited = view.wait();
    let error = match (launched, waited) {
        (Err(e), Ok(())) | (Ok(()), Err(e)) => e,
        other => panic!("expected the error exactly once, got {other:?}"),
    };
    match error {
        Error::IndexOutOfBounds {
            kernel,
            param,
            index,
            extent,
        } => assert_eq!(
            (kernel.as_str(), param.as_str(), index, extent),
            ("write_past_end", "a", vec![16], vec![16])
        ),
        other => panic!("expected IndexOutOfBounds, got {other:?}"),
    }
    // Reported once: neither the next wait nor reading the array reports it again, and the
    // in-bounds writes happened.
    view.wait()?;
    assert_eq!(a.to_vec()?, vec![5u32; 16]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn an_out_of_bounds_write_is_returned_by_reading_the_array() -> Result<(), amp::Error> {
    common::deferred_launches_only!();
    let acc = Accelerator::default()?;
    let view = acc.create_view()?;
    let mut a = Array::<u32, 1>::new_on(&acc, [8])?;
    parallel_for_each_on(&view, a.extent(), write_past_end(&mut a))?;
    // The batch is not even submitted yet: reading submits it, waits, and reports the error.
    assert!(matches!(a.to_vec(), Err(Error::IndexOutOfBounds { .. })));
    assert_eq!(a.to_vec()?, vec![5u32; 8]);
    // It was reported; the view's wait does not report it again.
    view.wait()?;
    assert_validation_clean();
    Ok(())
}

#[test]
fn dropping_an_array_right_after_launching_on_it_is_safe() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let view = acc.create_view()?;
    for round in 0..20u32 {
        let mut a = Array::from_slice_on(&acc, [4096], &vec![round; 4096])?;
        // SAFETY: one thread per element of the array or view it writes.
        parallel_for_each_on(&view, a.extent(), unsafe { spin(&mut a, 200) })?;
        // SAFETY: one thread per element of the array or view it writes.
        parallel_for_each_on(&view, a.extent(), unsafe { bump(1, &mut a) })?;
        view.flush()?;
        drop(a);
        // A new array may get the freed memory only once the work is done.
        let mut b = Array::from_slice_on(&acc, [4096], &vec![1u32; 4096])?;
        // SAFETY: one thread per element of the array or view it writes.
        parallel_for_each_on(&view, b.extent(), unsafe { bump(round, &mut b) })?;
        assert_eq!(b.to_vec()?, vec![1 + round; 4096]);
    }
    view.wait()?;
    // The view's work holds nothing once it is done: its arrays are freed.
    let mut a = Array::<u32, 1>::new_on(&acc, [16])?;
    // SAFETY: one thread per element of the array or view it writes.
    parallel_for_each_on(&view, a.extent(), unsafe { bump(2, &mut a) })?;
    drop(a);
    drop(view);
    assert_validation_clean();
    Ok(())
}

#[test]
fn repeated_launches_on_host_views_are_correct_after_synchronize() -> Result<(), amp::Error> {
    let mut data = vec![0u32; 300];
    let mut v = ArrayViewMut::new([300], &mut data)?;
    for round in 1..=50u32 {
        // SAFETY: one thread per element of the array or view it writes.
        parallel_for_each(v.extent(), unsafe { bump_view(round, &mut v) })?;
        v.synchronize()?;
        let want = round * (round + 1) / 2;
        assert_eq!(v.data()?, &vec![want; 300][..], "round {round}");
    }
    drop(v);
    assert_eq!(data, vec![50 * 51 / 2; 300]);
    // An unaligned slice (copied, not imported: asynchronous) too.
    let mut data = vec![0u32; 301];
    let mut v = ArrayViewMut::new([300], &mut data[1..])?;
    for round in 1..=20u32 {
        // SAFETY: one thread per element of the array or view it writes.
        parallel_for_each(v.extent(), unsafe { bump_view(2, &mut v) })?;
        // SAFETY: one thread per element of the array or view it writes.
        parallel_for_each(v.extent(), unsafe { bump_view(1, &mut v) })?;
        v.synchronize()?;
        assert_eq!(v.data()?, &vec![3 * round; 300][..], "round {round}");
    }
    drop(v);
    assert_eq!(&data[1..], &vec![60u32; 300][..]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn flush_submits_and_wait_finishes() -> Result<(), amp::Error> {
    common::deferred_launches_only!();
    let acc = Accelerator::default()?;
    let view = acc.create_view()?;
    let mut a = Array::<u32, 1>::new_on(&acc, [32])?;
    // The first launch on an idle view starts at once; the second is recorded behind it.
    // SAFETY: one thread per element of the array or view it writes.
    parallel_for_each_on(&view, a.extent(), unsafe { bump(1, &mut a) })?;
    assert_eq!(view.submission_count(), 1);
    // SAFETY: one thread per element of the array or view it writes.
    parallel_for_each_on(&view, a.extent(), unsafe { bump(3, &mut a) })?;
    let before = view.submission_count();
    // (Unless the machine paused long enough for the view to count as idle again.)
    let recorded = before == 1;
    view.flush()?;
    assert_eq!(view.submission_count(), before + u64::from(recorded));
    // Nothing left to submit.
    view.flush()?;
    assert_eq!(view.submission_count(), before + u64::from(recorded));
    view.wait()?;
    assert_eq!(a.to_vec()?, vec![4u32; 32]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn work_on_two_views_is_ordered_by_the_buffers_it_touches() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let (v1, v2) = (acc.create_view()?, acc.create_view()?);
    let mut a = Array::from_slice_on(&acc, [256], &[0u32; 256])?;
    let mut b = Array::<u32, 1>::new_on(&acc, [256])?;
    for i in 0..20 {
        // Writes `a` on one view, reads it on the other.
        // SAFETY: one thread per element of the array or view it writes.
        parallel_for_each_on(&v1, a.extent(), unsafe { bump(1, &mut a) })?;
        // SAFETY: one thread per element of the array or view it writes.
        parallel_for_each_on(&v2, a.extent(), unsafe { add_one(&a, &mut b) })?;
        // SAFETY: one thread per element of the array or view it writes.
        parallel_for_each_on(&v1, a.extent(), unsafe { add_one(&b, &mut a) })?;
        let _ = i;
    }
    // Each round: a += 1; b = a + 1; a = b + 1, so a grows by 3 per round.
    assert_eq!(a.to_vec()?, vec![60u32; 256]);
    assert_eq!(b.to_vec()?, vec![59u32; 256]);
    v1.wait()?;
    v2.wait()?;
    assert_validation_clean();
    Ok(())
}

#[test]
fn threads_launch_on_shared_and_own_views() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let shared_view = acc.create_view()?;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4u32)
            .map(|t| {
                let (acc, shared_view) = (acc.clone(), shared_view.clone());
                s.spawn(move || -> Result<(), amp::Error> {
                    let own = acc.create_view()?;
                    let mut a = Array::from_slice_on(&acc, [128], &[t; 128])?;
                    for i in 0..300u32 {
                        let view = if i % 2 == 0 { &own } else { &shared_view };
                        // SAFETY: one thread per element of the array or view it writes.
                        parallel_for_each_on(view, a.extent(), unsafe { bump(1, &mut a) })?;
                    }
                    assert_eq!(a.to_vec()?, vec![t + 300; 128]);
                    own.wait()
                })
            })
            .collect();
        for h in handles {
            h.join().expect("no panic")?;
        }
        Ok::<(), amp::Error>(())
    })?;
    shared_view.wait()?;
    assert_validation_clean();
    Ok(())
}

#[test]
fn copies_see_pending_launches_and_copy_async_completes() -> Result<(), amp::Error> {
    let mut a = Array::from_slice([64], &[1u32; 64])?;
    let mut b = Array::<u32, 1>::new([64])?;
    for _ in 0..10 {
        // SAFETY: one thread per element of the array or view it writes.
        parallel_for_each(a.extent(), unsafe { bump(2, &mut a) })?;
    }
    copy(&a, &mut b)?;
    assert_eq!(b.to_vec()?, vec![21u32; 64]);
    // SAFETY: one thread per element of the array or view it writes.
    parallel_for_each(a.extent(), unsafe { bump(1, &mut a) })?;
    copy_async(&a, &mut b)?.wait()?;
    assert_eq!(b.to_vec()?, vec![22u32; 64]);
    // SAFETY: one thread per element of the array or view it writes.
    parallel_for_each(a.extent(), unsafe { bump(1, &mut a) })?;
    let mut host = vec![0u32; 64];
    copy_async(&a, &mut host[..])?.wait()?;
    assert_eq!(host, vec![23u32; 64]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn dropping_a_view_with_work_in_flight_finishes_it() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let mut a = Array::<u32, 1>::new_on(&acc, [512])?;
    {
        let view = acc.create_view()?;
        for _ in 0..30 {
            // SAFETY: one thread per element of the array or view it writes.
            parallel_for_each_on(&view, a.extent(), unsafe { bump(1, &mut a) })?;
        }
    }
    assert_eq!(a.to_vec()?, vec![30u32; 512]);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn copy_in(idx: Index<1>, src: ArrayView<u32, 1>, dst: &mut Array<u32, 1>) {
    dst[idx] = src[idx];
}

/// A view's data uploaded for a launch on a created accelerator view (through staging buffers
/// where the device does not use host memory in place) is copied on that view's queue, ahead
/// of the launch; a launch on the default view that reads the result comes after both.
#[test]
fn an_upload_for_a_launch_on_a_created_view_precedes_it() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let view = acc.create_view()?;
    for n in [1usize, 4099, 1 << 20] {
        let src: Vec<u32> = (0..n as u32).map(|i| i ^ 0x5a5a).collect();
        let mut dst = Array::<u32, 1>::new_on(&acc, [n])?;
        {
            let sv = ArrayView::new([n], &src)?;
            parallel_for_each_on(&view, dst.extent(), copy_in(&sv, &mut dst))?;
        }
        // SAFETY: one thread per element of the array or view it writes.
        parallel_for_each(dst.extent(), unsafe { bump(1, &mut dst) })?;
        let expected: Vec<u32> = src.iter().map(|x| x + 1).collect();
        assert!(dst.to_vec()? == expected, "{n} elements");
    }
    view.wait()?;
    assert_validation_clean();
    Ok(())
}
