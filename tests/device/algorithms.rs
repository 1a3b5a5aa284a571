//! `amp::algorithms` on the device against the same operations on the host, for lengths around
//! the block sizes (2,048 and 8,192) and past one level of recursion, for every scalar type: sums (integers
//! wrap), minima and maxima (NaNs passed over), inclusive and exclusive scans, sorts in
//! `total_cmp` order with every bit kept, and a stable `sort_by_key`.

use crate::common;
use common::{assert_validation_clean, Rng};

use amp::algorithms;
use amp::prelude::*;

const LENGTHS: [usize; 7] = [1, 7, 255, 2048, 2049, 6 * 2048 + 5, 300_000];

#[test]
fn sums_minima_and_maxima_match_the_host() {
    let mut rng = Rng(7);
    for n in LENGTHS {
        let ints: Vec<i32> = (0..n).map(|_| rng.next_u32() as i32).collect();
        let v = ArrayView::new([n], &ints).unwrap();
        let wrapping = ints.iter().fold(0i32, |a, &b| a.wrapping_add(b));
        assert_eq!(algorithms::sum(&v).unwrap(), wrapping, "i32 sum of {n}");
        assert_eq!(algorithms::min(&v).unwrap(), *ints.iter().min().unwrap());
        assert_eq!(algorithms::max(&v).unwrap(), *ints.iter().max().unwrap());

        let uints: Vec<u32> = (0..n).map(|_| rng.next_u32() % 1000).collect();
        let array = Array::from_slice([n], &uints).unwrap();
        assert_eq!(
            algorithms::sum(&array.view()).unwrap(),
            uints.iter().sum::<u32>()
        );
        assert_eq!(
            algorithms::max(&array.view()).unwrap(),
            *uints.iter().max().unwrap()
        );

        // Halves of small integers: every partial sum is exact in f32, in any order.
        let floats: Vec<f32> = (0..n)
            .map(|_| (rng.next_u32() % 64) as f32 * 0.5 - 16.0)
            .collect();
        let v = ArrayView::new([n], &floats).unwrap();
        assert_eq!(
            algorithms::sum(&v).unwrap(),
            floats.iter().sum::<f32>(),
            "f32 sum of {n}"
        );
        assert_eq!(
            algorithms::min(&v).unwrap(),
            floats.iter().copied().fold(f32::NAN, f32::min)
        );
    }
    let doubles: Vec<f64> = (0..10_000).map(|i| (i % 97) as f64 * 0.25).collect();
    let v = ArrayView::new([doubles.len()], &doubles).unwrap();
    if let Some(total) = common::f64_result(algorithms::sum(&v)) {
        assert_eq!(total, doubles.iter().sum::<f64>());
        assert_eq!(algorithms::max(&v).unwrap(), 96.0 * 0.25);
    }
    assert_validation_clean();
}

/// Integer sums and counts read four words at a time where the view starts at a 16-byte
/// boundary of its data: sections starting at every word of a quad, of lengths around the quads, the 4,096
/// elements below which they are not used, and the blocks of 16,384, over arrays and over host
/// slices, against the host's wrapping sum and count.
#[test]
fn integer_sums_counts_and_histograms_of_sections_at_every_offset_match_the_host() {
    let mut rng = Rng(61);
    let n = 3 * 16_384 + 4_099;
    let ints: Vec<i32> = (0..n).map(|_| rng.next_u32() as i32).collect();
    let uints: Vec<u32> = ints.iter().map(|&x| x as u32).collect();
    let array = Array::from_slice([n], &uints).unwrap();
    let host = ArrayView::new([n], &ints).unwrap();
    // Counts read the same quads: small values, so that many match.
    let small: Vec<i32> = ints.iter().map(|&x| x.rem_euclid(5) - 2).collect();
    let host_small = ArrayView::new([n], &small).unwrap();
    for start in 0..5 {
        for len in [
            4_095,
            4_096,
            4_097,
            4_099,
            16_384,
            16_387,
            2 * 16_384 + 1,
            n - 5,
        ] {
            let want = ints[start..start + len]
                .iter()
                .fold(0i32, |a, &b| a.wrapping_add(b));
            let got = algorithms::sum(&host.section([start], [len]).unwrap()).unwrap();
            assert_eq!(got, want, "i32 sum of {len} from {start} (host slice)");
            let got = algorithms::sum(&array.view().section([start], [len]).unwrap()).unwrap();
            assert_eq!(got, want as u32, "u32 sum of {len} from {start} (array)");
            let section = host_small.section([start], [len]).unwrap();
            for value in [-2, 0, 2, 7] {
                let want = small[start..start + len]
                    .iter()
                    .filter(|&&x| x == value)
                    .count();
                let got = algorithms::count(&section, value).unwrap();
                assert_eq!(got, want, "count of {value} in {len} from {start}");
            }
            // Histograms read the same quads: signed bins across zero (one the product of
            // offset and bins overflows 32 bits in), unsigned ones past `i32::MAX`.
            let ints_section = host.section([start], [len]).unwrap();
            for (bins, lo, hi) in [(37, -1_000_000_000i64, 1_500_000_000), (4, -2, 2)] {
                let want = host_histogram(&ints[start..start + len], bins, lo, hi);
                let got = algorithms::histogram(&ints_section, bins, lo as i32, hi as i32);
                assert_eq!(got.unwrap(), want, "i32 histogram of {len} from {start}");
            }
            let section = array.view().section([start], [len]).unwrap();
            let (bins, lo, hi) = (256, 1_000i64, 3_000_000_000);
            let want = host_histogram(&uints[start..start + len], bins, lo, hi);
            let got = algorithms::histogram(&section, bins, lo as u32, hi as u32);
            assert_eq!(got.unwrap(), want, "u32 histogram of {len} from {start}");
        }
    }
    assert_validation_clean();
}

/// The histogram of integers into `bins` equal-width bins of `[lo, hi)`, in 64-bit arithmetic.
fn host_histogram<T: Copy + Into<i64>>(xs: &[T], bins: usize, lo: i64, hi: i64) -> Vec<u32> {
    let mut counts = vec![0u32; bins];
    for &x in xs {
        let x: i64 = x.into();
        if (lo..hi).contains(&x) {
            counts[((x - lo) * bins as i64 / (hi - lo)) as usize] += 1;
        }
    }
    counts
}

/// The algorithms whose result does not depend on the shape take contiguous views of any
/// rank, in row-major order; a section with gaps is a typed error naming the algorithm.
#[test]
fn shape_free_algorithms_take_views_of_any_rank() {
    let mut rng = Rng(29);
    let (rows, cols) = (37, 129);
    let data: Vec<i32> = (0..rows * cols)
        .map(|_| (rng.next_u32() % 2001) as i32 - 1000)
        .collect();
    let grid = ArrayView::new([rows, cols], &data).unwrap();
    assert_eq!(
        algorithms::sum(&grid).unwrap(),
        data.iter().fold(0i32, |a, &b| a.wrapping_add(b))
    );
    assert_eq!(algorithms::min(&grid).unwrap(), *data.iter().min().unwrap());
    assert_eq!(algorithms::max(&grid).unwrap(), *data.iter().max().unwrap());
    let zeros = data.iter().filter(|&&x| x == 0).count();
    assert_eq!(algorithms::count(&grid, 0).unwrap(), zeros);
    let cube: Vec<f32> = (0..4 * 5 * 6).map(|i| (i % 7) as f32).collect();
    let counts =
        algorithms::histogram(&ArrayView::new([4, 5, 6], &cube).unwrap(), 7, 0.0, 7.0).unwrap();
    let mut want = vec![0u32; 7];
    for &x in &cube {
        want[x as usize] += 1;
    }
    assert_eq!(counts, want);
    let mut array = Array::<u32, 2>::new([rows, cols]).unwrap();
    algorithms::iota(&mut array.view_mut(), 5).unwrap();
    let expected: Vec<u32> = (0..(rows * cols) as u32).map(|i| i + 5).collect();
    assert_eq!(array.to_vec().unwrap(), expected);
    algorithms::fill(&mut array.view_mut(), 9).unwrap();
    assert!(array.to_vec().unwrap().iter().all(|&x| x == 9));
    // A section with gaps between its rows.
    let section = grid.section([1, 1], [3, 4]).unwrap();
    match algorithms::sum(&section) {
        Err(amp::Error::NotContiguous { operation, .. }) => assert_eq!(operation, "sum"),
        other => panic!("expected NotContiguous, got {other:?}"),
    }
    assert_validation_clean();
}

#[test]
fn nans_are_passed_over_by_min_and_max() {
    let data = [f32::NAN, 3.0, -2.0, f32::NAN, 5.0];
    let v = ArrayView::new([5], &data).unwrap();
    assert_eq!(algorithms::min(&v).unwrap(), -2.0);
    assert_eq!(algorithms::max(&v).unwrap(), 5.0);
    let nans = [f32::NAN; 3];
    assert!(algorithms::min(&ArrayView::new([3], &nans).unwrap())
        .unwrap()
        .is_nan());
    assert_validation_clean();
}

#[test]
fn scans_match_the_host() {
    let mut rng = Rng(11);
    for n in LENGTHS {
        let ints: Vec<i32> = (0..n)
            .map(|_| (rng.next_u32() % 200) as i32 - 100)
            .collect();
        let mut inclusive = vec![0i32; n];
        let mut exclusive = vec![0i32; n];
        {
            let v = ArrayView::new([n], &ints).unwrap();
            algorithms::inclusive_scan(&v, &mut ArrayViewMut::new([n], &mut inclusive).unwrap())
                .unwrap();
            algorithms::exclusive_scan(&v, &mut ArrayViewMut::new([n], &mut exclusive).unwrap())
                .unwrap();
        }
        let mut run = 0;
        for i in 0..n {
            assert_eq!(exclusive[i], run, "exclusive scan of {n} at {i}");
            run += ints[i];
            assert_eq!(inclusive[i], run, "inclusive scan of {n} at {i}");
        }
        // Floats that add exactly; into an array on the device.
        let floats: Vec<f32> = (0..n).map(|_| (rng.next_u32() % 8) as f32).collect();
        let input = Array::from_slice([n], &floats).unwrap();
        let mut out = Array::<f32, 1>::new([n]).unwrap();
        algorithms::inclusive_scan(&input.view(), &mut out.view_mut()).unwrap();
        let want: Vec<f32> = floats
            .iter()
            .scan(0.0, |s, &x| {
                *s += x;
                Some(*s)
            })
            .collect();
        assert_eq!(out.to_vec().unwrap(), want, "f32 scan of {n}");
    }
    // Rank 2, in row-major order; a section with gaps between its rows is refused.
    let (rows, cols) = (37, 61);
    let data: Vec<u32> = (0..rows * cols).map(|i| (i as u32 * 7919) % 13).collect();
    let grid = Array::from_slice([rows, cols], &data).unwrap();
    let mut out = Array::<u32, 2>::new([rows, cols]).unwrap();
    algorithms::exclusive_scan(&grid.view(), &mut out.view_mut()).unwrap();
    let want: Vec<u32> = data
        .iter()
        .scan(0, |s, &x| {
            let before = *s;
            *s += x;
            Some(before)
        })
        .collect();
    assert_eq!(out.to_vec().unwrap(), want, "rank-2 exclusive scan");
    let section = grid.section([1, 1], [3, 4]).unwrap();
    let mut small = Array::<u32, 2>::new([3, 4]).unwrap();
    match algorithms::inclusive_scan(&section, &mut small.view_mut()) {
        Err(amp::Error::NotContiguous { operation, .. }) => assert_eq!(operation, "inclusive_scan"),
        other => panic!("expected NotContiguous, got {other:?}"),
    }
    assert_validation_clean();
}

/// Floats whose sums round: magnitudes from 2^-20 to 2^20, both signs, and some `-0.0`s.
fn rounding_floats(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| match rng.next_u32() % 64 {
            0 => -0.0,
            k => {
                let scale = 2f64.powi((rng.next_u32() % 41) as i32 - 20);
                let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
                sign * scale * (1.0 + f64::from(rng.next_u32()) / f64::from(u32::MAX))
            }
        })
        .collect()
}

/// A float scan of host data runs natively as plain Rust: it must round exactly as the
/// reduce-then-scan kernels do (the same bits, `-0.0`s included), for lengths around a
/// subgroup, a tile's thread, a block of 8,192 and the blocks' own scan. On a Vulkan device
/// both are the kernels.
#[test]
fn float_scans_round_as_the_kernels_do() {
    fn check<T: DeviceScalar + Into<f64>>(xs: &[T], n: usize, what: &str) -> bool {
        let mut grouped = false;
        for exclusive in [true, false] {
            let mut fast = vec![T::ZERO; n];
            {
                let (input, mut output) = (
                    ArrayView::new([n], xs).unwrap(),
                    ArrayViewMut::new([n], &mut fast).unwrap(),
                );
                match exclusive {
                    true => algorithms::exclusive_scan(&input, &mut output).unwrap(),
                    false => algorithms::inclusive_scan(&input, &mut output).unwrap(),
                }
            }
            let input = Array::from_slice([n], xs).unwrap();
            let mut kernels = Array::<T, 1>::new([n]).unwrap();
            algorithms::__reduce_then_scan(&input.view(), &mut kernels.view_mut(), exclusive)
                .unwrap();
            let kernels = kernels.to_vec().unwrap();
            let bits = |v: &[T]| v.iter().map(|&x| x.into().to_bits()).collect::<Vec<_>>();
            assert!(
                bits(&fast) == bits(&kernels),
                "{what} scan of {n} (exclusive {exclusive}) differs from the kernels'"
            );
            let mut run = T::ZERO;
            for (i, &x) in xs.iter().enumerate() {
                let before = run;
                run += x;
                let serial = if exclusive { before } else { run };
                grouped |= serial.into().to_bits() != fast[i].into().to_bits();
            }
        }
        grouped
    }
    let mut rng = Rng(0x5ca7);
    let mut grouped = false;
    for n in [
        1,
        31,
        33,
        255,
        257,
        8191,
        8192,
        8193,
        2 * 8192 + 31 * 32 + 5,
        8192 * 37 + 4097,
    ] {
        let wide = rounding_floats(&mut rng, n);
        let narrow: Vec<f32> = wide.iter().map(|&x| x as f32).collect();
        grouped |= check(&narrow, n, "f32");
        if amp::Accelerator::default()
            .unwrap()
            .supports_double_precision()
        {
            grouped |= check(&wide, n, "f64");
        }
    }
    // The inputs round: somewhere the grouping shows against a left-to-right loop.
    assert!(grouped);
    assert_validation_clean();
}

#[test]
fn a_scan_of_four_million() {
    // 513 blocks of 8,192: the block sums are scanned by the same algorithm before the
    // blocks are (one level of recursion; a second needs more than 64M elements).
    let n = 2048 * 2048 + 3;
    let data: Vec<u32> = (0..n as u32).map(|i| i % 3).collect();
    let mut out = vec![0u32; n];
    algorithms::exclusive_scan(
        &ArrayView::new([n], &data).unwrap(),
        &mut ArrayViewMut::new([n], &mut out).unwrap(),
    )
    .unwrap();
    let mut run = 0u32;
    for i in 0..n {
        assert_eq!(out[i], run, "at {i}");
        run += data[i];
    }
    assert_validation_clean();
}

#[test]
fn sorts_match_the_host() {
    let mut rng = Rng(3);
    for n in LENGTHS {
        let mut uints: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
        let mut want = uints.clone();
        want.sort_unstable();
        algorithms::sort(&mut ArrayViewMut::new([n], &mut uints).unwrap()).unwrap();
        assert_eq!(uints, want, "u32 sort of {n}");

        let ints: Vec<i32> = (0..n).map(|_| rng.next_u32() as i32).collect();
        let mut array = Array::from_slice([n], &ints).unwrap();
        algorithms::sort(&mut array.view_mut()).unwrap();
        let mut want = ints.clone();
        want.sort_unstable();
        assert_eq!(array.to_vec().unwrap(), want, "i32 sort of {n}");
    }
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        1e-40,
        -1e-40,
        f32::MAX,
        f32::MIN,
        -f32::NAN,
        2.5,
        -2.5,
        // NaNs with payloads, of both signs.
        f32::from_bits(0x7f80_0001),
        f32::from_bits(0xffc0_1234),
        f32::from_bits(0x7fff_ffff),
    ];
    let mut floats: Vec<f32> = (0..5000)
        .map(|i| specials[i % specials.len()] * (1 + i / 1000) as f32)
        .collect();
    // Exactly what `total_cmp` gives, every bit: the output is a permutation of the input.
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let mut want = floats.clone();
    want.sort_by(f32::total_cmp);
    algorithms::sort(&mut ArrayViewMut::new([floats.len()], &mut floats).unwrap()).unwrap();
    assert_eq!(bits(&floats), bits(&want));
    assert!(floats[0].is_nan() && floats[0].is_sign_negative());
    {
        let mut doubles: Vec<f64> = (0..20_000)
            .map(|i| match i % 11 {
                0 => f64::NAN,
                9 => -f64::NAN,
                10 => f64::from_bits(0xfff0_0000_0000_0007),
                1 => -0.0,
                2 => 0.0,
                3 => f64::NEG_INFINITY,
                _ => (rng.next_u32() as f64 - 2e9) * 1e-3,
            })
            .collect();
        let mut want = doubles.clone();
        want.sort_by(f64::total_cmp);
        let sorted = common::f64_result(algorithms::sort(
            &mut ArrayViewMut::new([doubles.len()], &mut doubles).unwrap(),
        ));
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        if sorted.is_some() {
            assert_eq!(bits(&doubles), bits(&want));
        }
    }
    assert_validation_clean();
}

#[test]
fn sort_by_key_is_stable() {
    let mut rng = Rng(5);
    for n in [2, 300, 2049, 70_000] {
        let mut keys: Vec<i32> = (0..n).map(|_| (rng.next_u32() % 50) as i32 - 25).collect();
        let mut values: Vec<u32> = (0..n as u32).collect();
        let mut want: Vec<(i32, u32)> = keys.iter().copied().zip(values.iter().copied()).collect();
        want.sort_by_key(|&(k, _)| k);
        algorithms::sort_by_key(
            &mut ArrayViewMut::new([n], &mut keys).unwrap(),
            &mut ArrayViewMut::new([n], &mut values).unwrap(),
        )
        .unwrap();
        let got: Vec<(i32, u32)> = keys.into_iter().zip(values).collect();
        assert_eq!(got, want, "sort_by_key of {n}");
    }
    // Float keys, f32 values.
    let mut keys = [2.5f32, -1.0, 2.5, -0.0, 0.0];
    let mut values = [0.0f32, 1.0, 2.0, 3.0, 4.0];
    algorithms::sort_by_key(
        &mut ArrayViewMut::new([5], &mut keys).unwrap(),
        &mut ArrayViewMut::new([5], &mut values).unwrap(),
    )
    .unwrap();
    assert_eq!(values, [1.0, 3.0, 4.0, 0.0, 2.0]);
    // NaN keys of both signs go where `total_cmp` puts them, stably, keeping their bits.
    let nan = f32::from_bits(0x7fc0_0001);
    let neg_nan = f32::from_bits(0xffc0_0002);
    let mut keys = [nan, 1.0, neg_nan, f32::NEG_INFINITY, nan, neg_nan];
    let mut values = [0u32, 1, 2, 3, 4, 5];
    algorithms::sort_by_key(
        &mut ArrayViewMut::new([6], &mut keys).unwrap(),
        &mut ArrayViewMut::new([6], &mut values).unwrap(),
    )
    .unwrap();
    assert_eq!(values, [2, 5, 3, 1, 0, 4]);
    assert_eq!(
        keys.map(f32::to_bits),
        [neg_nan, neg_nan, f32::NEG_INFINITY, 1.0, nan, nan].map(f32::to_bits)
    );
    // `f64` keys with duplicates, signed zeros and NaNs of both signs, `u32` values.
    let specials = [1.5f64, -0.0, 0.0, f64::NAN, -f64::NAN, -2.0, f64::INFINITY];
    let mut keys: Vec<f64> = (0..3000)
        .map(|i| specials[i * 7 % specials.len()])
        .collect();
    let mut values: Vec<u32> = (0..3000).collect();
    let mut want: Vec<(u64, u32)> = keys.iter().map(|k| k.to_bits()).zip(0..).collect();
    want.sort_by(|a, b| f64::from_bits(a.0).total_cmp(&f64::from_bits(b.0)));
    let sorted = common::f64_result(algorithms::sort_by_key(
        &mut ArrayViewMut::new([3000], &mut keys).unwrap(),
        &mut ArrayViewMut::new([3000], &mut values).unwrap(),
    ));
    if sorted.is_some() {
        let got: Vec<(u64, u32)> = keys.iter().map(|k| k.to_bits()).zip(values).collect();
        assert_eq!(got, want, "sort_by_key of f64 keys");
    }
    assert_validation_clean();
}

#[test]
fn mismatched_lengths_are_errors() {
    let input = [1, 2, 3];
    let mut out = [0; 2];
    let err = algorithms::inclusive_scan(
        &ArrayView::new([3], &input).unwrap(),
        &mut ArrayViewMut::new([2], &mut out).unwrap(),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            Error::MismatchedLengths {
                first: 3,
                second: 2,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "inclusive_scan: input has 3 elements but output has 2"
    );
    let mut keys = [1u32, 0];
    let mut values = [1.0f32];
    let err = algorithms::sort_by_key(
        &mut ArrayViewMut::new([2], &mut keys).unwrap(),
        &mut ArrayViewMut::new([1], &mut values).unwrap(),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            Error::MismatchedLengths {
                operation: "sort_by_key",
                ..
            }
        ),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------------
// fill, iota, count, lower_bound / upper_bound, merge, unique, sort_descending
// ---------------------------------------------------------------------------------------------

/// The lengths every algorithm below is checked at: empty, one, a non-power-of-two past a
/// block boundary, and several million.
const CONTRACT_LENGTHS: [usize; 4] = [0, 1, 2049, 3_000_000];

/// Floats with the cases that differ between comparisons: both zeros, both NaNs, infinities.
fn floats_with_specials(rng: &mut Rng, n: usize) -> Vec<f32> {
    let specials = [
        0.0,
        -0.0,
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        -f32::INFINITY,
        1.5,
    ];
    (0..n)
        .map(|i| match rng.next_u32() % 8 {
            0 => specials[i % specials.len()],
            _ => (rng.next_u32() % 64) as f32 * 0.25 - 8.0,
        })
        .collect()
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn fill_and_iota_write_every_element() -> Result<(), amp::Error> {
    for n in CONTRACT_LENGTHS {
        let mut ints = vec![3i32; n];
        algorithms::fill(&mut ArrayViewMut::new([n], &mut ints)?, -7)?;
        assert!(ints.iter().all(|&x| x == -7), "fill of {n}");
        let mut floats = vec![0.0f32; n];
        algorithms::fill(&mut ArrayViewMut::new([n], &mut floats)?, -0.0)?;
        assert!(floats.iter().all(|x| x.to_bits() == (-0.0f32).to_bits()));

        // Integers wrap past the largest value.
        let mut us = vec![0u32; n];
        algorithms::iota(&mut ArrayViewMut::new([n], &mut us)?, u32::MAX - 5)?;
        let want: Vec<u32> = (0..n)
            .map(|i| (u32::MAX - 5).wrapping_add(i as u32))
            .collect();
        assert_eq!(us, want, "iota of {n}");
        let mut fs = vec![0.0f32; n];
        algorithms::iota(&mut ArrayViewMut::new([n], &mut fs)?, 0.5)?;
        let want: Vec<f32> = (0..n).map(|i| 0.5 + i as f32).collect();
        assert_eq!(bits(&fs), bits(&want), "f32 iota of {n}");
    }
    // On an array, on its accelerator.
    let acc = Accelerator::default()?;
    let mut a = Array::<i32, 1>::new_on(&acc, [100])?;
    algorithms::iota(&mut a.view_mut(), -50)?;
    assert_eq!(a.to_vec()?, (-50..50).collect::<Vec<_>>());
    assert_validation_clean();
    Ok(())
}

#[test]
fn count_compares_as_rust_does() -> Result<(), amp::Error> {
    let mut rng = Rng(11);
    for n in CONTRACT_LENGTHS {
        let ints: Vec<i32> = (0..n).map(|_| rng.range(-3, 4)).collect();
        let v = ArrayView::new([n], &ints)?;
        for value in [-3, 0, 3, 9] {
            let want = ints.iter().filter(|&&x| x == value).count();
            assert_eq!(algorithms::count(&v, value)?, want, "count {value} in {n}");
        }
        let floats = floats_with_specials(&mut rng, n);
        let v = ArrayView::new([n], &floats)?;
        for value in [0.0f32, -0.0, f32::NAN, f32::INFINITY, 1.5] {
            let want = floats.iter().filter(|&&x| x == value).count();
            assert_eq!(
                algorithms::count(&v, value)?,
                want,
                "count {value} in {n} floats"
            );
        }
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn bounds_answer_as_partition_point() -> Result<(), amp::Error> {
    let mut rng = Rng(12);
    for n in CONTRACT_LENGTHS {
        let mut sorted: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000)).collect();
        sorted.sort();
        let m = 5000.min(n + 3);
        let queries: Vec<i32> = (0..m).map(|_| rng.range(-1100, 1100)).collect();
        let (s, q) = (
            ArrayView::new([n], &sorted)?,
            ArrayView::new([m], &queries)?,
        );
        let mut lower = vec![0u32; m];
        let mut upper = vec![0u32; m];
        algorithms::lower_bound(&s, &q, &mut ArrayViewMut::new([m], &mut lower)?)?;
        algorithms::upper_bound(&s, &q, &mut ArrayViewMut::new([m], &mut upper)?)?;
        for (k, &x) in queries.iter().enumerate() {
            assert_eq!(
                lower[k] as usize,
                sorted.partition_point(|&y| y < x),
                "lower {x}"
            );
            assert_eq!(
                upper[k] as usize,
                sorted.partition_point(|&y| y <= x),
                "upper {x}"
            );
        }
        // Floats, both zeros among them: -0.0 and 0.0 compare equal.
        let mut fs: Vec<f32> = (0..n).map(|i| [0.0, -0.0, 1.0, -2.5][i % 4]).collect();
        fs.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let fq = [-0.0f32, 0.0, 1.0, -3.0, 2.0];
        let (s, q) = (ArrayView::new([n], &fs)?, ArrayView::new([5], &fq)?);
        let mut out = [0u32; 5];
        algorithms::lower_bound(&s, &q, &mut ArrayViewMut::new([5], &mut out)?)?;
        for (k, &x) in fq.iter().enumerate() {
            assert_eq!(
                out[k] as usize,
                fs.partition_point(|&y| y < x),
                "f32 lower {x}"
            );
        }
    }
    let (s, q) = ([1, 2], [1, 2, 3]);
    let mut short = [0u32; 2];
    let e = algorithms::lower_bound(
        &ArrayView::new([2], &s)?,
        &ArrayView::new([3], &q)?,
        &mut ArrayViewMut::new([2], &mut short)?,
    )
    .unwrap_err();
    assert!(matches!(e, amp::Error::MismatchedLengths { .. }), "{e}");
    assert_validation_clean();
    Ok(())
}

/// The stable merge, as the host would write it: an element of `b` goes after the equal ones
/// of `a`.
fn host_merge<T: Copy + PartialOrd>(a: &[T], b: &[T]) -> Vec<T> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(a.len() + b.len());
    while i < a.len() && j < b.len() {
        if b[j] < a[i] {
            out.push(b[j]);
            j += 1;
        } else {
            out.push(a[i]);
            i += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[test]
fn merge_is_stable() -> Result<(), amp::Error> {
    let mut rng = Rng(13);
    for n in CONTRACT_LENGTHS {
        let m = n / 2 + 1;
        let mut a: Vec<i32> = (0..n).map(|_| rng.range(-500, 500)).collect();
        let mut b: Vec<i32> = (0..m).map(|_| rng.range(-500, 500)).collect();
        a.sort();
        b.sort();
        let mut out = vec![0; n + m];
        algorithms::merge(
            &ArrayView::new([n], &a)?,
            &ArrayView::new([m], &b)?,
            &mut ArrayViewMut::new([n + m], &mut out)?,
        )?;
        assert_eq!(out, host_merge(&a, &b), "merge of {n} and {m}");
        // Stability shows on the zeros: `a`'s come first.
        let fa: Vec<f32> = (0..n)
            .map(|i| if i < n / 2 { -1.0 } else { -0.0 })
            .collect();
        let fb: Vec<f32> = (0..m).map(|i| if i < m / 2 { 0.0 } else { 2.0 }).collect();
        let mut fo = vec![9.0f32; n + m];
        algorithms::merge(
            &ArrayView::new([n], &fa)?,
            &ArrayView::new([m], &fb)?,
            &mut ArrayViewMut::new([n + m], &mut fo)?,
        )?;
        assert_eq!(
            bits(&fo),
            bits(&host_merge(&fa, &fb)),
            "f32 merge of {n} and {m}"
        );
    }
    let mut small = [0; 3];
    let e = algorithms::merge(
        &ArrayView::new([2], &[1, 2])?,
        &ArrayView::new([2], &[1, 2])?,
        &mut ArrayViewMut::new([3], &mut small)?,
    )
    .unwrap_err();
    assert!(matches!(e, amp::Error::MismatchedLengths { .. }), "{e}");
    assert_validation_clean();
    Ok(())
}

/// The searches take `ceil(log2 n)` halvings whatever the comparisons say: every length
/// around a power of two, with duplicates, every query from below the least to above the
/// greatest, and merges of such lengths.
#[test]
fn searches_agree_at_every_step_count() -> Result<(), amp::Error> {
    let mut rng = Rng(14);
    let lengths: Vec<usize> = (2..=34)
        .chain([63, 64, 65, 127, 128, 129, 1023, 1024, 1025])
        .collect();
    for n in lengths {
        let mut sorted: Vec<i32> = (0..n).map(|_| rng.range(-20, 20)).collect();
        sorted.sort();
        let queries: Vec<i32> = (-22..=22).collect();
        let m = queries.len();
        let (s, q) = (
            ArrayView::new([n], &sorted)?,
            ArrayView::new([m], &queries)?,
        );
        let (mut lower, mut upper) = (vec![0u32; m], vec![0u32; m]);
        algorithms::lower_bound(&s, &q, &mut ArrayViewMut::new([m], &mut lower)?)?;
        algorithms::upper_bound(&s, &q, &mut ArrayViewMut::new([m], &mut upper)?)?;
        for (k, &x) in queries.iter().enumerate() {
            let want = (
                sorted.partition_point(|&y| y < x),
                sorted.partition_point(|&y| y <= x),
            );
            assert_eq!((lower[k] as usize, upper[k] as usize), want, "{x} in {n}");
        }
        let k = n / 3 + 1;
        let mut b: Vec<i32> = (0..k).map(|_| rng.range(-20, 20)).collect();
        b.sort();
        let mut out = vec![0; n + k];
        algorithms::merge(
            &s,
            &ArrayView::new([k], &b)?,
            &mut ArrayViewMut::new([n + k], &mut out)?,
        )?;
        assert_eq!(out, host_merge(&sorted, &b), "merge of {n} and {k}");
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn unique_keeps_one_of_each_run_as_dedup() -> Result<(), amp::Error> {
    let mut rng = Rng(14);
    for n in CONTRACT_LENGTHS {
        let ints: Vec<u32> = (0..n).map(|_| rng.next_u32() % 3).collect();
        let mut want = ints.clone();
        want.dedup();
        let mut out = vec![u32::MAX; n];
        let kept = algorithms::unique(
            &ArrayView::new([n], &ints)?,
            &mut ArrayViewMut::new([n], &mut out)?,
        )?;
        assert_eq!(&out[..kept], &want[..], "unique of {n}");
        assert!(
            out[kept..].iter().all(|&x| x == u32::MAX),
            "the rest is untouched"
        );
        let floats = floats_with_specials(&mut rng, n);
        let mut want = floats.clone();
        want.dedup();
        let mut out = vec![0.0f32; n];
        let kept = algorithms::unique(
            &ArrayView::new([n], &floats)?,
            &mut ArrayViewMut::new([n], &mut out)?,
        )?;
        assert_eq!(bits(&out[..kept]), bits(&want), "f32 unique of {n}");
    }
    let mut small = [0; 1];
    let e = algorithms::unique(
        &ArrayView::new([3], &[1, 2, 3])?,
        &mut ArrayViewMut::new([1], &mut small)?,
    )
    .unwrap_err();
    assert!(
        matches!(e, amp::Error::MismatchedLengths { first: 3, .. }),
        "{e}"
    );
    assert_validation_clean();
    Ok(())
}

#[test]
fn sort_descending_reverses_total_cmp() -> Result<(), amp::Error> {
    let mut rng = Rng(15);
    for n in CONTRACT_LENGTHS {
        let mut ints: Vec<i32> = (0..n).map(|_| rng.next_u32() as i32).collect();
        let mut want = ints.clone();
        want.sort_by(|a, b| b.cmp(a));
        algorithms::sort_descending(&mut ArrayViewMut::new([n], &mut ints)?)?;
        assert_eq!(ints, want, "descending {n}");
        let mut floats = floats_with_specials(&mut rng, n);
        let mut want = floats.clone();
        want.sort_by(|a, b| b.total_cmp(a));
        algorithms::sort_descending(&mut ArrayViewMut::new([n], &mut floats)?)?;
        assert_eq!(bits(&floats), bits(&want), "f32 descending {n}");
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn histogram_counts_equal_width_bins() -> Result<(), amp::Error> {
    let mut rng = Rng(16);
    for n in CONTRACT_LENGTHS {
        // Integers over the whole i32 range: the bins are exact (64-bit products).
        let ints: Vec<i32> = (0..n).map(|_| rng.next_u32() as i32).collect();
        // Up to 1,024 bins per tile in tile_static memory, more in global memory only.
        for (bins, lo, hi) in [
            (7usize, i32::MIN, i32::MAX),
            (256, -1000, 1000),
            (3, 5, 6),
            (5000, -9000, 9000),
        ] {
            let got = algorithms::histogram(&ArrayView::new([n], &ints)?, bins, lo, hi)?;
            let mut want = vec![0u32; bins];
            for &x in ints.iter().filter(|&&x| x >= lo && x < hi) {
                let bin = (x as i64 - lo as i64) * bins as i64 / (hi as i64 - lo as i64);
                want[bin as usize] += 1;
            }
            assert_eq!(got, want, "{bins} i32 bins of [{lo}, {hi}) over {n}");
        }
        // u32 over the whole range and at every bin edge (the native accelerator divides by
        // the width through its reciprocal where the product fits 32 bits).
        let mut words: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
        for (bins, lo, hi) in [
            (1u32, 0u32, u32::MAX),
            (3, 7, 7 + 0x5555_5555),
            (255, 1, 256 * 255 + 1),
            (65_535, 0, 65_537),
            (1000, 12_345, 99_999_999),
            (7, 0, u32::MAX),
        ] {
            let width = u64::from(hi - lo);
            // Edges: the first value of each bin, and the one before it.
            for k in 0..u64::from(bins).min(64) {
                let edge = u64::from(lo) + (k * width).div_ceil(u64::from(bins));
                if let Some(w) = words.get_mut(2 * k as usize..2 * k as usize + 2) {
                    w[0] = edge as u32;
                    w[1] = edge.saturating_sub(1) as u32;
                }
            }
            let got = algorithms::histogram(&ArrayView::new([n], &words)?, bins as usize, lo, hi)?;
            let mut want = vec![0u32; bins as usize];
            for &x in words.iter().filter(|&&x| x >= lo && x < hi) {
                want[(u64::from(x - lo) * u64::from(bins) / width) as usize] += 1;
            }
            assert_eq!(got, want, "{bins} u32 bins of [{lo}, {hi}) over {n}");
        }
        // Floats: NaNs and values outside are not counted.
        let floats = floats_with_specials(&mut rng, n);
        let (bins, lo, hi) = (10usize, -4.0f32, 6.0f32);
        let got = algorithms::histogram(&ArrayView::new([n], &floats)?, bins, lo, hi)?;
        let mut want = vec![0u32; bins];
        for &x in floats.iter().filter(|&&x| x >= lo && x < hi) {
            let bin = (((x - lo) / (hi - lo) * bins as f32) as u32).min(bins as u32 - 1);
            want[bin as usize] += 1;
        }
        assert_eq!(got, want, "f32 bins over {n}");
    }
    let v = ArrayView::new([2], &[1.0f32, 2.0])?;
    for (bins, lo, hi) in [(0, 0.0, 1.0), (4, 1.0, 1.0), (4, f32::NAN, 1.0)] {
        let e = algorithms::histogram(&v, bins, lo, hi).unwrap_err();
        assert!(matches!(e, amp::Error::EmptyInput { .. }), "{e}");
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn gather_and_scatter_move_elements_through_the_map() -> Result<(), amp::Error> {
    let mut rng = Rng(31);
    for n in CONTRACT_LENGTHS {
        // A permutation: gather applies it, scatter undoes it.
        let data = floats_with_specials(&mut rng, n);
        let mut perm: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            perm.swap(i, rng.next_u32() as usize % (i + 1));
        }
        let mut gathered = vec![0.0f32; n];
        algorithms::gather(
            &ArrayView::new([n], &data)?,
            &ArrayView::new([n], &perm)?,
            &mut ArrayViewMut::new([n], &mut gathered)?,
        )?;
        let want: Vec<f32> = perm.iter().map(|&p| data[p as usize]).collect();
        assert_eq!(bits(&gathered), bits(&want), "gather of {n}");
        let mut back = vec![1.0f32; n];
        algorithms::scatter(
            &ArrayView::new([n], &gathered)?,
            &ArrayView::new([n], &perm)?,
            &mut ArrayViewMut::new([n], &mut back)?,
        )?;
        assert_eq!(bits(&back), bits(&data), "scatter of {n}");
    }
    // A table looked up with repeats, and a scatter that leaves unnamed elements alone.
    let table = [5i32, -6, 7];
    let map = [2u32, 2, 0, 1, 0];
    let mut out = [0i32; 5];
    algorithms::gather(
        &ArrayView::new([3], &table)?,
        &ArrayView::new([5], &map)?,
        &mut ArrayViewMut::new([5], &mut out)?,
    )?;
    assert_eq!(out, [7, 7, 5, -6, 5]);
    let mut wide = [9u32; 6];
    algorithms::scatter(
        &ArrayView::new([2], &[1u32, 2])?,
        &ArrayView::new([2], &[4u32, 0])?,
        &mut ArrayViewMut::new([6], &mut wide)?,
    )?;
    assert_eq!(wide, [2, 9, 9, 9, 1, 9]);
    assert_validation_clean();

    // Bad input: typed errors.
    let mut three = [0i32; 3];
    let short = algorithms::gather(
        &ArrayView::new([3], &table)?,
        &ArrayView::new([5], &map)?,
        &mut ArrayViewMut::new([3], &mut three)?,
    );
    assert!(
        matches!(short, Err(amp::Error::MismatchedLengths { .. })),
        "{short:?}"
    );
    let past = algorithms::gather(
        &ArrayView::new([3], &table)?,
        &ArrayView::new([3], &[0u32, 3, 1])?,
        &mut ArrayViewMut::new([3], &mut three)?,
    );
    assert!(
        matches!(past, Err(amp::Error::IndexOutOfBounds { .. })),
        "{past:?}"
    );
    let past = algorithms::scatter(
        &ArrayView::new([3], &table)?,
        &ArrayView::new([3], &[0u32, 7, 1])?,
        &mut ArrayViewMut::new([3], &mut three)?,
    );
    assert!(
        matches!(past, Err(amp::Error::IndexOutOfBounds { .. })),
        "{past:?}"
    );
    assert_validation_clean();
    Ok(())
}
