//! Launch timeouts: a wait for work that runs longer than its view's timeout (the view's
//! `wait`, reading an array) returns `Error::Timeout` instead of blocking; the work keeps
//! running, a later wait sees its real results, dropping its buffers is safe, and the view
//! keeps working afterwards. A launch of host data in place reports the timeout too, but only
//! once the device is done with the caller's memory.
//!
//! Its own test binary: the long kernels would slow unrelated tests down.

mod common;
use common::assert_validation_clean;
use std::time::{Duration, Instant};

use amp::prelude::*;

/// Steps a generator `steps` times per thread ([`common::spin_step`]): a loop the compiler
/// cannot shorten, whose length the push constants set.
///
/// lavapipe (llvmpipe) ends a loop after 65535 iterations (even nested ones, in total), so
/// a long launch needs many threads rather than long loops.
#[kernel(amp)]
fn spin(idx: Index<1>, out: ArrayViewMut<u32, 1>, steps: u32) {
    let mut x = idx[0] as u32;
    let mut k = 0u32;
    while k < steps {
        x = x * 1_664_525 + 1_013_904_223;
        x ^= x >> 15;
        k += 1;
    }
    out[idx] = x;
}

/// Threads of the long launch at least and its steps per thread (half a billion steps in all):
/// about half a second on lavapipe, far past the 1 ms timeout. Faster devices get more threads
/// ([`common::calibrated_threads`]), so the launch outlasts the timeout everywhere.
const THREADS: usize = 1 << 14;
const STEPS: u32 = 30_000;

/// Threads for a launch of `spin` that runs at least 100 ms on `view` (with its 60 s timeout).
fn long_launch_threads(acc: &Accelerator, view: &AcceleratorView) -> Result<usize, Error> {
    let mut warm = Array::<u32, 1>::new_on(acc, [64])?;
    parallel_for_each_on(view, warm.extent(), spin(&mut warm.view_mut(), 1))?;
    view.wait()?;
    common::calibrated_threads(
        THREADS,
        common::max_long_launch_threads(acc),
        Duration::from_millis(100),
        |threads| {
            let mut a = Array::<u32, 1>::new_on(acc, [threads])?;
            let t = Instant::now();
            parallel_for_each_on(view, a.extent(), spin(&mut a.view_mut(), STEPS))?;
            view.wait()?;
            Ok(t.elapsed())
        },
    )
}

#[test]
fn a_launch_past_its_timeout_returns_timeout_and_its_results_arrive() -> Result<(), Error> {
    let acc = Accelerator::default()?;
    if acc.is_native() {
        // Native launches finish before they return: there is no device work to time out.
        eprintln!("Vulkan only: not run on the native CPU accelerator");
        return Ok(());
    }
    let view = acc.create_view()?;
    assert_eq!(view.timeout(), Duration::from_secs(60));
    let threads = long_launch_threads(&acc, &view)?;
    let submissions = view.submission_count();
    view.set_timeout(Duration::from_millis(1));
    assert_eq!(view.timeout(), Duration::from_millis(1));

    let mut out = vec![0u32; threads];
    let started = Instant::now();
    {
        let mut ov = ArrayViewMut::new([threads], &mut out)?;
        let result = parallel_for_each_on(&view, ov.extent(), spin(&mut ov, STEPS));
        assert!(
            matches!(result, Err(Error::Timeout { timeout_ms: 1 })),
            "{result:?}"
        );
        let message = result.unwrap_err().to_string();
        assert!(message.contains("did not finish within 1 ms"), "{message}");
        // A launch that uses host memory in place returns only once the device is done with
        // it (the timeout is reported all the same): nothing is left running.
        assert!(started.elapsed() >= Duration::from_millis(1));
        view.wait()?;
    }
    let elapsed = started.elapsed();
    common::assert_spun(&out, STEPS);
    eprintln!("the long launch finished after {elapsed:?}");

    // The view goes on with fresh command objects.
    view.set_timeout(Duration::from_secs(60));
    view.wait()?;
    let mut out = vec![0u32; THREADS];
    {
        let mut ov = ArrayViewMut::new([THREADS], &mut out)?;
        parallel_for_each_on(&view, ov.extent(), spin(&mut ov, 10))?;
    }
    common::assert_spun(&out, 10);
    assert_eq!(view.submission_count() - submissions, 2);

    // Arrays: the launch is asynchronous, so it returns at once; waiting for it (the view's
    // `wait`, or reading the array) times out while it runs, and later waits wait again.
    view.set_timeout(Duration::from_millis(1));
    let mut array = Array::new_on(&acc, [threads])?;
    parallel_for_each_on(&view, array.extent(), spin(&mut array.view_mut(), STEPS))?;
    assert!(matches!(view.wait(), Err(Error::Timeout { timeout_ms: 1 })));
    assert!(matches!(array.to_vec(), Err(Error::Timeout { .. })));
    view.set_timeout(Duration::from_secs(60));
    common::assert_spun(&array.to_vec()?, STEPS);
    view.wait()?;

    // Dropping an array whose launch timed out is safe: the batch holds its memory.
    view.set_timeout(Duration::from_millis(1));
    let mut array = Array::new_on(&acc, [threads])?;
    parallel_for_each_on(&view, array.extent(), spin(&mut array.view_mut(), STEPS))?;
    assert!(matches!(view.wait(), Err(Error::Timeout { .. })));
    drop(array);
    view.set_timeout(Duration::from_secs(60));
    view.wait()?;
    assert_validation_clean();
    Ok(())
}
