//! Numeric semantics on the device against Rust's release-mode behaviour, one test per case of
//! docs/semantics.md. Integer division and remainder by zero and `i32::MIN / -1` are in
//! tests/device/numeric.rs.

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

/// Edge values of `i32` (also read as `u32`).
const EDGES: [i32; 10] = [
    0,
    1,
    -1,
    2,
    7,
    -7,
    i32::MAX,
    i32::MIN,
    i32::MIN + 1,
    0x4000_0000,
];

// Each thread writes its own consecutive elements (idx * k + j), which the race checker proves.
#[kernel(amp)]
fn wrapping_ops(
    idx: Index<1>,
    a: ArrayView<i32, 1>,
    b: ArrayView<i32, 1>,
    out: ArrayViewMut<i32, 1>,
    uout: ArrayViewMut<u32, 1>,
) {
    let (x, y) = (a[idx], b[idx]);
    let i = idx[0] * 4;
    out[i] = x + y;
    out[i + 1] = x - y;
    out[i + 2] = x * y;
    out[i + 3] = -x;
    let (u, v) = (x as u32, y as u32);
    uout[i] = u + v;
    uout[i + 1] = u - v;
    uout[i + 2] = u * v;
    uout[i + 3] = (x as u32) / 3 + (u as i32) as u32;
}

fn pairs() -> (Vec<i32>, Vec<i32>) {
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in &EDGES {
        for &y in &EDGES {
            a.push(x);
            b.push(y);
        }
    }
    (a, b)
}

/// `+ - *` and negation wrap on `i32` and `u32`, as Rust's release builds.
#[test]
fn integer_overflow_wraps() -> Result<(), amp::Error> {
    let (a, b) = pairs();
    let n = a.len();
    let (mut out, mut uout) = (vec![0i32; 4 * n], vec![0u32; 4 * n]);
    {
        let (av, bv) = (ArrayView::new([n], &a)?, ArrayView::new([n], &b)?);
        let mut ov = ArrayViewMut::new([4 * n], &mut out)?;
        let mut uv = ArrayViewMut::new([4 * n], &mut uout)?;
        parallel_for_each(av.extent(), wrapping_ops(&av, &bv, &mut ov, &mut uv))?;
    }
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let (u, v) = (x as u32, y as u32);
        let want = [
            x.wrapping_add(y),
            x.wrapping_sub(y),
            x.wrapping_mul(y),
            x.wrapping_neg(),
        ];
        assert_eq!(out[4 * i..4 * i + 4], want, "{x}, {y}");
        let uwant = [
            u.wrapping_add(v),
            u.wrapping_sub(v),
            u.wrapping_mul(v),
            (u / 3).wrapping_add(u),
        ];
        assert_eq!(uout[4 * i..4 * i + 4], uwant, "{u}, {v}");
    }
    assert_validation_clean();
    Ok(())
}

// Each thread writes its own consecutive elements (idx * k + j), which the race checker proves.
#[kernel(amp)]
fn shifts(
    idx: Index<1>,
    a: ArrayView<i32, 1>,
    s: ArrayView<u32, 1>,
    out: ArrayViewMut<i32, 1>,
    uout: ArrayViewMut<u32, 1>,
) {
    let (x, k) = (a[idx], s[idx]);
    let i = idx[0] * 2;
    out[i] = x << k;
    out[i + 1] = x >> k;
    uout[i] = (x as u32) << k;
    uout[i + 1] = (x as u32) >> k;
}

/// Shift amounts of the width or more are taken modulo 32 (`wrapping_shl` / `wrapping_shr`);
/// `>>` is arithmetic on `i32`, logical on `u32`.
#[test]
fn shifts_by_the_width_or_more_wrap_the_amount() -> Result<(), amp::Error> {
    let amounts = [0u32, 1, 5, 31, 32, 33, 63, 64, 100, u32::MAX];
    let (mut a, mut s) = (Vec::new(), Vec::new());
    for &x in &EDGES {
        for &k in &amounts {
            a.push(x);
            s.push(k);
        }
    }
    let n = a.len();
    let (mut out, mut uout) = (vec![0i32; 2 * n], vec![0u32; 2 * n]);
    {
        let (av, sv) = (ArrayView::new([n], &a)?, ArrayView::new([n], &s)?);
        let mut ov = ArrayViewMut::new([2 * n], &mut out)?;
        let mut uv = ArrayViewMut::new([2 * n], &mut uout)?;
        parallel_for_each(av.extent(), shifts(&av, &sv, &mut ov, &mut uv))?;
    }
    for i in 0..n {
        let (x, k) = (a[i], s[i]);
        assert_eq!(
            out[2 * i..2 * i + 2],
            [x.wrapping_shl(k), x.wrapping_shr(k)],
            "{x} by {k}"
        );
        let u = x as u32;
        assert_eq!(
            uout[2 * i..2 * i + 2],
            [u.wrapping_shl(k), u.wrapping_shr(k)],
            "{u} by {k}"
        );
    }
    assert_validation_clean();
    Ok(())
}

// Each thread writes its own consecutive elements (idx * k + j), which the race checker proves.
#[kernel(amp)]
fn float_to_int(
    idx: Index<1>,
    a: ArrayView<f32, 1>,
    d: ArrayView<f64, 1>,
    out: ArrayViewMut<i32, 1>,
    uout: ArrayViewMut<u32, 1>,
) {
    let i = idx[0] * 2;
    out[i] = a[idx] as i32;
    out[i + 1] = d[idx] as i32;
    uout[i] = a[idx] as u32;
    uout[i + 1] = d[idx] as u32;
}

/// Float-to-integer `as` truncates, saturates at the bounds and turns NaN into 0, exactly as
/// Rust's `as` (SPIR-V leaves out-of-range conversions undefined).
#[test]
fn float_to_int_casts_saturate() -> Result<(), amp::Error> {
    let d = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.0,
        0.99,
        -0.99,
        -1.5,
        2147483647.0,
        2147483647.9,
        2147483648.0,
        -2147483648.0,
        -2147483649.0,
        4294967295.0,
        4294967296.0,
        1e20,
        -1e20,
        3.0e9,
        123.75,
    ];
    let a: Vec<f32> = d.iter().map(|&x| x as f32).collect();
    let n = d.len();
    let (mut out, mut uout) = (vec![0i32; 2 * n], vec![0u32; 2 * n]);
    {
        let (av, dv) = (ArrayView::new([n], &a)?, ArrayView::new([n], &d)?);
        let mut ov = ArrayViewMut::new([2 * n], &mut out)?;
        let mut uv = ArrayViewMut::new([2 * n], &mut uout)?;
        parallel_for_each(av.extent(), float_to_int(&av, &dv, &mut ov, &mut uv))?;
    }
    for i in 0..n {
        assert_eq!(
            out[2 * i..2 * i + 2],
            [a[i] as i32, d[i] as i32],
            "{}",
            d[i]
        );
        assert_eq!(
            uout[2 * i..2 * i + 2],
            [a[i] as u32, d[i] as u32],
            "{}",
            d[i]
        );
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn signed_zeros(idx: Index<1>, z: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    // z = [0.0, 1.0, -1.0]; read from memory so nothing is folded at compile time.
    let (zero, one, minus_one) = (z[[0]], z[[1]], z[[2]]);
    let v = [
        zero * minus_one,
        -zero,
        minus_one * zero + zero * minus_one,
        one / (zero * minus_one),
        (zero * minus_one).abs(),
        (zero * minus_one).sqrt(),
        (zero * minus_one).floor(),
        (-0.25 * one).round(),
    ];
    out[idx] = v[idx[0]];
}

/// `-0.0` comes out of the operations that make it in Rust and survives `abs`, `sqrt`, rounding.
#[test]
fn negative_zero_is_preserved() -> Result<(), amp::Error> {
    let z = [0.0f32, 1.0, -1.0];
    let mut out = vec![1.0f32; 8];
    {
        let zv = ArrayView::new([3], &z)?;
        let mut ov = ArrayViewMut::new([8], &mut out)?;
        parallel_for_each(ov.extent(), signed_zeros(&zv, &mut ov))?;
    }
    let (zero, one, m1) = (z[0], z[1], z[2]);
    let want = [
        zero * m1,
        -zero,
        m1 * zero + zero * m1,
        one / (zero * m1),
        (zero * m1).abs(),
        (zero * m1).sqrt(),
        (zero * m1).floor(),
        (-0.25 * one).round(),
    ];
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&out), bits(&want), "{out:?} vs {want:?}");
    assert_validation_clean();
    Ok(())
}

/// Every thread stores to one element of each view: the stores all threads make to one
/// element (a flag) are skipped natively where the element already holds the value, word by
/// word, so what is left must still be the value's exact bits.
#[kernel(amp, allow(write_conflict))]
fn one_element_stores(
    idx: Index<1>,
    zero: &mut Array<f32, 1>,
    pair: &mut Array<Float2, 1>,
    bytes: &mut Array<u8, 1>,
    flag: &mut Array<u32, 1>,
) {
    zero[0] = -0.0;
    pair[0] = Float2::new(1.0, 5.0);
    bytes[1] = 3u8;
    if idx[0] % 97 == 5 {
        flag[0] = 1;
    }
}

/// A flag every thread may set, `-0.0` over `0.0`, a vector whose first word already matches
/// and a byte between others: each element ends with the stored bits, its neighbours as they
/// were.
#[test]
fn stores_of_every_thread_to_one_element_keep_the_bits() -> Result<(), amp::Error> {
    let n = 4096;
    let mut zero = Array::<f32, 1>::from_slice([2], &[0.0, 0.0])?;
    let mut pair = Array::<Float2, 1>::from_slice([1], &[Float2::new(1.0, 2.0)])?;
    let mut bytes = Array::<u8, 1>::from_slice([4], &[7, 9, 11, 13])?;
    let mut flag = Array::<u32, 1>::from_slice([1], &[0])?;
    parallel_for_each(
        Extent::new([n]),
        one_element_stores(&mut zero, &mut pair, &mut bytes, &mut flag),
    )?;
    let zero = zero.to_vec()?;
    assert_eq!(
        zero.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        [(-0.0f32).to_bits(), 0]
    );
    let pair = pair.to_vec()?[0];
    assert_eq!(
        (pair.x.to_bits(), pair.y.to_bits()),
        (1.0f32.to_bits(), 5.0f32.to_bits())
    );
    assert_eq!(bytes.to_vec()?, [7, 3, 11, 13]);
    assert_eq!(flag.to_vec()?, [1]);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn denormals(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let (tiny, one, half) = (a[[0]], a[[1]], a[[2]]);
    let v = [
        tiny * one,
        tiny * half,
        tiny + tiny,
        f32::MIN_POSITIVE * half,
        tiny / one,
    ];
    out[idx] = v[idx[0]];
}

/// Denormals: amp-rs requests neither `DenormPreserve` nor `DenormFlushToZero` (lavapipe
/// supports neither execution mode), so Vulkan lets a device flush them. Lavapipe computes
/// them exactly (IEEE), which this test asserts on it; any other device must at least give
/// either the exact value or a zero of the right sign.
#[test]
fn denormals_are_exact_or_flushed() -> Result<(), amp::Error> {
    let tiny = 1.0e-40f32;
    let a = [tiny, 1.0, 0.5];
    let mut out = vec![0.0f32; 5];
    {
        let av = ArrayView::new([3], &a)?;
        let mut ov = ArrayViewMut::new([5], &mut out)?;
        parallel_for_each(ov.extent(), denormals(&av, &mut ov))?;
    }
    let want = [tiny, tiny * 0.5, tiny + tiny, f32::MIN_POSITIVE * 0.5, tiny];
    let lavapipe = amp::Accelerator::default()?.name().contains("llvmpipe");
    for (g, w) in out.iter().zip(want) {
        let flushed = *g == 0.0 && g.is_sign_negative() == w.is_sign_negative();
        if lavapipe {
            assert_eq!(g.to_bits(), w.to_bits(), "{out:?} vs {want:?}");
        } else {
            assert!(g.to_bits() == w.to_bits() || flushed, "{out:?} vs {want:?}");
        }
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn literals(idx: Index<1>, out: ArrayViewMut<f32, 1>, dout: ArrayViewMut<f64, 1>) {
    let v = [
        0.1f32,
        16777217.0f32,
        3.4028235e38f32,
        1.0e-45f32,
        0.333333343267f32,
        2.5e-39,
    ];
    out[idx] = v[idx[0]];
    let d = [
        0.1f64,
        1.0e-310,
        9007199254740993.0,
        1.7976931348623157e308,
        0.2,
        3.0,
    ];
    dout[idx] = d[idx[0]];
}

/// Float literals are rounded once from their digits (to nearest, ties to even), as rustc does,
/// denormal literals included.
#[test]
fn float_literals_round_like_rustc() -> Result<(), amp::Error> {
    let mut out = vec![0.0f32; 6];
    let mut dout = vec![0.0f64; 6];
    {
        let mut ov = ArrayViewMut::new([6], &mut out)?;
        let mut dv = ArrayViewMut::new([6], &mut dout)?;
        parallel_for_each(ov.extent(), literals(&mut ov, &mut dv))?;
    }
    let want = [
        0.1f32,
        16777217.0f32,
        3.4028235e38f32,
        1.0e-45f32,
        0.333_333_34_f32,
        2.5e-39,
    ];
    let dwant = [0.1f64, 1.0e-310, 9007199254740993.0, f64::MAX, 0.2, 3.0];
    for (g, w) in out.iter().zip(want) {
        assert_eq!(g.to_bits(), w.to_bits(), "{g:e} vs {w:e}");
    }
    for (g, w) in dout.iter().zip(dwant) {
        assert_eq!(g.to_bits(), w.to_bits(), "{g:e} vs {w:e}");
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn nan_compare(
    idx: Index<1>,
    a: ArrayView<f32, 1>,
    b: ArrayView<f32, 1>,
    out: ArrayViewMut<u32, 1>,
) {
    let (x, y) = (a[idx], b[idx]);
    let bits = [
        x == y,
        x != y,
        x < y,
        x <= y,
        x > y,
        x >= y,
        !(x < y),
        x.is_nan(),
    ];
    let mut r = 0u32;
    for k in 0..8 {
        if bits[k] {
            r |= 1 << k;
        }
    }
    out[idx] = r;
}

/// Every ordered comparison with a NaN is false and `!=` is true, as IEEE and Rust.
// `!(x < y)` is the point: it differs from `x >= y` exactly for NaN.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
#[test]
fn nan_comparisons_are_false() -> Result<(), amp::Error> {
    let values = [f32::NAN, 1.0, -0.0, 0.0, f32::INFINITY];
    let (a, b) = all_pairs(&values);
    let n = a.len();
    let mut out = vec![0u32; n];
    {
        let (av, bv) = (ArrayView::new([n], &a)?, ArrayView::new([n], &b)?);
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(av.extent(), nan_compare(&av, &bv, &mut ov))?;
    }
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let bits = [
            x == y,
            x != y,
            x < y,
            x <= y,
            x > y,
            x >= y,
            !(x < y),
            x.is_nan(),
        ];
        let want = bits
            .iter()
            .enumerate()
            .fold(0u32, |r, (k, &b)| r | (u32::from(b) << k));
        assert_eq!(out[i], want, "{x} vs {y}");
    }
    assert_validation_clean();
    Ok(())
}

// Each thread writes its own consecutive elements (idx * k + j), which the race checker proves.
#[kernel(amp)]
fn min_max(idx: Index<1>, a: ArrayView<f32, 1>, b: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let (x, y) = (a[idx], b[idx]);
    let i = idx[0] * 4;
    out[i] = x.min(y);
    out[i + 1] = x.max(y);
    out[i + 2] = fast_math::fmin(x, y);
    out[i + 3] = x.clamp(-1.0, 1.0);
}

/// `min` / `max` return the other operand when one is NaN (Rust's `f32::min`, C's `fmin`);
/// `clamp` keeps a NaN `x`.
#[test]
fn min_max_ignore_nan() -> Result<(), amp::Error> {
    let values = [f32::NAN, 1.0, -2.0, 5.0, f32::NEG_INFINITY];
    let (a, b) = all_pairs(&values);
    let n = a.len();
    let mut out = vec![0.0f32; 4 * n];
    {
        let (av, bv) = (ArrayView::new([n], &a)?, ArrayView::new([n], &b)?);
        let mut ov = ArrayViewMut::new([4 * n], &mut out)?;
        parallel_for_each(av.extent(), min_max(&av, &bv, &mut ov))?;
    }
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let want = [x.min(y), x.max(y), x.min(y), x.clamp(-1.0, 1.0)];
        for (g, w) in out[4 * i..4 * i + 4].iter().zip(want) {
            assert!(g == &w || g.is_nan() && w.is_nan(), "{x}, {y}: {g} vs {w}");
        }
    }
    assert_validation_clean();
    Ok(())
}

// Each thread writes its own consecutive elements (idx * k + j), which the race checker proves.
#[kernel(amp)]
fn multiply_add(
    idx: Index<1>,
    a: ArrayView<f32, 1>,
    b: ArrayView<f32, 1>,
    c: ArrayView<f32, 1>,
    out: ArrayViewMut<f32, 1>,
) {
    out[[idx[0] * 2]] = a[idx] * b[idx] - c[idx];
    out[[idx[0] * 2 + 1]] = a[idx].mul_add(b[idx], -c[idx]);
}

/// `a * b - c` rounds the product first (no contraction into a fused multiply-add, which would
/// give the product's rounding error instead of 0); `mul_add` is the fused one.
#[test]
fn no_fused_multiply_add_unless_asked() -> Result<(), amp::Error> {
    let x = 1.0 + f32::EPSILON;
    let rounded = x * x;
    let a = vec![x; 64];
    let c = vec![rounded; 64];
    let mut out = vec![1.0f32; 128];
    {
        let (av, cv) = (ArrayView::new([64], &a)?, ArrayView::new([64], &c)?);
        let mut ov = ArrayViewMut::new([128], &mut out)?;
        parallel_for_each(av.extent(), multiply_add(&av, &av, &cv, &mut ov))?;
    }
    for pair in out.chunks(2) {
        assert_eq!(pair[0], x * x - rounded);
        assert_eq!(pair[0], 0.0);
        assert_eq!(pair[1], x.mul_add(x, -rounded));
        assert_eq!(pair[1], f32::EPSILON * f32::EPSILON);
    }
    assert_validation_clean();
    Ok(())
}

/// Every ordered pair `(x, y)` of `values`, as two parallel vectors.
fn all_pairs(values: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let a = values
        .iter()
        .flat_map(|&x| values.iter().map(move |_| x))
        .collect();
    let b = values.iter().flat_map(|_| values.iter().copied()).collect();
    (a, b)
}
