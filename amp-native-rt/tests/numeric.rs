//! The integer and float helpers, against the values docs/semantics.md gives and, where a
//! helper promises Rust's (or C's) semantics, against that definition bit for bit.

use amp_native_rt::{div_i32, div_u32, ix, m32, m64, norm, rem_i32, rem_u32, unorm};

/// Bit-exact equality, any NaN equal to any NaN.
fn same32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}
fn same64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

const F32S: [f32; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    3.75,
    1e-40,
    -1e-40,
    f32::MIN_POSITIVE,
    f32::MAX,
    f32::MIN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    1e30,
];

#[test]
fn integer_division_is_defined_everywhere() {
    assert_eq!(div_i32(7, 0), -1);
    assert_eq!(div_i32(0, 0), -1);
    assert_eq!(div_i32(i32::MIN, -1), i32::MIN);
    assert_eq!(div_i32(-7, 2), -3, "truncates toward zero");
    assert_eq!(rem_i32(7, 0), 7);
    assert_eq!(rem_i32(i32::MIN, 0), i32::MIN);
    assert_eq!(rem_i32(i32::MIN, -1), 0);
    assert_eq!(rem_i32(-7, 2), -1, "the sign of the dividend");
    assert_eq!(div_u32(7, 0), u32::MAX);
    assert_eq!(div_u32(u32::MAX, 2), u32::MAX / 2);
    assert_eq!(rem_u32(7, 0), 7);
    assert_eq!(rem_u32(7, 3), 1);
    for (a, b) in [(100, 7), (-100, 7), (100, -7), (-100, -7), (i32::MAX, 3)] {
        assert_eq!(div_i32(a, b), a / b);
        assert_eq!(rem_i32(a, b), a % b);
    }
}

#[test]
fn local_array_indices_clamp_to_the_last_element() {
    assert_eq!(ix(0, 4), 0);
    assert_eq!(ix(3, 4), 3);
    assert_eq!(ix(4, 4), 3);
    assert_eq!(ix(u32::MAX, 4), 3);
    assert_eq!(ix(5, 1), 0);
}

#[test]
fn norm_and_unorm_clamp_as_the_host_types() {
    assert_eq!(norm(f32::NAN).to_bits(), 0.0f32.to_bits());
    assert_eq!(unorm(f32::NAN).to_bits(), 0.0f32.to_bits());
    assert_eq!(norm(-0.0).to_bits(), (-0.0f32).to_bits(), "-0.0 stays");
    assert_eq!(norm(2.0), 1.0);
    assert_eq!(norm(f32::NEG_INFINITY), -1.0);
    assert_eq!(unorm(-0.5), 0.0);
    assert_eq!(unorm(f32::INFINITY), 1.0);
    for x in F32S.into_iter().filter(|x| !x.is_nan()) {
        assert!(same32(norm(x), x.clamp(-1.0, 1.0)), "{x}");
        assert!(same32(unorm(x), x.clamp(0.0, 1.0)), "{x}");
    }
}

#[test]
fn clamp_is_rusts_without_the_panic() {
    for x in F32S {
        for (lo, hi) in [(0.0, 1.0), (-0.0, 0.0), (-1.0, -0.5), (f32::MIN, f32::MAX)] {
            assert!(
                same32(m32::clamp(x, lo, hi), x.clamp(lo, hi)),
                "{x} {lo} {hi}"
            );
            let (x, lo, hi) = (x as f64, lo as f64, hi as f64);
            assert!(
                same64(m64::clamp(x, lo, hi), x.clamp(lo, hi)),
                "{x} {lo} {hi}"
            );
        }
    }
    // `-0.0` against a `0.0` bound keeps its sign, as Rust's clamp.
    assert_eq!(m32::clamp(-0.0, 0.0, 1.0).to_bits(), (-0.0f32).to_bits());
    // Bounds Rust's clamp panics on: the upper one wins.
    assert_eq!(m32::clamp(5.0, 3.0, 1.0), 1.0);
    assert_eq!(m32::clamp(0.0, 3.0, 1.0), 1.0);
    assert!(m32::clamp(0.5, f32::NAN, 1.0) == 0.5);
}

#[test]
fn reciprocals_and_exp10() {
    assert_eq!(m32::rsqrt(4.0), 0.5);
    assert_eq!(m32::rsqrt(0.0), f32::INFINITY);
    assert_eq!(m32::rsqrt(-0.0), f32::NEG_INFINITY);
    assert!(m32::rsqrt(-1.0).is_nan());
    assert_eq!(m64::rcp(4.0), 0.25);
    assert_eq!(m64::rcp(-0.0), f64::NEG_INFINITY);
    assert_eq!(m32::exp10(2.0), 100.0);
    assert_eq!(m64::exp10(3.0), 1000.0);
    assert_eq!(m64::exp10(0.0), 1.0);
    assert!(m32::exp10(f32::NAN).is_nan());
}

#[test]
fn fdim_is_cs() {
    assert_eq!(m32::fdim(3.0, 1.0), 2.0);
    assert_eq!(m32::fdim(1.0, 3.0).to_bits(), 0.0f32.to_bits());
    assert_eq!(m64::fdim(-1.0, -1.0).to_bits(), 0.0f64.to_bits());
    assert!(m32::fdim(f32::NAN, 1.0).is_nan());
    assert!(m64::fdim(1.0, f64::NAN).is_nan());
    assert_eq!(m32::fdim(f32::INFINITY, 1.0), f32::INFINITY);
}

#[test]
fn ldexp_rounds_once() {
    for x in [1.0f32, 1.5, -3.0, 0.7, 1e-40, f32::MAX, f32::MIN_POSITIVE] {
        for k in -330..330 {
            // The exact product in f64, rounded to f32 once.
            let exact = (x as f64 * 2f64.powi(k)) as f32;
            assert!(same32(m32::ldexp(x, k), exact), "ldexp({x:e}, {k})");
        }
    }
    assert_eq!(m32::ldexp(1.0, i32::MAX), f32::INFINITY);
    assert_eq!(m32::ldexp(1.0, i32::MIN).to_bits(), 0.0f32.to_bits());
    assert_eq!(m32::ldexp(-0.0, 5).to_bits(), (-0.0f32).to_bits());
    assert!(m32::ldexp(f32::NAN, 1).is_nan());
    assert_eq!(m64::ldexp(1.0, -1074), f64::from_bits(1));
    assert_eq!(m64::ldexp(1.5, 1023), 1.5 * 2f64.powi(1023));
    // 1.5 units of the last place, rounded once (to even): 2 units.
    assert_eq!(m64::ldexp(0.75, -1073), f64::from_bits(2));
    assert_eq!(m64::ldexp(f64::MAX, -2200).to_bits(), 0.0f64.to_bits());
}

#[test]
fn frexp_splits_into_a_mantissa_in_half_to_one_and_an_exponent() {
    assert_eq!(
        (m32::frexp_mantissa(8.0), m32::frexp_exponent(8.0)),
        (0.5, 4)
    );
    assert_eq!(
        (m64::frexp_mantissa(-3.0), m64::frexp_exponent(-3.0)),
        (-0.75, 2)
    );
    for x in [
        1e-40f32,
        f32::from_bits(1),
        0.3,
        -7e20,
        f32::MAX,
        f32::MIN_POSITIVE,
    ] {
        let (m, e) = (m32::frexp_mantissa(x), m32::frexp_exponent(x));
        assert!((0.5..1.0).contains(&m.abs()), "{x:e}: {m}");
        assert_eq!(m.is_sign_negative(), x.is_sign_negative());
        assert_eq!(m as f64 * 2f64.powi(e), x as f64, "{x:e}");
    }
    let (m, e) = (m64::frexp_mantissa(5e-324), m64::frexp_exponent(5e-324));
    assert_eq!((m, e), (0.5, -1073));
    // Zeros, infinities and NaN are their own mantissa, with exponent 0.
    for x in [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
        assert!(same32(m32::frexp_mantissa(x), x));
        assert_eq!(m32::frexp_exponent(x), 0);
    }
}

#[test]
fn modf_keeps_the_sign_on_both_parts() {
    assert_eq!((m32::modf_frac(-2.5), m32::modf_int(-2.5)), (-0.5, -2.0));
    assert_eq!(m32::modf_frac(-3.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!(m32::modf_frac(3.0).to_bits(), 0.0f32.to_bits());
    assert_eq!(m64::modf_frac(-0.0).to_bits(), (-0.0f64).to_bits());
    assert_eq!(
        m64::modf_frac(f64::NEG_INFINITY).to_bits(),
        (-0.0f64).to_bits()
    );
    assert_eq!(m64::modf_int(f64::INFINITY), f64::INFINITY);
    assert!(m32::modf_frac(f32::NAN).is_nan() && m32::modf_int(f32::NAN).is_nan());
    for x in F32S {
        let (f, i) = (m32::modf_frac(x), m32::modf_int(x));
        if x.is_finite() {
            assert_eq!(f + i, x, "{x:e}");
        }
    }
}

/// The distance in ulps between two finite floats of one sign.
fn ulps64(a: f64, b: f64) -> u64 {
    a.to_bits().abs_diff(b.to_bits())
}

#[test]
fn acosh_and_atanh_edges_and_accuracy() {
    assert_eq!(m32::acosh(1.0).to_bits(), 0.0f32.to_bits());
    assert!(m32::acosh(0.5).is_nan() && m64::acosh(f64::NAN).is_nan());
    assert_eq!(m64::acosh(f64::INFINITY), f64::INFINITY);
    assert_eq!(m32::atanh(0.0).to_bits(), 0.0f32.to_bits());
    assert_eq!(m32::atanh(-0.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!(m64::atanh(1.0), f64::INFINITY);
    assert_eq!(m64::atanh(-1.0), f64::NEG_INFINITY);
    assert!(m32::atanh(2.0).is_nan() && m32::atanh(f32::NAN).is_nan());
    // The f32 helpers against std's f64 result rounded to f32 (3 ulp is the device's bound),
    // the f64 ones against std's (which loses up to ~15 ulp near 1).
    for i in 1..=200 {
        let x = 1.0 + i as f32 / 200.0;
        let ulp = m32::acosh(x)
            .to_bits()
            .abs_diff(((x as f64).acosh() as f32).to_bits());
        assert!(ulp <= 3, "acosh({x}): {ulp} ulp");
        let x = x as f64;
        assert!(ulps64(m64::acosh(x), x.acosh()) <= 16, "acosh({x})");
        let t = i as f32 / 201.0;
        let ulp = m32::atanh(t)
            .to_bits()
            .abs_diff(((t as f64).atanh() as f32).to_bits());
        assert!(ulp <= 3, "atanh({t}): {ulp} ulp");
        let t = t as f64;
        assert!(ulps64(m64::atanh(t), t.atanh()) <= 16, "atanh({t})");
    }
}

#[test]
fn nextafter_is_cs() {
    for x in [1.0f32, -1.0, 0.5, 1e-40, -3e38, f32::MIN_POSITIVE] {
        assert_eq!(m32::nextafter(x, f32::INFINITY), x.next_up(), "{x:e} up");
        assert_eq!(
            m32::nextafter(x, f32::NEG_INFINITY),
            x.next_down(),
            "{x:e} down"
        );
        let x = x as f64;
        assert_eq!(m64::nextafter(x, 2e300), x.next_up(), "{x:e} up");
        assert_eq!(m64::nextafter(x, -2e300), x.next_down(), "{x:e} down");
    }
    assert_eq!(m32::nextafter(0.0, 1.0), f32::from_bits(1));
    assert_eq!(m32::nextafter(0.0, -1.0), -f32::from_bits(1));
    assert_eq!(m32::nextafter(-0.0, 1.0), f32::from_bits(1));
    assert_eq!(m32::nextafter(f32::MAX, f32::INFINITY), f32::INFINITY);
    // Equal arguments give `y`: `-0.0` towards `0.0` is `0.0`.
    assert_eq!(m32::nextafter(-0.0, 0.0).to_bits(), 0.0f32.to_bits());
    assert_eq!(m64::nextafter(2.0, 2.0), 2.0);
    assert!(m32::nextafter(1.0, f32::NAN).is_nan() && m64::nextafter(f64::NAN, 1.0).is_nan());
}

/// Every rounding helper (`floor`, `ceil`, `trunc`, `round`, `round_ties_even`) gives std's
/// result bit for bit, any NaN for a NaN: the edge cases, a Weyl sequence over the bit
/// patterns, and values near small integers and halves, where the rounding decisions are.
#[test]
fn rounding_helpers_match_std() {
    macro_rules! check {
        ($m:ident, $t:ident, $same:ident, $bits:ident, $weyl:expr, $edges:expr) => {{
            let mut xs: Vec<$t> = $edges.to_vec();
            for i in 0..200_000 as $bits {
                xs.push(<$t>::from_bits(i.wrapping_mul($weyl)));
                xs.push((i % 4096) as $t / 64.0 - 32.0);
            }
            for &x in &xs {
                assert!($same($m::trunc(x), x.trunc()), "trunc({x:e})");
                assert!($same($m::floor(x), x.floor()), "floor({x:e})");
                assert!($same($m::ceil(x), x.ceil()), "ceil({x:e})");
                assert!($same($m::round(x), x.round()), "round({x:e})");
                let even = x.round_ties_even();
                assert!($same($m::round_ties_even(x), even), "rte({x:e})");
            }
        }};
    }
    let edges32 = [
        0.0f32,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.49999997,
        -0.49999997,
        8_388_607.5,
        -8_388_607.5,
        8_388_608.0,
        -8_388_609.0,
        4_194_303.5,
        2_147_483_648.0,
        1e-45,
    ];
    check!(
        m32,
        f32,
        same32,
        u32,
        0x9E37_79B9,
        [&edges32[..], &F32S[..]].concat()
    );
    let edges64 = [
        0.0f64,
        -0.0,
        0.5,
        -0.5,
        2.5,
        -2.5,
        0.49999999999999994,
        4_503_599_627_370_495.5,
        -4_503_599_627_370_495.5,
        f64::INFINITY,
        f64::NAN,
        f64::MAX,
    ];
    check!(m64, f64, same64, u64, 0x9E37_79B9_7F4A_7C15, edges64);
}
