//! The single-pass integer scan (decoupled look-back with a decoupled fallback) against the
//! host: at lengths around every block boundary, with the fallback forced for every block, on
//! one driver thread, and at 2^28 elements. On Vulkan the public scans of `i32` and `u32` run
//! it; natively those take the host path, so the kernel itself is run through
//! `__single_pass_scan` on both accelerators.

use crate::common;
use common::{assert_validation_clean, Rng};

use amp::algorithms;
use amp::prelude::*;

/// Elements per block of the scan staged through `tile_static` memory.
const BLOCK: usize = 4096;
/// Elements per block of the scan reading each thread's run in place.
const DIRECT_BLOCK: usize = 256 * 128;

fn host_scan<T: Copy>(data: &[T], exclusive: bool, zero: T, add: impl Fn(T, T) -> T) -> Vec<T> {
    let mut run = zero;
    data.iter()
        .map(|&x| {
            let before = run;
            run = add(run, x);
            if exclusive {
                before
            } else {
                run
            }
        })
        .collect()
}

/// The kernel with `polls` per block against the host, inclusive and exclusive, for `u32` and
/// `i32` values that wrap, with its blocks staged through `tile_static` memory and read
/// directly.
fn check_single_pass(n: usize, polls: u32, rng: &mut Rng) {
    for staged in [false, true] {
        check_layout(n, polls, staged, rng);
    }
}

fn check_layout(n: usize, polls: u32, staged: bool, rng: &mut Rng) {
    let uints: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
    let ints: Vec<i32> = (0..n).map(|_| rng.next_u32() as i32).collect();
    for exclusive in [false, true] {
        let mut out = vec![0u32; n];
        algorithms::__single_pass_scan(
            &ArrayView::new([n], &uints).unwrap(),
            &mut ArrayViewMut::new([n], &mut out).unwrap(),
            exclusive,
            polls,
            Some(staged),
        )
        .unwrap();
        let want = host_scan(&uints, exclusive, 0, u32::wrapping_add);
        if let Some(i) = (0..n).find(|&i| out[i] != want[i]) {
            panic!(
                "u32 scan of {n} (exclusive {exclusive}, {polls} polls, staged {staged}) at {i}: {} != {}",
                out[i], want[i]
            );
        }
        let input = Array::from_slice([n], &ints).unwrap();
        let mut out = Array::<i32, 1>::new([n]).unwrap();
        algorithms::__single_pass_scan(
            &input.view(),
            &mut out.view_mut(),
            exclusive,
            polls,
            Some(staged),
        )
        .unwrap();
        let want = host_scan(&ints, exclusive, 0, i32::wrapping_add);
        assert!(
            out.to_vec().unwrap() == want,
            "i32 scan of {n} (exclusive {exclusive}, {polls} polls, staged {staged})"
        );
    }
}

#[test]
fn the_single_pass_scan_matches_the_host_around_every_block_boundary() {
    let mut rng = Rng(29);
    let lengths = [
        1,
        BLOCK - 1,
        BLOCK,
        BLOCK + 1,
        2 * BLOCK - 1,
        2 * BLOCK,
        2 * BLOCK + 1,
        3 * BLOCK + 255,
        4 * BLOCK - 1,
        4 * BLOCK + 1,
        17 * BLOCK + 32,
        64 * BLOCK + 7,
        DIRECT_BLOCK - 1,
        DIRECT_BLOCK + 1,
        3 * DIRECT_BLOCK,
        5 * DIRECT_BLOCK + 255,
    ];
    for n in lengths {
        check_single_pass(n, 64, &mut rng);
    }
    assert_validation_clean();
}

/// With no polls every tile sums every block before its own itself: the fallback alone gives
/// the right prefixes, so a tile never needs another to have run.
#[test]
fn the_single_pass_scan_is_right_when_every_block_takes_the_fallback() {
    let mut rng = Rng(31);
    for n in [
        BLOCK + 1,
        5 * BLOCK,
        23 * BLOCK + 4095,
        3 * DIRECT_BLOCK + 1,
    ] {
        check_single_pass(n, 0, &mut rng);
    }
    assert_validation_clean();
}

/// The public scans, which run the single pass for integers on Vulkan, across blocks of all
/// equal values and of values that wrap.
#[test]
fn integer_scans_of_many_blocks_match_the_host() {
    let n = 40 * BLOCK + 3;
    let ones = vec![1u32; n];
    let mut out = vec![0u32; n];
    algorithms::exclusive_scan(
        &ArrayView::new([n], &ones).unwrap(),
        &mut ArrayViewMut::new([n], &mut out).unwrap(),
    )
    .unwrap();
    assert!(out.iter().enumerate().all(|(i, &x)| x == i as u32));
    let big = vec![i32::MAX; n];
    let mut out = vec![0i32; n];
    algorithms::inclusive_scan(
        &ArrayView::new([n], &big).unwrap(),
        &mut ArrayViewMut::new([n], &mut out).unwrap(),
    )
    .unwrap();
    assert_eq!(out, host_scan(&big, false, 0, i32::wrapping_add));
    assert_validation_clean();
}

/// On one driver thread (lavapipe's `LP_NUM_THREADS=1`, the native pool's `AMP_CPU_THREADS=1`)
/// tiles run one after another: the look-back must not wait for a tile that cannot run.
#[test]
fn the_single_pass_scan_ends_on_one_thread() {
    const NAME: &str = "lookback::the_single_pass_scan_ends_on_one_thread";
    if common::in_child(NAME) {
        let mut rng = Rng(37);
        check_single_pass(50 * BLOCK + 9, 64, &mut rng);
        assert_validation_clean();
        return;
    }
    common::run_child(
        NAME,
        &[("LP_NUM_THREADS", "1"), ("AMP_CPU_THREADS", "1")],
        &[],
    );
}

/// 2^28 elements (65,536 blocks staged, 32,768 direct): the public exclusive scan of `u32` against the host, on a
/// Vulkan device whose storage buffers hold 1 GiB; one whose buffers hold less (lavapipe's
/// hold 128 MiB) is checked to refuse an array past its limit with the typed error. Natively the public integer scans are the host's
/// chunked loops (the kernel's own tests are above), so there is nothing of the look-back to
/// test at this size.
#[test]
fn a_scan_of_two_to_the_28() {
    if common::on_native() {
        return;
    }
    let n = 1usize << 28;
    let limit = amp::Accelerator::default()
        .unwrap()
        .limits()
        .max_storage_buffer_range;
    if (limit as usize) < n * 4 {
        let too_large = vec![0u32; limit as usize / 4 + 1];
        match Array::from_slice([too_large.len()], &too_large) {
            Err(amp::Error::ExtentTooLarge { .. }) => {}
            other => panic!(
                "{} bytes past the device's {limit}: {other:?}",
                too_large.len() * 4
            ),
        }
        assert_validation_clean();
        return;
    }
    let data: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 20)
        .collect();
    let input = Array::from_slice([n], &data).unwrap();
    let mut out = Array::<u32, 1>::new([n]).unwrap();
    let check = |out: &Array<u32, 1>, what: &str| {
        let out = out.to_vec().unwrap();
        let mut run = 0u32;
        for (i, (&x, &y)) in data.iter().zip(&out).enumerate() {
            assert_eq!(y, run, "{what} at {i}");
            run = run.wrapping_add(x);
        }
    };
    algorithms::exclusive_scan(&input.view(), &mut out.view_mut()).unwrap();
    check(&out, "exclusive_scan");
    assert_validation_clean();
}
