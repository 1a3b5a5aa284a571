//! Every C++ AMP negative case is an `amp::Error`, not a panic or a hang: one test per case
//! that can be produced on the device at hand (lavapipe in CI).
//!
//! - Negative extents: extents are `usize`, so a negative one does not type-check; the value a
//!   negative `i32` becomes through `as usize` is an error ([`negative_extent_cast_is_an_error`]).
//! - Tiles larger than the device allows: a tile of more than 1024 threads, or whose
//!   `tile_static` variables need more than 32 KiB, does not compile (`tests/ui`); lavapipe's
//!   limits are exactly these, so the launch-time checks (`Error::TileTooLarge`,
//!   `Error::TileStaticTooLarge`, for devices with smaller limits) cannot be reached here; they
//!   are tested with hand-built kernels in `amp-runtime/tests/tiled.rs`.
//! - `f64` on a device without `shaderFloat64`: checked where the device lacks it; lavapipe has
//!   it, so there the same test checks the `f64` kernel's values.
//! - Device lost: no device can be made to lose itself on demand; the mapping of
//!   `VK_ERROR_DEVICE_LOST` from any call to [`amp::Error::DeviceLost`] is unit-tested in
//!   `amp-runtime/src/error.rs`.
//! - No Vulkan loader, no device: run in a child process with `AMP_VULKAN_LIBRARY` or
//!   `VK_DRIVER_FILES` pointing nowhere.

mod common;
use common::assert_validation_clean;
use common::{in_child, run_child};

use amp::prelude::*;

#[kernel(amp)]
fn double_it(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    out[idx] = a[idx] * 2;
}

#[kernel(amp)]
fn halve_f64(idx: Index<1>, a: ArrayView<f64, 1>, out: ArrayViewMut<f64, 1>) {
    out[idx] = a[idx] * 0.5;
}

#[kernel(amp)]
fn tile_reverse<const S: usize>(
    t: TiledIndex<64>,
    a: ArrayView<i32, 1>,
    out: ArrayViewMut<i32, 1>,
) {
    #[tile_static]
    let mut sh: [i32; S];
    sh[t.local[0]] = a[t.global];
    t.barrier.wait();
    out[t.global] = sh[63 - t.local[0]];
}

#[test]
fn empty_extents_are_values_and_launch_nothing() -> Result<(), Error> {
    let empty: [i32; 0] = [];
    assert!(ArrayView::new([0], &empty[..]).is_ok());
    assert!(ArrayView::new([0, 5], &empty[..]).is_ok());
    assert!(Array::<i32, 2>::new([4, 0]).is_ok());
    let a = vec![1; 8];
    let mut out = vec![0; 8];
    let av = ArrayView::new([8], &a)?;
    let mut ov = ArrayViewMut::new([8], &mut out)?;
    parallel_for_each(Extent::new([0]), double_it(&av, &mut ov))?;
    drop(ov);
    assert_eq!(out, vec![0; 8], "an empty launch changes nothing");
    assert_validation_clean();
    Ok(())
}

/// `-1i32 as usize` is the largest `usize`: far beyond what a device can address.
#[test]
fn negative_extent_cast_is_an_error() {
    let negative = -1i32;
    let result = Array::<i32, 1>::new([negative as usize]);
    assert!(
        matches!(result, Err(Error::ExtentTooLarge { .. })),
        "{result:?}"
    );
    let result = Array::<i32, 2>::new([2, (-5i32) as usize]);
    assert!(
        matches!(result, Err(Error::ExtentTooLarge { .. })),
        "{result:?}"
    );
    let data = [0i32; 4];
    let result = ArrayView::new([(-4i64) as usize], &data[..]);
    assert!(result.is_err(), "{result:?}");
}

#[test]
fn tiles_that_do_not_divide_the_extent_are_errors() -> Result<(), Error> {
    let a = vec![1; 100];
    let mut out = vec![0; 100];
    let av = ArrayView::new([100], &a)?;
    let mut ov = ArrayViewMut::new([100], &mut out)?;
    let result = parallel_for_each(av.extent().tile::<64>(), tile_reverse::<64>(&av, &mut ov));
    match result {
        Err(Error::NotDivisible { extent, tile, .. }) => {
            assert_eq!(extent, "[100]");
            assert_eq!(tile, "[64]");
        }
        other => panic!("expected NotDivisible, got {other:?}"),
    }
    assert_validation_clean();
    Ok(())
}

/// The tile kernel, run over an extent its tile divides: values checked (the refused launches
/// above leave it usable).
#[test]
fn tiled_kernel_runs_over_a_divisible_extent() -> Result<(), Error> {
    let a: Vec<i32> = (0..128).collect();
    let mut out = vec![0; 128];
    {
        let av = ArrayView::new([128], &a)?;
        let mut ov = ArrayViewMut::new([128], &mut out)?;
        let call = tile_reverse::<64>(&av, &mut ov);
        let limit = Accelerator::default()?.limits().max_tile_static_bytes();
        assert!(call.tile_static_bytes() <= limit);
        parallel_for_each(av.extent().tile::<64>(), call)?;
    }
    let want: Vec<i32> = (0..128).map(|i| (i / 64) * 64 + 63 - i % 64).collect();
    assert_eq!(out, want);
    assert_validation_clean();
    Ok(())
}

#[test]
fn view_and_array_extents_that_do_not_match_their_data_are_errors() {
    let data = vec![0i32; 10];
    match ArrayView::new([3, 4], &data) {
        Err(Error::ExtentMismatch { extent, len }) => assert_eq!((extent, len), (12, 10)),
        other => panic!("expected ExtentMismatch, got {other:?}"),
    }
    let mut data_mut = vec![0i32; 10];
    assert!(matches!(
        ArrayViewMut::new([2, 2], &mut data_mut),
        Err(Error::ExtentMismatch { extent: 4, len: 10 })
    ));
    assert!(matches!(
        Array::from_slice([2, 2], &[1, 2, 3]),
        Err(Error::ExtentMismatch { extent: 4, len: 3 })
    ));
}

#[test]
fn copies_between_mismatched_shapes_are_errors() -> Result<(), Error> {
    let mut array = Array::from_slice([2, 3], &[1, 2, 3, 4, 5, 6])?;
    assert!(matches!(
        array.copy_from_slice(&[1, 2, 3]),
        Err(Error::MismatchedLengths {
            first: 6,
            second: 3,
            ..
        })
    ));
    let mut short = vec![0; 5];
    assert!(matches!(
        array.copy_to_slice(&mut short),
        Err(Error::MismatchedLengths {
            first: 6,
            second: 5,
            ..
        })
    ));
    assert_eq!(short, vec![0; 5]);
    // The refused copies changed nothing.
    assert_eq!(array.to_vec()?, vec![1, 2, 3, 4, 5, 6]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn f64_kernels_run_or_fail_with_missing_capability() -> Result<(), Error> {
    let a: Vec<f64> = (0..33).map(|i| i as f64 * 1.25 - 7.0).collect();
    let mut out = vec![0.0; 33];
    let result = {
        let av = ArrayView::new([33], &a)?;
        let mut ov = ArrayViewMut::new([33], &mut out)?;
        parallel_for_each(av.extent(), halve_f64(&av, &mut ov))
    };
    if Accelerator::default()?.supports_double_precision() {
        result?;
        let want: Vec<f64> = a.iter().map(|x| x * 0.5).collect();
        assert_eq!(out, want);
    } else {
        assert!(
            matches!(
                result,
                Err(Error::MissingCapability {
                    capability: "shaderFloat64",
                    ..
                })
            ),
            "{result:?}"
        );
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn allocations_larger_than_the_device_allows_are_errors() -> Result<(), Error> {
    let acc = Accelerator::default()?;
    let range = u64::from(acc.limits().max_storage_buffer_range);
    let too_many = (range / 4 + 1) as usize;
    match Array::<f32, 1>::new_on(&acc, [too_many]) {
        Err(Error::ExtentTooLarge { value, limit, .. }) => {
            assert_eq!(value, too_many as u64 * 4);
            assert_eq!(limit, range);
        }
        Err(Error::OutOfDeviceMemory) => {}
        // The native accelerator's arrays are host memory: only the host's memory bounds them.
        Ok(_) if acc.is_native() => {}
        other => panic!("expected ExtentTooLarge or OutOfDeviceMemory, got {other:?}"),
    }
    // The device still works afterwards.
    let a = Array::from_slice_on(&acc, [4], &[1.0f32, 2.0, 3.0, 4.0])?;
    assert_eq!(a.to_vec()?, vec![1.0, 2.0, 3.0, 4.0]);
    assert_validation_clean();
    Ok(())
}

/// Runs `test` of this binary in a child process with `env` set; it must pass.
#[kernel(amp)]
fn nothing(_idx: Index<1>) {}

/// Thread ids are `u32`s: a domain of `u32::MAX` elements runs where the device's grid holds
/// it in 2^32 threads (a GPU with a large x limit, or several indices per thread) and is refused
/// with `ExtentTooLarge` where folding one index per thread onto y would make ids wrap
/// (lavapipe's 65535 workgroups along x), never run with wrapped, repeated ids. The refusal is
/// checked in a child process with one index per thread.
#[test]
fn grids_whose_thread_ids_would_wrap_are_refused() -> Result<(), Error> {
    const NAME: &str = "grids_whose_thread_ids_would_wrap_are_refused";
    let acc = Accelerator::default()?;
    let domain = Extent::new([u32::MAX as usize]);
    let result = parallel_for_each(domain, nothing());
    let one_index = acc.launch_shape().is_some_and(|s| s.items_per_thread == 1);
    if acc.limits().max_workgroup_count[0] < (1 << 26) && one_index {
        match result {
            Err(Error::ExtentTooLarge { what, value, limit }) => {
                assert!(what.contains("launch grid"), "{what}");
                assert!(value > limit && limit == 1 << 32, "{value} {limit}");
            }
            other => panic!("expected ExtentTooLarge, got {other:?}"),
        }
    } else {
        result?;
        if acc.launch_shape().is_some() {
            // A Vulkan launch runs to its end (the process must not end with it running; the
            // native accelerator's 2^32 empty threads would take half a minute).
            acc.default_view().wait()?;
            if !in_child(NAME) {
                run_child(NAME, &[("AMP_ITEMS_PER_THREAD", "1")], &[]);
            }
        }
    }
    // A grid folded onto y (more workgroups than lavapipe's x limit) runs.
    parallel_for_each(Extent::new([1 << 23]), nothing())?;
    Ok(())
}

/// Every entry point that needs a Vulkan device (`AMP_DEVICE=vulkan`) reports `expected`
/// (checked by `is_expected`).
fn every_entry_point_fails(is_expected: impl Fn(&Error) -> bool) {
    let check = |what: &str, e: Error| assert!(is_expected(&e), "{what}: unexpected {e:?}");
    check("Accelerator::default", Accelerator::default().unwrap_err());
    // Without Vulkan, the native CPU accelerator is all there is (tests/native_accelerator.rs runs on it).
    match Accelerator::all() {
        Ok(all) => assert!(all.iter().all(|a| a.is_native()), "{all:?}"),
        Err(e) => check("Accelerator::all", e),
    }
    check("Array::new", Array::<i32, 1>::new([4]).unwrap_err());
    let a = vec![1, 2, 3];
    let mut out = vec![0; 3];
    let av = ArrayView::new([3], &a).expect("views need no device");
    let mut ov = ArrayViewMut::new([3], &mut out).expect("views need no device");
    check(
        "parallel_for_each",
        parallel_for_each(av.extent(), double_it(&av, &mut ov)).unwrap_err(),
    );
}

#[test]
fn no_vulkan_loader_is_an_error() {
    let test = "no_vulkan_loader_is_an_error";
    if !in_child(test) {
        run_child(
            test,
            &[
                ("AMP_VULKAN_LIBRARY", "/nonexistent/libvulkan.so.1"),
                ("AMP_DEVICE", "vulkan"),
            ],
            &[],
        );
        return;
    }
    every_entry_point_fails(
        |e| matches!(e, Error::NoVulkanLoader(why) if why.contains("/nonexistent/libvulkan.so.1")),
    );
    assert!(!amp::validation_enabled());
}

#[test]
fn no_device_is_an_error() {
    let test = "no_device_is_an_error";
    if !in_child(test) {
        let nowhere = "/nonexistent/icd.json";
        run_child(
            test,
            &[
                ("VK_DRIVER_FILES", nowhere),
                ("VK_ICD_FILENAMES", nowhere),
                ("AMP_DEVICE", "vulkan"),
            ],
            &[],
        );
        return;
    }
    every_entry_point_fails(|e| matches!(e, Error::NoDevice));
}

/// A busy kernel: `ROUNDS` steps of a linear congruential generator per element (each
/// `ROUNDS` a pipeline of its own, compiled at its first dispatch).
#[kernel(amp)]
fn churn<const ROUNDS: u32>(idx: Index<1>, out: &mut Array<u32, 1>) {
    let mut x = idx[0] as u32;
    for _ in 0..ROUNDS {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
    }
    out[idx] = x;
}

/// Runs test `name` in four child processes with Mesa's shader cache off, so that the work
/// they leave behind is still running (or compiling) when they end; each must exit cleanly.
fn in_four_ending_children(name: &str) {
    for _ in 0..4 {
        run_child(name, &[("MESA_SHADER_CACHE_DISABLE", "true")], &[]);
    }
    assert_validation_clean();
}

/// A program may end with launches in flight (a launch returns before its work ran): it exits
/// cleanly, the runtime waiting for its devices' work before the drivers tear themselves
/// down (lavapipe crashed such a process at exit, about one run in four when it compiles its
/// shaders afresh). Each child submits a few busy launches and ends without waiting.
#[test]
fn a_process_that_ends_with_launches_in_flight_exits_cleanly() -> Result<(), Error> {
    const NAME: &str = "a_process_that_ends_with_launches_in_flight_exits_cleanly";
    if !in_child(NAME) {
        in_four_ending_children(NAME);
        return Ok(());
    }
    let mut out = Array::<u32, 1>::new([1 << 20])?;
    for _ in 0..4 {
        parallel_for_each(out.extent(), churn::<64>(&mut out))?;
    }
    out.accelerator().default_view().flush()?;
    Ok(())
}

/// As above, for a program that waited for a first kernel and then ends while the driver
/// compiles a second one (lavapipe compiles a kernel at its first dispatch, on its own
/// threads): the driver's compiler registered its own teardown at the first compile, after
/// the runtime's exit hook, so the hook must be registered again after that (it crashed
/// every such process before). Each child waits once, then submits a kernel not compiled yet
/// and ends.
#[test]
fn a_process_that_ends_while_a_kernel_compiles_exits_cleanly() -> Result<(), Error> {
    const NAME: &str = "a_process_that_ends_while_a_kernel_compiles_exits_cleanly";
    if !in_child(NAME) {
        in_four_ending_children(NAME);
        return Ok(());
    }
    let mut first = Array::<u32, 1>::new([1 << 10])?;
    parallel_for_each(first.extent(), churn::<64>(&mut first))?;
    first.to_vec()?;
    let mut out = Array::<u32, 1>::new([1 << 20])?;
    parallel_for_each(out.extent(), churn::<96>(&mut out))?;
    out.accelerator().default_view().flush()?;
    Ok(())
}
