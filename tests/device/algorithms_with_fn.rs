//! The algorithms that take a user's `#[amp::device]` function (`reduce!`, `transform!`,
//! `transform_reduce!`, `count_if!`, `copy_if!`, `partition!`, `reduce_by_key!`,
//! `inclusive_scan!`, `exclusive_scan!`) against the
//! same operations in host Rust: lengths 0, 1, around the blocks (8,192 elements per reduction
//! block, 32 per `reduce_by_key` chunk), a few million, views of host data and of arrays, a
//! non-commutative operator, NaN and signed zeros, and the typed errors.

use crate::common;
use common::{assert_validation_clean, Rng};

use amp::algorithms;
use amp::prelude::*;

const LENGTHS: [usize; 7] = [0, 1, 31, 33, 8191, 8193, 3 * 8192 * 32 + 77];
const MILLIONS: usize = 3_000_017;

/// Device functions of the tests, in a module of their own: the macros reach them by path.
mod ops {
    use amp::prelude::*;

    /// The larger magnitude, the first of equal ones.
    #[amp::device]
    pub fn max_abs(a: f32, b: f32) -> f32 {
        if a.abs() >= b.abs() {
            a
        } else {
            b
        }
    }

    /// The first non-zero: associative, not commutative.
    #[amp::device]
    pub fn first_nonzero(a: i32, b: i32) -> i32 {
        if a != 0 {
            a
        } else {
            b
        }
    }

    /// Wrapping `u32` sum.
    #[amp::device]
    pub fn add(a: u32, b: u32) -> u32 {
        a + b
    }

    /// The larger, for every scalar type: a generic device function, instantiated by the
    /// macro's kernel for its element type.
    #[amp::device]
    pub fn larger<T: DeviceScalar>(a: T, b: T) -> T {
        a.max(b)
    }

    /// `f64` sum.
    #[amp::device]
    pub fn add_f64(a: f64, b: f64) -> f64 {
        a + b
    }

    /// `f32` minimum, as `f32::min` (NaNs passed over).
    #[amp::device]
    pub fn fmin(a: f32, b: f32) -> f32 {
        a.min(b)
    }

    /// The square of `x`, widened.
    #[amp::device]
    pub fn square(x: f32) -> f64 {
        (x as f64) * (x as f64)
    }

    /// `x mod 10`.
    #[amp::device]
    pub fn digit(x: u32) -> u32 {
        x % 10
    }

    /// Whether `x`'s last decimal digit is below 5.
    #[amp::device]
    pub fn digit_is_small(x: u32) -> bool {
        digit(x) < 5
    }

    /// Whether `x` is negative (a NaN is not; `-0.0` is not).
    #[amp::device]
    pub fn negative(x: f32) -> bool {
        x < 0.0
    }

    /// Whether `x` is a multiple of 3.
    #[amp::device]
    pub fn by_three(x: i32) -> bool {
        x % 3 == 0
    }

    /// The composition of two affine maps of `u16` (`x -> m * x + c`, packed as `m << 16 | c`):
    /// first `f`, then `g`. Associative, not commutative, and with no identity among the
    /// values the tests draw (odd `m`).
    #[amp::device]
    pub fn then(f: u32, g: u32) -> u32 {
        let (m1, c1) = (f >> 16, f & 0xffff);
        let (m2, c2) = (g >> 16, g & 0xffff);
        let m = (m1 * m2) & 0xffff;
        let c = (c1 * m2 + c2) & 0xffff;
        (m << 16) | c
    }

    /// `(x as f32) * 0.5`.
    #[amp::device]
    pub fn half(x: i32) -> f32 {
        x as f32 * 0.5
    }
}

fn ints(rng: &mut Rng, n: usize, modulus: u32) -> Vec<i32> {
    (0..n).map(|_| (rng.next_u32() % modulus) as i32).collect()
}

#[test]
fn reduce_matches_the_host() {
    let mut rng = Rng(11);
    for n in LENGTHS.into_iter().chain([MILLIONS]) {
        let data: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
        let v = ArrayView::new([n], &data).unwrap();
        let expected = data.iter().fold(5u32, |a, &b| a.wrapping_add(b));
        let got = algorithms::reduce!(u32, &v, 5, ops::add).unwrap();
        assert_eq!(got, expected, "u32 sum of {n}");

        // Mostly zeros: the first non-zero must be the first in order, not any.
        let sparse: Vec<i32> = (0..n)
            .map(|_| match rng.next_u32() % 5000 {
                0 => rng.next_u32() as i32 | 1,
                _ => 0,
            })
            .collect();
        let array = Array::from_slice([n], &sparse).unwrap();
        let expected = sparse.iter().copied().find(|&x| x != 0).unwrap_or(0);
        let got = algorithms::reduce!(i32, &array.view(), 0, ops::first_nonzero).unwrap();
        assert_eq!(got, expected, "first non-zero of {n}");
        let largest = algorithms::reduce!(i32, &array.view(), i32::MIN, ops::larger).unwrap();
        assert_eq!(largest, sparse.iter().copied().fold(i32::MIN, Ord::max));

        let floats: Vec<f32> = (0..n)
            .map(|_| (rng.next_u32() % 2001) as f32 - 1000.0)
            .collect();
        let v = ArrayView::new([n], &floats).unwrap();
        let expected = floats
            .iter()
            .fold(0.5f32, |a, &b| if a.abs() >= b.abs() { a } else { b });
        let got = algorithms::reduce!(f32, &v, 0.5, ops::max_abs).unwrap();
        assert_eq!(got.to_bits(), expected.to_bits(), "max_abs of {n}");
    }
    assert_validation_clean();
}

#[test]
fn scans_with_an_operator_match_the_host() {
    let mut rng = Rng(17);
    for n in LENGTHS.into_iter().chain([8192, 8192 * 2, MILLIONS]) {
        let maps: Vec<u32> = (0..n).map(|_| rng.next_u32() | 0x1_0000).collect();
        let input = ArrayView::new([n], &maps).unwrap();
        let mut out = vec![0u32; n];
        algorithms::inclusive_scan!(
            u32,
            &input,
            &mut ArrayViewMut::new([n], &mut out).unwrap(),
            ops::then
        )
        .unwrap();
        let mut run = None;
        for (i, &f) in maps.iter().enumerate() {
            let next = run.map_or(f, |r| ops::then(r, f));
            run = Some(next);
            assert_eq!(out[i], next, "inclusive, {i} of {n}");
        }
        let init = 0x0003_0007;
        let mut out = vec![0u32; n];
        algorithms::exclusive_scan!(
            u32,
            &input,
            &mut ArrayViewMut::new([n], &mut out).unwrap(),
            init,
            ops::then
        )
        .unwrap();
        let mut run = init;
        for (i, &f) in maps.iter().enumerate() {
            assert_eq!(out[i], run, "exclusive, {i} of {n}");
            run = ops::then(run, f);
        }
        // A generic operator, on an array's view.
        let values = ints(&mut rng, n, 1000);
        let array = Array::from_slice([n], &values).unwrap();
        let mut out = Array::<i32, 1>::new([n]).unwrap();
        algorithms::inclusive_scan!(i32, &array.view(), &mut out.view_mut(), ops::larger).unwrap();
        let got = out.to_vec().unwrap();
        let mut best = i32::MIN;
        for (i, &v) in values.iter().enumerate() {
            best = best.max(v);
            assert_eq!(got[i], best, "running maximum, {i} of {n}");
        }
    }
    let short = [1u32, 2];
    let mut long = [0u32; 3];
    let r = algorithms::inclusive_scan!(
        u32,
        &ArrayView::new([2], &short).unwrap(),
        &mut ArrayViewMut::new([3], &mut long).unwrap(),
        ops::add
    );
    assert!(mismatch(r));
    assert_validation_clean();
}

/// `reduce!`, `transform_reduce!`, `count_if!`, `transform!` and the scans take contiguous
/// views of any rank, in row-major order; a section with gaps is a typed error naming the
/// macro.
#[test]
fn the_shape_free_macros_take_views_of_any_rank() {
    let (rows, cols) = (37, 129);
    let data: Vec<u32> = (0..rows * cols).map(|i| (i * 7 % 1000) as u32).collect();
    let grid = ArrayView::new([rows, cols], &data).unwrap();
    let sum = data.iter().fold(5u32, |a, &b| a.wrapping_add(b));
    assert_eq!(algorithms::reduce!(u32, &grid, 5, ops::add).unwrap(), sum);
    let small = data.iter().filter(|&&x| x % 10 < 5).count();
    assert_eq!(
        algorithms::count_if!(u32, &grid, ops::digit_is_small).unwrap(),
        small
    );
    let digits = data.iter().fold(0u32, |a, &b| a.wrapping_add(b % 10));
    assert_eq!(
        algorithms::transform_reduce!(u32, &grid, ops::digit, 0, ops::add).unwrap(),
        digits
    );
    let mut out = vec![0u32; rows * cols];
    algorithms::transform!(
        u32,
        &grid,
        &mut ArrayViewMut::new([rows, cols], &mut out).unwrap(),
        ops::digit
    )
    .unwrap();
    assert!(out.iter().zip(&data).all(|(&o, &d)| o == d % 10));
    algorithms::inclusive_scan!(
        u32,
        &grid,
        &mut ArrayViewMut::new([rows, cols], &mut out).unwrap(),
        ops::add
    )
    .unwrap();
    let mut run = 0u32;
    for (i, &d) in data.iter().enumerate() {
        run = run.wrapping_add(d);
        assert_eq!(out[i], run, "rank-2 inclusive_scan!, element {i}");
    }
    let section = grid.section([0, 1], [2, 2]).unwrap();
    let mut four = [0u32; 4];
    match algorithms::exclusive_scan!(
        u32,
        &section,
        &mut ArrayViewMut::new([2, 2], &mut four).unwrap(),
        0,
        ops::add
    ) {
        Err(amp::Error::NotContiguous { operation, .. }) => {
            assert_eq!(operation, "exclusive_scan!")
        }
        other => panic!("expected NotContiguous, got {other:?}"),
    }
    match algorithms::reduce!(u32, &section, 0, ops::add) {
        Err(amp::Error::NotContiguous { operation, .. }) => assert_eq!(operation, "reduce!"),
        other => panic!("expected NotContiguous, got {other:?}"),
    }
    assert_validation_clean();
}

#[test]
fn reduce_passes_nans_over_and_keeps_signed_zeros() {
    let mut data = vec![f32::NAN; 10_000];
    data[7777] = -0.0;
    let v = ArrayView::new([data.len()], &data).unwrap();
    let got = algorithms::reduce!(f32, &v, f32::NAN, ops::fmin).unwrap();
    assert_eq!(got.to_bits(), (-0.0f32).to_bits());
    let nans = vec![f32::NAN; 9000];
    let v = ArrayView::new([nans.len()], &nans).unwrap();
    assert!(algorithms::reduce!(f32, &v, f32::NAN, ops::fmin)
        .unwrap()
        .is_nan());
    // `-0.0` first: max_abs keeps the first of equal magnitudes.
    let zeros = [-0.0f32, 0.0, -0.0];
    let v = ArrayView::new([3], &zeros).unwrap();
    let got = algorithms::reduce!(f32, &v, -0.0, ops::max_abs).unwrap();
    assert_eq!(got.to_bits(), (-0.0f32).to_bits());
    assert_validation_clean();
}

#[test]
fn transform_and_transform_reduce_match_the_host() {
    let mut rng = Rng(12);
    for n in LENGTHS.into_iter().chain([MILLIONS]) {
        let data: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
        let mut out = vec![7u32; n];
        algorithms::transform!(
            u32,
            &ArrayView::new([n], &data).unwrap(),
            &mut ArrayViewMut::new([n], &mut out).unwrap(),
            ops::digit
        )
        .unwrap();
        assert!(out.iter().zip(&data).all(|(o, d)| *o == d % 10), "{n}");

        let signed = ints(&mut rng, n, 1000);
        let input = Array::from_slice([n], &signed).unwrap();
        let mut halves = Array::<f32, 1>::new([n]).unwrap();
        algorithms::transform!(i32 => f32, &input.view(), &mut halves.view_mut(), ops::half)
            .unwrap();
        let expected: Vec<f32> = signed.iter().map(|&x| x as f32 * 0.5).collect();
        assert_eq!(halves.to_vec().unwrap(), expected);

        // Squares of small integers in f64: every partial sum exact, in any order.
        let floats: Vec<f32> = (0..n).map(|_| (rng.next_u32() % 100) as f32).collect();
        let v = ArrayView::new([n], &floats).unwrap();
        let got = algorithms::transform_reduce!(f32 => f64, &v, ops::square, 1.0, ops::add_f64);
        if let Some(got) = common::f64_result(got) {
            let expected = floats.iter().map(|&x| (x as f64) * (x as f64)).sum::<f64>() + 1.0;
            assert_eq!(got, expected, "sum of squares of {n}");
        }
        let digits = algorithms::transform_reduce!(
            u32,
            &ArrayView::new([n], &data).unwrap(),
            ops::digit,
            0,
            ops::add
        )
        .unwrap();
        assert_eq!(digits, data.iter().map(|d| d % 10).sum::<u32>());
    }
    assert_validation_clean();
}

#[test]
fn count_if_copy_if_and_partition_match_the_host() {
    let mut rng = Rng(13);
    for n in LENGTHS.into_iter().chain([MILLIONS]) {
        let data = ints(&mut rng, n, 1_000_000);
        let v = ArrayView::new([n], &data).unwrap();
        let expected: Vec<i32> = data.iter().copied().filter(|x| x % 3 == 0).collect();
        assert_eq!(
            algorithms::count_if!(i32, &v, ops::by_three).unwrap(),
            expected.len(),
            "count_if of {n}"
        );

        let mut out = vec![-1i32; n + 1];
        let kept = algorithms::copy_if!(
            i32,
            &v,
            &mut ArrayViewMut::new([n + 1], &mut out).unwrap(),
            ops::by_three
        )
        .unwrap();
        assert_eq!(&out[..kept], &expected[..], "copy_if of {n}");
        assert!(out[kept..].iter().all(|&x| x == -1));

        let mut parts = Array::<i32, 1>::new([n]).unwrap();
        let array = Array::from_slice([n], &data).unwrap();
        let first =
            algorithms::partition!(i32, &array.view(), &mut parts.view_mut(), ops::by_three)
                .unwrap();
        let (mut yes, no): (Vec<i32>, Vec<i32>) = data.iter().partition(|&&x| x % 3 == 0);
        assert_eq!(first, yes.len());
        yes.extend(no);
        assert_eq!(parts.to_vec().unwrap(), yes, "partition of {n}");
    }
    // NaN and -0.0 are not negative; -inf is; every bit is kept.
    let floats = [f32::NAN, -0.0, -1.5, 0.0, f32::NEG_INFINITY, -f32::NAN, 2.0];
    let v = ArrayView::new([7], &floats).unwrap();
    assert_eq!(algorithms::count_if!(f32, &v, ops::negative).unwrap(), 2);
    let mut out = [0.0f32; 7];
    let first = algorithms::partition!(
        f32,
        &v,
        &mut ArrayViewMut::new([7], &mut out).unwrap(),
        ops::negative
    )
    .unwrap();
    assert_eq!(first, 2);
    let bits = |s: &[f32]| s.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let expected = [-1.5, f32::NEG_INFINITY, f32::NAN, -0.0, 0.0, -f32::NAN, 2.0];
    assert_eq!(bits(&out), bits(&expected));
    assert_validation_clean();
}

/// `reduce_by_key` on the host: each run of `==` keys, its first key and its values combined
/// in order.
fn host_reduce_by_key<K: Copy + PartialEq, V: Copy>(
    keys: &[K],
    values: &[V],
    op: impl Fn(V, V) -> V,
) -> (Vec<K>, Vec<V>) {
    let (mut k, mut v) = (Vec::new(), Vec::<V>::new());
    for (i, (&key, &value)) in keys.iter().zip(values).enumerate() {
        if i > 0 && keys[i - 1] == key {
            let last = v.last_mut().unwrap();
            *last = op(*last, value);
        } else {
            k.push(key);
            v.push(value);
        }
    }
    (k, v)
}

#[test]
fn reduce_by_key_matches_the_host() {
    let mut rng = Rng(14);
    // Run lengths: short ones, ones around a chunk, and a run longer than a few chunk levels.
    for (n, longest) in [
        (0, 1),
        (1, 1),
        (31, 3),
        (33, 40),
        (1100, 1100),
        (8193, 70),
        (40_000, 5000),
        // Around the native accelerator's chunks of 4,096: a run ending at a chunk's end,
        // one starting at a chunk's start, runs across whole chunks.
        (4096, 1),
        (4097, 4096),
        (12_289, 9000),
        (MILLIONS, 100),
        (MILLIONS, 1 << 20),
    ] {
        let mut keys = Vec::with_capacity(n);
        let mut key = 0u32;
        while keys.len() < n {
            let run = 1 + rng.next_u32() as usize % longest;
            key = key.wrapping_add(1 + rng.next_u32() % 3);
            keys.extend(std::iter::repeat_n(key % 4, run.min(n - keys.len())));
        }
        // Sparse values: the first non-zero of each run checks the order of combination.
        let values: Vec<i32> = (0..n)
            .map(|_| match rng.next_u32() % 7 {
                0 => rng.next_u32() as i32 | 1,
                _ => 0,
            })
            .collect();
        let (hk, hv) = host_reduce_by_key(&keys, &values, |a, b| if a != 0 { a } else { b });
        let (mut ko, mut vo) = (vec![u32::MAX; n], vec![0i32; n]);
        let runs = algorithms::reduce_by_key!(
            u32,
            i32,
            &ArrayView::new([n], &keys).unwrap(),
            &ArrayView::new([n], &values).unwrap(),
            &mut ArrayViewMut::new([n], &mut ko).unwrap(),
            &mut ArrayViewMut::new([n], &mut vo).unwrap(),
            ops::first_nonzero
        )
        .unwrap();
        assert_eq!(runs, hk.len(), "runs of {n}");
        assert_eq!(&ko[..runs], &hk[..], "keys of {n}");
        assert_eq!(
            &vo[..runs],
            &hv[..],
            "values of {n} (longest run {longest})"
        );
    }
    // Float keys: NaN is a run of its own, -0.0 == 0.0 (the first written).
    let keys = [f32::NAN, f32::NAN, -0.0, 0.0, 1.0, 1.0];
    let values = [1u32, 2, 3, 4, 5, 6];
    let (mut ko, mut vo) = ([0.0f32; 6], [0u32; 6]);
    let runs = algorithms::reduce_by_key!(
        f32,
        u32,
        &ArrayView::new([6], &keys).unwrap(),
        &ArrayView::new([6], &values).unwrap(),
        &mut ArrayViewMut::new([6], &mut ko).unwrap(),
        &mut ArrayViewMut::new([6], &mut vo).unwrap(),
        ops::add
    )
    .unwrap();
    assert_eq!(runs, 4);
    assert!(ko[0].is_nan() && ko[1].is_nan());
    assert_eq!(ko[2].to_bits(), (-0.0f32).to_bits());
    assert_eq!(&vo[..4], &[1, 2, 7, 11]);
    assert_validation_clean();
}

fn mismatch<T>(r: Result<T, amp::Error>) -> bool {
    matches!(r, Err(amp::Error::MismatchedLengths { .. }))
}

#[test]
fn the_function_algorithms_report_typed_errors() {
    let data = [1u32, 2, 3, 4];
    let v = ArrayView::new([4], &data).unwrap();
    let mut short = [0u32; 3];
    let mut s = ArrayViewMut::new([3], &mut short).unwrap();
    assert!(mismatch(algorithms::transform!(
        u32,
        &v,
        &mut s,
        ops::digit
    )));
    assert!(mismatch(algorithms::partition!(
        u32,
        &v,
        &mut s,
        ops::digit_is_small
    )));
    assert!(mismatch(algorithms::copy_if!(
        u32,
        &v,
        &mut s,
        ops::digit_is_small
    )));
    let mut ko = [0u32; 4];
    let mut k = ArrayViewMut::new([4], &mut ko).unwrap();
    assert!(mismatch(algorithms::reduce_by_key!(
        u32,
        u32,
        &v,
        &ArrayView::new([3], &data[..3]).unwrap(),
        &mut k,
        &mut s,
        ops::add
    )));
    // Four runs do not fit three values.
    assert!(mismatch(algorithms::reduce_by_key!(
        u32,
        u32,
        &v,
        &v,
        &mut k,
        &mut s,
        ops::add
    )));
    // Empty inputs: `init`, zero, nothing written.
    let none: [u32; 0] = [];
    let e = ArrayView::new([0], &none).unwrap();
    assert_eq!(algorithms::reduce!(u32, &e, 9, ops::add).unwrap(), 9);
    assert_eq!(
        algorithms::count_if!(u32, &e, ops::digit_is_small).unwrap(),
        0
    );
    assert_eq!(
        algorithms::copy_if!(u32, &e, &mut s, ops::digit_is_small).unwrap(),
        0
    );
    assert_validation_clean();
}
