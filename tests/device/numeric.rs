//! Integer division and remainder are defined for every operand on the device: `x / 0` is all
//! ones, `x % 0` is `x`, and `i32::MIN / -1` wraps (docs/kernel-language.md, numeric semantics).
use amp::prelude::*;

#[kernel(amp)]
fn div_rem_i32(
    idx: Index<1>,
    a: ArrayView<i32, 1>,
    b: ArrayView<i32, 1>,
    q: ArrayViewMut<i32, 1>,
    r: ArrayViewMut<i32, 1>,
) {
    q[idx] = a[idx] / b[idx];
    let mut x = a[idx];
    x %= b[idx];
    r[idx] = x;
}

#[kernel(amp)]
fn div_rem_u32(
    idx: Index<1>,
    a: ArrayView<u32, 1>,
    b: ArrayView<u32, 1>,
    q: ArrayViewMut<u32, 1>,
    r: ArrayViewMut<u32, 1>,
) {
    q[idx] = a[idx] / b[idx];
    r[idx] = a[idx] % b[idx];
}

fn expected_i32(a: i32, b: i32) -> (i32, i32) {
    if b == 0 {
        (-1, a)
    } else {
        (a.wrapping_div(b), a.wrapping_rem(b))
    }
}

fn expected_u32(a: u32, b: u32) -> (u32, u32) {
    (
        a.checked_div(b).unwrap_or(u32::MAX),
        a.checked_rem(b).unwrap_or(a),
    )
}

#[test]
fn integer_division_is_defined_everywhere() -> Result<(), amp::Error> {
    let values = [0, 1, -1, 7, -7, 2, -3, i32::MIN, i32::MAX, i32::MIN + 1];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &values {
        for &y in &values {
            a.push(x);
            b.push(y);
        }
    }
    let n = a.len();
    let (mut q, mut r) = (vec![0; n], vec![0; n]);
    {
        let av = ArrayView::new([n], &a)?;
        let bv = ArrayView::new([n], &b)?;
        let mut qv = ArrayViewMut::new([n], &mut q)?;
        let mut rv = ArrayViewMut::new([n], &mut r)?;
        parallel_for_each(av.extent(), div_rem_i32(&av, &bv, &mut qv, &mut rv))?;
    }
    for i in 0..n {
        assert_eq!(
            (q[i], r[i]),
            expected_i32(a[i], b[i]),
            "{} / {}",
            a[i],
            b[i]
        );
    }

    let ua: Vec<u32> = a.iter().map(|&x| x as u32).collect();
    let ub: Vec<u32> = b.iter().map(|&x| x as u32).collect();
    let (mut uq, mut ur) = (vec![0; n], vec![0; n]);
    {
        let av = ArrayView::new([n], &ua)?;
        let bv = ArrayView::new([n], &ub)?;
        let mut qv = ArrayViewMut::new([n], &mut uq)?;
        let mut rv = ArrayViewMut::new([n], &mut ur)?;
        parallel_for_each(av.extent(), div_rem_u32(&av, &bv, &mut qv, &mut rv))?;
    }
    for i in 0..n {
        assert_eq!(
            (uq[i], ur[i]),
            expected_u32(ua[i], ub[i]),
            "{} / {}",
            ua[i],
            ub[i]
        );
    }
    if std::env::var("AMP_VALIDATION").is_ok_and(|v| v == "1") {
        assert!(amp::validation_enabled());
    }
    assert_eq!(amp::validation_message_count(), 0);
    Ok(())
}

#[kernel(amp)]
fn float_bits(
    idx: Index<1>,
    x: ArrayView<f32, 1>,
    bits: ArrayViewMut<u32, 1>,
    back: ArrayViewMut<f32, 1>,
) {
    let b = x[idx].to_bits();
    bits[idx] = b;
    back[idx] = f32::from_bits(f32::to_bits(x[idx]) ^ 0x8000_0000);
}

/// `to_bits`/`from_bits` move the bits as they are: NaN payloads, signed zeros and denormals.
#[test]
fn float_bits_are_exact() {
    let x = [
        0.0f32,
        -0.0,
        1.5,
        -2.25,
        f32::MIN_POSITIVE / 8.0,
        f32::INFINITY,
        f32::from_bits(0x7fc0_1234),
        f32::from_bits(0xffc0_0001),
    ];
    let mut bits = vec![0u32; x.len()];
    let mut back = vec![0f32; x.len()];
    {
        let xv = ArrayView::new([x.len()], &x[..]).unwrap();
        let mut bv = ArrayViewMut::new([x.len()], &mut bits).unwrap();
        let mut fv = ArrayViewMut::new([x.len()], &mut back).unwrap();
        parallel_for_each(xv.extent(), float_bits(&xv, &mut bv, &mut fv)).unwrap();
        bv.synchronize().unwrap();
        fv.synchronize().unwrap();
    }
    for i in 0..x.len() {
        assert_eq!(bits[i], x[i].to_bits(), "element {i}");
        assert_eq!(
            back[i].to_bits(),
            x[i].to_bits() ^ 0x8000_0000,
            "element {i}"
        );
    }
    crate::common::assert_validation_clean();
}

/// Operations per pair in the integer-method kernels.
const INT_METHODS: usize = 20;

// Each thread writes its own consecutive elements (a run per thread, which the lint proves).
#[kernel(amp)]
fn int_methods_i32(
    idx: Index<1>,
    a: ArrayView<i32, 1>,
    b: ArrayView<i32, 1>,
    out: ArrayViewMut<i32, 1>,
) {
    let (x, y) = (a[idx], b[idx]);
    let n = y as u32;
    let i = idx[0] * 20;
    out[i] = x.count_ones() as i32;
    out[i + 1] = x.count_zeros() as i32;
    out[i + 2] = x.leading_zeros() as i32;
    out[i + 3] = x.trailing_zeros() as i32;
    out[i + 4] = x.leading_ones() as i32;
    out[i + 5] = x.trailing_ones() as i32;
    out[i + 6] = x.reverse_bits();
    out[i + 7] = x.swap_bytes();
    out[i + 8] = x.rotate_left(n);
    out[i + 9] = x.rotate_right(n);
    out[i + 10] = x.pow(n % 40);
    out[i + 11] = x.abs_diff(y) as i32;
    out[i + 12] = x.saturating_add(y);
    out[i + 13] = x.saturating_sub(y);
    out[i + 14] = x.rem_euclid(y);
    out[i + 15] = x.div_euclid(y);
    out[i + 16] = x.signum();
    out[i + 17] = x.wrapping_add(y).wrapping_mul(3).wrapping_sub(x);
    out[i + 18] = x.wrapping_neg().wrapping_shl(n);
    out[i + 19] = x.wrapping_pow(n);
}

// Each thread writes its own consecutive elements (a run per thread, which the lint proves).
#[kernel(amp)]
fn int_methods_u32(
    idx: Index<1>,
    a: ArrayView<u32, 1>,
    b: ArrayView<u32, 1>,
    out: ArrayViewMut<u32, 1>,
) {
    let (x, y) = (a[idx], b[idx]);
    let i = idx[0] * 20;
    out[i] = x.count_ones();
    out[i + 1] = x.count_zeros();
    out[i + 2] = x.leading_zeros();
    out[i + 3] = x.trailing_zeros();
    out[i + 4] = x.leading_ones();
    out[i + 5] = x.trailing_ones();
    out[i + 6] = x.reverse_bits();
    out[i + 7] = x.swap_bytes();
    out[i + 8] = x.rotate_left(y);
    out[i + 9] = x.rotate_right(y);
    out[i + 10] = x.pow(y % 40);
    out[i + 11] = x.abs_diff(y);
    out[i + 12] = x.saturating_add(y);
    out[i + 13] = x.saturating_sub(y);
    out[i + 14] = x.rem_euclid(y);
    out[i + 15] = x.div_euclid(y);
    out[i + 16] = if x.is_power_of_two() { 1 } else { 0 };
    out[i + 17] = x.next_power_of_two();
    out[i + 18] = x.wrapping_neg().wrapping_shr(y);
    out[i + 19] = x.wrapping_pow(y);
}

/// What Rust's release build computes for the i32 kernel's row (the kernel's `/` and `%` where
/// Rust panics on a zero divisor).
fn int_methods_i32_host(x: i32, y: i32) -> [i32; INT_METHODS] {
    let n = y as u32;
    let rem = |a: i32, b: i32| if b == 0 { a } else { a.wrapping_rem(b) };
    let div = |a: i32, b: i32| if b == 0 { -1 } else { a.wrapping_div(b) };
    let r = rem(x, y);
    let rem_euclid = if r >= 0 {
        r
    } else if y < 0 {
        r.wrapping_sub(y)
    } else {
        r.wrapping_add(y)
    };
    let q = div(x, y);
    let div_euclid = if r >= 0 {
        q
    } else if y < 0 {
        q.wrapping_add(1)
    } else {
        q.wrapping_sub(1)
    };
    [
        x.count_ones() as i32,
        x.count_zeros() as i32,
        x.leading_zeros() as i32,
        x.trailing_zeros() as i32,
        x.leading_ones() as i32,
        x.trailing_ones() as i32,
        x.reverse_bits(),
        x.swap_bytes(),
        x.rotate_left(n),
        x.rotate_right(n),
        x.wrapping_pow(n % 40),
        x.abs_diff(y) as i32,
        x.saturating_add(y),
        x.saturating_sub(y),
        rem_euclid,
        div_euclid,
        x.signum(),
        x.wrapping_add(y).wrapping_mul(3).wrapping_sub(x),
        x.wrapping_neg().wrapping_shl(n),
        x.wrapping_pow(n),
    ]
}

fn int_methods_u32_host(x: u32, y: u32) -> [u32; INT_METHODS] {
    let next = if x <= 1 {
        1
    } else {
        (u32::MAX >> (x - 1).leading_zeros()).wrapping_add(1)
    };
    [
        x.count_ones(),
        x.count_zeros(),
        x.leading_zeros(),
        x.trailing_zeros(),
        x.leading_ones(),
        x.trailing_ones(),
        x.reverse_bits(),
        x.swap_bytes(),
        x.rotate_left(y),
        x.rotate_right(y),
        x.wrapping_pow(y % 40),
        x.abs_diff(y),
        x.saturating_add(y),
        x.saturating_sub(y),
        x.checked_rem_euclid(y).unwrap_or(x),
        x.checked_div_euclid(y).unwrap_or(u32::MAX),
        u32::from(x.is_power_of_two()),
        next,
        x.wrapping_neg().wrapping_shr(y),
        x.wrapping_pow(y),
    ]
}

/// Rust's integer methods in kernels compute what Rust's release build computes, bit for bit,
/// on edge values and random pairs.
#[test]
fn integer_methods_match_rust() -> Result<(), amp::Error> {
    let edges = [
        0i32,
        1,
        -1,
        2,
        -2,
        3,
        7,
        -7,
        31,
        32,
        33,
        255,
        0x100,
        0x1234_5678,
        i32::MIN,
        i32::MAX,
        i32::MIN + 1,
        1 << 30,
        (1 << 30) + 1,
        -(1 << 30),
    ];
    let mut state = 0x9e37_79b9u32;
    let mut random = || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state as i32
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &edges {
        for &y in &edges {
            a.push(x);
            b.push(y);
        }
    }
    for _ in 0..2000 {
        let (x, y) = (random(), random());
        a.push(x);
        b.push(y >> (x as u32 % 32));
    }
    let n = a.len();
    let mut out = vec![0i32; INT_METHODS * n];
    {
        let av = ArrayView::new([n], &a)?;
        let bv = ArrayView::new([n], &b)?;
        let mut ov = ArrayViewMut::new([INT_METHODS * n], &mut out)?;
        parallel_for_each(av.extent(), int_methods_i32(&av, &bv, &mut ov))?;
        ov.synchronize()?;
    }
    for i in 0..n {
        let want = int_methods_i32_host(a[i], b[i]);
        assert_eq!(
            &out[INT_METHODS * i..INT_METHODS * (i + 1)],
            &want,
            "i32 {} and {}",
            a[i],
            b[i]
        );
    }
    let ua: Vec<u32> = a.iter().map(|&x| x as u32).collect();
    let ub: Vec<u32> = b.iter().map(|&x| x as u32).collect();
    let mut out = vec![0u32; INT_METHODS * n];
    {
        let av = ArrayView::new([n], &ua)?;
        let bv = ArrayView::new([n], &ub)?;
        let mut ov = ArrayViewMut::new([INT_METHODS * n], &mut out)?;
        parallel_for_each(av.extent(), int_methods_u32(&av, &bv, &mut ov))?;
        ov.synchronize()?;
    }
    for i in 0..n {
        let want = int_methods_u32_host(ua[i], ub[i]);
        assert_eq!(
            &out[INT_METHODS * i..INT_METHODS * (i + 1)],
            &want,
            "u32 {} and {}",
            ua[i],
            ub[i]
        );
    }
    let mut out = vec![0u32; 2 * n];
    {
        let av = ArrayView::new([n], &ua)?;
        let bv = ArrayView::new([n], &ub)?;
        let mut ov = ArrayViewMut::new([2 * n], &mut out)?;
        parallel_for_each(av.extent(), rounding_u32(&av, &bv, &mut ov))?;
        ov.synchronize()?;
    }
    for i in 0..n {
        let (x, y) = (ua[i], ub[i]);
        // Rust panics on a zero divisor; the kernel gives its `/` (u32::MAX) and `%` (x) values.
        let want = match y {
            0 => [if x == 0 { u32::MAX } else { 0 }, 0],
            _ => [x.div_ceil(y), x.wrapping_add((y - x % y) % y)],
        };
        assert_eq!(&out[2 * i..2 * i + 2], &want, "u32 {x} and {y}");
    }
    crate::common::assert_validation_clean();
    Ok(())
}

// Each thread writes its own two elements.
#[kernel(amp)]
fn rounding_u32(
    idx: Index<1>,
    a: ArrayView<u32, 1>,
    b: ArrayView<u32, 1>,
    out: ArrayViewMut<u32, 1>,
) {
    let (x, y) = (a[idx], b[idx]);
    out[idx[0] * 2] = x.div_ceil(y);
    out[idx[0] * 2 + 1] = x.next_multiple_of(y);
}

/// Results per input in the direct3d kernel.
const D3D: usize = 16;

// Each thread writes its own consecutive elements (a run per thread, which the lint proves).
#[kernel(amp)]
fn direct3d_functions(
    idx: Index<1>,
    a: ArrayView<i32, 1>,
    f: ArrayView<f32, 1>,
    out: ArrayViewMut<u32, 1>,
) {
    let (x, y) = (a[idx], f[idx]);
    let u = x as u32;
    let i = idx[0] * 16;
    out[i] = direct3d::countbits(u);
    out[i + 1] = direct3d::firstbithigh(x) as u32;
    out[i + 2] = direct3d::firstbitlow(x) as u32;
    out[i + 3] = direct3d::reversebits(u);
    out[i + 4] = direct3d::sign(x) as u32;
    out[i + 5] = direct3d::mad(x, 3, -7) as u32;
    out[i + 6] = direct3d::mad(y, 1.5, -0.25).to_bits();
    out[i + 7] = direct3d::clamp(x, -100, 100) as u32;
    out[i + 8] = direct3d::clamp(y, -1.0, 2.0).to_bits();
    out[i + 9] = direct3d::rcp(y).to_bits();
    out[i + 10] = direct3d::saturate(y).to_bits();
    out[i + 11] = direct3d::smoothstep(-1.0, 3.0, y).to_bits();
    out[i + 12] = direct3d::step(0.5, y).to_bits();
    out[i + 13] = (direct3d::imax(x, 5) ^ direct3d::imin(x, -5)) as u32;
    out[i + 14] = direct3d::umax(u, 77) ^ direct3d::umin(u, 1 << 31);
    out[i + 15] = direct3d::radians(y).to_bits() ^ direct3d::abs(x) as u32;
}

fn direct3d_host(x: i32, y: f32) -> [u32; D3D] {
    use amp::direct3d as d;
    let u = x as u32;
    [
        d::countbits(u),
        d::firstbithigh(x) as u32,
        d::firstbitlow(x) as u32,
        d::reversebits(u),
        d::sign(x) as u32,
        d::mad(x, 3, -7) as u32,
        d::mad(y, 1.5, -0.25).to_bits(),
        d::clamp(x, -100, 100) as u32,
        d::clamp(y, -1.0, 2.0).to_bits(),
        d::rcp(y).to_bits(),
        d::saturate(y).to_bits(),
        d::smoothstep(-1.0, 3.0, y).to_bits(),
        d::step(0.5, y).to_bits(),
        (d::imax(x, 5) ^ d::imin(x, -5)) as u32,
        d::umax(u, 77) ^ d::umin(u, 1 << 31),
        d::radians(y).to_bits() ^ d::abs(x) as u32,
    ]
}

/// C++ AMP's `direct3d` functions compute in kernels what `amp::direct3d` computes on the host,
/// bit for bit (NaN inputs included).
#[test]
fn direct3d_functions_match_the_host() -> Result<(), amp::Error> {
    let ints = [
        0,
        1,
        -1,
        2,
        -2,
        5,
        -5,
        100,
        -101,
        0x1234_5678,
        i32::MIN,
        i32::MAX,
        1 << 31 >> 1,
    ];
    let floats = [
        0.0f32,
        -0.0,
        0.5,
        0.49999997,
        1.0,
        -1.5,
        2.75,
        3.0,
        1e-40,
        f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    let (mut a, mut f) = (Vec::new(), Vec::new());
    for &x in &ints {
        for &y in &floats {
            a.push(x);
            f.push(y);
        }
    }
    let n = a.len();
    let mut out = vec![0u32; D3D * n];
    {
        let av = ArrayView::new([n], &a)?;
        let fv = ArrayView::new([n], &f)?;
        let mut ov = ArrayViewMut::new([D3D * n], &mut out)?;
        parallel_for_each(av.extent(), direct3d_functions(&av, &fv, &mut ov))?;
        ov.synchronize()?;
    }
    for i in 0..n {
        let want = direct3d_host(a[i], f[i]);
        let got = &out[D3D * i..D3D * (i + 1)];
        // A device that flushes denormals computes with a denormal operand as with a zero
        // of its sign (docs/semantics.md).
        let flushed =
            crate::common::flushable32(&[f[i]]).then(|| direct3d_host(a[i], 0.0f32.copysign(f[i])));
        // Result 15 mixes a float's bits into an integer's: its float part, for NaN tests.
        let mixed = amp::direct3d::abs(a[i]) as u32;
        let float_part = |k: usize, b: u32| if k == 15 { b ^ mixed } else { b };
        for k in 0..D3D {
            // NaN results may differ in their payload bits.
            let nan = |b: u32| f32::from_bits(float_part(k, b)).is_nan();
            assert!(
                got[k] == want[k]
                    || (nan(got[k]) && nan(want[k]))
                    || flushed.is_some_and(|w| w[k] == got[k]),
                "result {k} of {} and {:e}: {:#x}, host {:#x}",
                a[i],
                f[i],
                got[k],
                want[k]
            );
        }
    }
    crate::common::assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn strided_copy(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>, stride: usize) {
    out[idx] = a[idx[0] * stride % a.extent()[0]] + stride as u32;
}

/// A `usize` parameter is the kernel's `usize`, with no cast at either end; a host value past
/// what the kernel's 32-bit `usize` holds is refused at launch with a typed error.
#[test]
fn usize_parameters() -> Result<(), amp::Error> {
    let a: Vec<u32> = (0..100).collect();
    let mut out = vec![0u32; 100];
    {
        let av = ArrayView::new([100], &a)?;
        let mut ov = ArrayViewMut::new([100], &mut out)?;
        parallel_for_each(ov.extent(), strided_copy(&av, &mut ov, 7))?;
    }
    let expect: Vec<u32> = (0..100).map(|i| (i * 7 % 100) as u32 + 7).collect();
    assert_eq!(out, expect);
    if usize::BITS > 32 {
        let av = ArrayView::new([100], &a)?;
        let mut ov = ArrayViewMut::new([100], &mut out)?;
        let too_large = u32::MAX as usize + 1;
        match parallel_for_each(ov.extent(), strided_copy(&av, &mut ov, too_large)) {
            Err(amp::Error::ArgumentMismatch { kernel, reason }) => {
                assert_eq!(kernel, "strided_copy");
                assert!(
                    reason.contains("`stride`") && reason.contains("32-bit"),
                    "{reason}"
                );
            }
            other => panic!("expected ArgumentMismatch, got {other:?}"),
        }
    }
    crate::common::assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn abs_of_abs_derived(idx: Index<1>, x: ArrayView<i32, 1>, out: ArrayViewMut<i32, 2>) {
    // `x.abs() >> 3` is negative for `i32::MIN` (whose `abs` wraps to itself); a compiler that
    // takes every `abs` for non-negative drops the `abs` of it.
    let i = idx[0];
    let v = x[i].abs() >> 3;
    let w = v | v.abs().swap_bytes();
    out[[i, 0]] = v.abs();
    out[[i, 1]] = w.abs();
    out[[i, 2]] = (w << w).max(w);
}

fn abs_of_abs_derived_host(x: i32) -> [i32; 3] {
    let v = x.wrapping_abs() >> 3;
    let w = v | v.wrapping_abs().swap_bytes();
    [
        v.wrapping_abs(),
        w.wrapping_abs(),
        w.wrapping_shl(w as u32).max(w),
    ]
}

/// `abs` of a signed integer is Rust's (wrapping) on every device, also of a value derived from
/// another `abs`: the differential tester found `(i32::MIN.abs() >> 3).abs()` left negative on
/// lavapipe, whose compiler counts `GLSL.std.450`'s `SAbs` as never negative.
#[test]
fn integer_abs_of_a_value_derived_from_an_abs_is_rusts() -> Result<(), amp::Error> {
    let x = [i32::MIN, i32::MIN + 1, -8, -1, 0, 7, i32::MAX];
    let n = x.len();
    let mut out = vec![0i32; 3 * n];
    {
        let xv = ArrayView::new([n], &x)?;
        let mut ov = ArrayViewMut::new([n, 3], &mut out)?;
        parallel_for_each(xv.extent(), abs_of_abs_derived(&xv, &mut ov))?;
    }
    for (i, &v) in x.iter().enumerate() {
        assert_eq!(out[3 * i..3 * i + 3], abs_of_abs_derived_host(v), "x = {v}");
    }
    Ok(())
}
