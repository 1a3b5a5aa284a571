//! Kernel timing: `AcceleratorView::set_profiling` and `take_kernel_times` give one time per
//! launch, in order, named after the kernel, for amp launches and `RawKernel` dispatches, on
//! Vulkan (device timestamps) and on the native CPU accelerator (wall clock); nothing when off.
//! Each time's start lies on the host's clock: after the program asked for the launch, before
//! its time was taken, and no launch of a view starts before the previous one ended.

use std::sync::Mutex;

use crate::common;
use amp::prelude::*;
use amp::{KernelTime, RawKernel};
use common::assert_validation_clean;

/// The tests that turn timing on share the process's query-pool count and the default view:
/// they run one at a time.
static TIMING: Mutex<()> = Mutex::new(());

fn timing() -> std::sync::MutexGuard<'static, ()> {
    TIMING.lock().unwrap_or_else(|e| e.into_inner())
}

#[kernel(amp, unchecked)]
fn prof_add(idx: Index<1>, step: u32, a: &mut Array<u32, 1>) {
    a[idx] += step;
}

#[kernel(amp)]
fn prof_square(idx: Index<1>, a: &Array<u32, 1>, b: &mut Array<u32, 1>) {
    b[idx] = a[idx] * a[idx];
}

fn assert_sane(times: &[KernelTime]) {
    for t in times {
        assert!(
            t.seconds.is_finite() && t.seconds > 0.0,
            "a kernel time must be positive and finite: {t:?}"
        );
        assert!(t.seconds < 60.0, "{t:?}");
    }
}

fn names(times: &[KernelTime]) -> Vec<&str> {
    times.iter().map(|t| t.kernel.as_str()).collect()
}

/// Times and names of launches on `acc`'s new view: one per launch, in launch order.
fn one_time_per_launch_in_order(acc: &Accelerator) -> Result<(), amp::Error> {
    let view = acc.create_view()?;
    assert!(!view.profiling());
    view.set_profiling(true)?;
    assert!(view.profiling());
    let mut a = Array::from_slice_on(acc, [1000], &[1u32; 1000])?;
    let mut b = Array::from_slice_on(acc, [1000], &[0u32; 1000])?;
    // SAFETY: one thread per element of the array or view it writes.
    parallel_for_each_on(&view, a.extent(), unsafe { prof_add(2, &mut a) })?;
    parallel_for_each_on(&view, a.extent(), prof_square(&a, &mut b))?;
    // SAFETY: one thread per element of the array or view it writes.
    parallel_for_each_on(&view, a.extent(), unsafe { prof_add(1, &mut a) })?;
    let before = std::time::Instant::now();
    // SAFETY: one thread per element of the array or view it writes.
    parallel_for_each_on(&view, a.extent(), unsafe { prof_add(0, &mut a) })?;
    let times = view.take_kernel_times()?;
    let taken = std::time::Instant::now();
    assert_eq!(
        names(&times),
        ["prof_add", "prof_square", "prof_add", "prof_add"]
    );
    assert_sane(&times);
    assert!(before <= times[3].start, "{times:?}");
    assert!(times[3].end() <= taken, "{times:?}");
    for pair in times.windows(2) {
        assert!(pair[0].end() <= pair[1].start, "{times:?}");
    }
    assert_eq!(b.to_vec()?, vec![9u32; 1000]);
    assert_eq!(a.to_vec()?, vec![4u32; 1000]);
    // Taken: the next call has only what came after.
    assert!(view.take_kernel_times()?.is_empty());
    // SAFETY: one thread per element of the array or view it writes.
    parallel_for_each_on(&view, a.extent(), unsafe { prof_add(1, &mut a) })?;
    let clone = view.clone();
    assert_eq!(names(&clone.take_kernel_times()?), ["prof_add"]);
    // Off: launches are not timed.
    view.set_profiling(false)?;
    // SAFETY: one thread per element of the array or view it writes.
    parallel_for_each_on(&view, a.extent(), unsafe { prof_add(1, &mut a) })?;
    assert!(view.take_kernel_times()?.is_empty());
    assert_eq!(a.to_vec()?, vec![6u32; 1000]);
    Ok(())
}

#[test]
fn each_launch_has_one_positive_time_in_order_with_its_name() -> Result<(), amp::Error> {
    let _t = timing();
    one_time_per_launch_in_order(&Accelerator::default()?)?;
    assert_validation_clean();
    Ok(())
}

#[test]
fn the_native_accelerator_times_launches_by_the_wall_clock() -> Result<(), amp::Error> {
    one_time_per_launch_in_order(&Accelerator::cpu()?)?;
    Ok(())
}

#[test]
fn views_that_do_not_time_record_no_times() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let view = acc.create_view()?;
    let mut a = Array::from_slice_on(&acc, [64], &[0u32; 64])?;
    for _ in 0..5 {
        // SAFETY: one thread per element of the array or view it writes.
        parallel_for_each_on(&view, a.extent(), unsafe { prof_add(1, &mut a) })?;
    }
    assert!(view.take_kernel_times()?.is_empty());
    assert_eq!(a.to_vec()?, vec![5u32; 64]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn many_timed_launches_reuse_their_query_pools() -> Result<(), amp::Error> {
    common::vulkan_only!("query pools are Vulkan objects");
    let _t = timing();
    let acc = Accelerator::default()?;
    let view = acc.create_view()?;
    view.set_profiling(true)?;
    let mut a = Array::from_slice_on(&acc, [256], &[0u32; 256])?;
    let mut round = || -> Result<amp::ObjectCounts, amp::Error> {
        for _ in 0..300 {
            // SAFETY: one thread per element of the array or view it writes.
            parallel_for_each_on(&view, a.extent(), unsafe { prof_add(1, &mut a) })?;
        }
        let times = view.take_kernel_times()?;
        assert_eq!(times.len(), 300);
        assert!(times.iter().all(|t| t.kernel == "prof_add"));
        assert_sane(&times);
        Ok(amp::live_object_counts())
    };
    for counts in [round()?, round()?] {
        // Each batch's command pool (at most 256 launches) has at most 4 query pools of 64
        // launches, kept with it for its next batches: never one per launch.
        assert!(counts.query_pools >= 1, "timed launches use query pools");
        assert!(
            counts.query_pools <= 4 * counts.command_pools && counts.query_pools < 300,
            "{counts:?}"
        );
    }
    assert_eq!(a.to_vec()?, vec![600u32; 256]);
    assert_validation_clean();
    Ok(())
}

/// `fn raw_nop(idx: Index<1>) {}` compiled by amp-spirv (no buffers; the domain's extent
/// is its push-constant block), launched as raw SPIR-V.
fn raw_kernel(acc: &Accelerator) -> Result<(RawKernel, &'static str), amp::Error> {
    let f: syn::ItemFn = syn::parse_str("fn raw_nop(idx: Index<1>) {}").expect("parses");
    let k = amp_spirv::compile(&f).expect("compiles");
    assert_eq!(k.push_constant_size, 4, "the domain's extent only");
    let raw = RawKernel::new(acc, &k.spirv, k.entry_point, 0, k.push_constant_size)?;
    Ok((raw, k.entry_point))
}

#[test]
fn raw_kernel_dispatches_are_timed_on_the_default_view() -> Result<(), amp::Error> {
    common::vulkan_only!("raw SPIR-V kernels need Vulkan");
    let _t = timing();
    let acc = Accelerator::default()?;
    let (raw, entry_point) = raw_kernel(&acc)?;
    let push = 4096u32.to_ne_bytes();
    let view = acc.default_view();
    view.set_profiling(true)?;
    let times = {
        raw.dispatch([64, 1, 1], vec![], &push)?;
        raw.dispatch([64, 1, 1], vec![], &push)?;
        let times = view.take_kernel_times();
        view.set_profiling(false)?;
        times?
    };
    // Other tests' launches on the default view may be timed beside these two.
    let ours = times.iter().filter(|t| t.kernel == entry_point).count();
    assert_eq!(ours, 2, "{times:?}");
    assert_sane(&times);
    assert_validation_clean();
    Ok(())
}
