//! The kernel math library on the device against Rust's std on the CPU: every function on
//! random inputs in its domain, within the accuracy Vulkan guarantees for `GLSL.std.450`
//! (docs/math.md gives the bounds and the errors measured here; run with `--nocapture` to see
//! them).
use amp::prelude::*;

fn ulps(a: f32, b: f32) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    let key = |x: f32| {
        let i = x.to_bits() as i32;
        if i < 0 {
            i64::from(i32::MIN) - i64::from(i)
        } else {
            i64::from(i)
        }
    };
    key(a).abs_diff(key(b))
}

/// Deterministic inputs spread over `[lo, hi]`, plus the ends.
fn inputs(lo: f32, hi: f32, n: usize) -> Vec<f32> {
    let mut state = 0x2545_f491_u32;
    let mut v: Vec<f32> = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            lo + (hi - lo) * (state as f32 / u32::MAX as f32)
        })
        .collect();
    v.extend([lo, hi]);
    v
}

macro_rules! unary {
    ($($kernel:ident => |$x:ident| $body:expr;)*) => {$(
        #[kernel(amp)]
        fn $kernel(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
            let $x = a[idx];
            out[idx] = $body;
        }
    )*};
}

unary! {
    k_sqrt => |x| x.sqrt();
    k_rsqrt => |x| fast_math::rsqrt(x);
    k_sin => |x| x.sin();
    k_cos => |x| x.cos();
    k_tan => |x| x.tan();
    k_asin => |x| x.asin();
    k_acos => |x| x.acos();
    k_atan => |x| x.atan();
    k_sinh => |x| x.sinh();
    k_cosh => |x| x.cosh();
    k_tanh => |x| x.tanh();
    k_asinh => |x| x.asinh();
    k_acosh => |x| x.acosh();
    k_atanh => |x| x.atanh();
    k_exp => |x| x.exp();
    k_exp2 => |x| x.exp2();
    k_exp10 => |x| fast_math::exp10(x);
    k_expm1 => |x| x.exp_m1();
    k_ln => |x| x.ln();
    k_log2 => |x| x.log2();
    k_log10 => |x| x.log10();
    k_ln1p => |x| x.ln_1p();
    k_floor => |x| x.floor();
    k_ceil => |x| x.ceil();
    k_round => |x| x.round();
    k_trunc => |x| x.trunc();
    k_fract => |x| x.fract();
    k_cbrt => |x| x.cbrt();
    k_recip => |x| x.recip();
    k_signum => |x| x.signum();
    k_degrees => |x| x.to_degrees();
    k_clamp => |x| x.clamp(-0.5, 0.75);
    k_pow => |x| x.powf(3.0);
    k_pow_frac => |x| precise_math::pow(x, 0.5);
    k_hypot => |x| x.hypot(2.5);
    k_fma => |x| x.mul_add(3.0, -1.0);
    k_fmod => |x| fast_math::fmod(x, 1.5);
    k_copysign => |x| (2.0f32).copysign(x);
    k_fdim => |x| fast_math::fdim(x, 0.25);
    k_classify => |x| if x.is_nan() { 1.0 } else if x.is_infinite() { 2.0 } else if x.is_finite() { 3.0 } else { 4.0 };
}

/// How close a device result must be: Vulkan's bound for the instruction, or for the formula
/// the function is written with.
enum Bound {
    Exact,
    Ulp(u64),
    Abs(f32),
    Rel(f32),
    /// Within an absolute or a relative error (formulas with cancellation near zero).
    Either(f32, f32),
}

type Launch = for<'a> fn(
    &'a ArrayView<'_, f32, 1>,
    &'a mut ArrayViewMut<'_, f32, 1>,
) -> amp::KernelCall<'a, 1>;

fn check(
    name: &str,
    launch: Launch,
    reference: fn(f32) -> f32,
    lo: f32,
    hi: f32,
    bound: Bound,
) -> Result<(u64, f32), amp::Error> {
    let a = inputs(lo, hi, 4000);
    let mut out = vec![0.0f32; a.len()];
    {
        let av = ArrayView::new([a.len()], &a)?;
        let mut ov = ArrayViewMut::new([a.len()], &mut out)?;
        parallel_for_each(av.extent(), launch(&av, &mut ov))?;
    }
    let (mut worst_ulp, mut worst_abs) = (0u64, 0.0f32);
    for (&x, &got) in a.iter().zip(&out) {
        let want = reference(x);
        let (u, d) = (ulps(got, want), (got - want).abs());
        worst_ulp = worst_ulp.max(u);
        if d.is_finite() {
            worst_abs = worst_abs.max(d);
        }
        let ok = match bound {
            Bound::Exact => u == 0,
            Bound::Ulp(n) => u <= n,
            Bound::Abs(e) => d <= e || u == 0,
            Bound::Rel(r) => d <= r * want.abs().max(1e-30) || u <= 4,
            Bound::Either(e, r) => d <= e || d <= r * want.abs(),
        };
        assert!(
            ok,
            "{name}({x}) = {got} on the device, {want} in Rust ({u} ulp)"
        );
    }
    println!("{name:<12} max {worst_ulp:>9} ulp   max abs error {worst_abs:.3e}");
    Ok((worst_ulp, worst_abs))
}

#[test]
fn math_matches_std() -> Result<(), amp::Error> {
    use std::f32::consts::PI;
    use Bound::*;
    check("sqrt", k_sqrt, f32::sqrt, 0.0, 1e6, Ulp(3))?;
    check("rsqrt", k_rsqrt, |x| 1.0 / x.sqrt(), 1e-3, 1e6, Ulp(4))?;
    // sin, cos and tan are amp-rs's own (Vulkan bounds the device's only absolutely): within
    // 1, 1 and 2 ULP everywhere (docs/math.md).
    check("sin", k_sin, f32::sin, -PI, PI, Ulp(1))?;
    check("cos", k_cos, f32::cos, -PI, PI, Ulp(1))?;
    check("tan", k_tan, f32::tan, -1.4, 1.4, Ulp(2))?;
    check("sin, wide", k_sin, f32::sin, -1e6, 1e6, Ulp(1))?;
    check("cos, wide", k_cos, f32::cos, -1e6, 1e6, Ulp(1))?;
    check("tan, wide", k_tan, f32::tan, -1e6, 1e6, Ulp(2))?;
    check("sin, huge", k_sin, f32::sin, -1.5e38, 1.5e38, Ulp(1))?;
    check("cos, huge", k_cos, f32::cos, -1.5e38, 1.5e38, Ulp(1))?;
    check("tan, huge", k_tan, f32::tan, -1.5e38, 1.5e38, Ulp(2))?;
    // Near zero the result is as small as the argument: Vulkan's absolute error bound would
    // allow anything there, amp-rs promises a few ULP (NVIDIA's `tan(1.3e-5)` was 0.56% off).
    check("sin, small", k_sin, f32::sin, -0.0625, 0.0625, Ulp(2))?;
    check("tan, small", k_tan, f32::tan, -0.0625, 0.0625, Ulp(2))?;
    check("sin, tiny", k_sin, f32::sin, -1e-5, 1e-5, Ulp(1))?;
    check("tan, tiny", k_tan, f32::tan, -1e-5, 1e-5, Ulp(1))?;
    check("asin", k_asin, f32::asin, -1.0, 1.0, Abs(1e-3))?;
    check("acos", k_acos, f32::acos, -1.0, 1.0, Abs(1e-3))?;
    check("atan", k_atan, f32::atan, -100.0, 100.0, Abs(1e-3))?;
    check("sinh", k_sinh, f32::sinh, -10.0, 10.0, Rel(1e-3))?;
    check("cosh", k_cosh, f32::cosh, -10.0, 10.0, Rel(1e-3))?;
    check("tanh", k_tanh, f32::tanh, -10.0, 10.0, Abs(1e-3))?;
    check("asinh", k_asinh, f32::asinh, -100.0, 100.0, Rel(1e-3))?;
    check("acosh", k_acosh, f32::acosh, 1.0, 100.0, Abs(1e-3))?;
    check("atanh", k_atanh, f32::atanh, -0.99, 0.99, Rel(1e-3))?;
    check("exp", k_exp, f32::exp, -80.0, 80.0, Rel(1e-4))?;
    check("exp2", k_exp2, f32::exp2, -100.0, 100.0, Rel(1e-4))?;
    check("exp10", k_exp10, |x| 10f32.powf(x), -30.0, 30.0, Rel(1e-4))?;
    check(
        "exp_m1",
        k_expm1,
        f32::exp_m1,
        -5.0,
        5.0,
        Either(1e-6, 1e-5),
    )?;
    check("ln", k_ln, f32::ln, 1e-6, 1e6, Either(1e-6, 1e-5))?;
    check("log2", k_log2, f32::log2, 1e-6, 1e6, Either(1e-6, 1e-5))?;
    check("log10", k_log10, f32::log10, 1e-6, 1e6, Either(1e-6, 1e-5))?;
    check("ln_1p", k_ln1p, f32::ln_1p, -0.5, 100.0, Either(1e-6, 1e-5))?;
    check("floor", k_floor, f32::floor, -1e4, 1e4, Exact)?;
    check("ceil", k_ceil, f32::ceil, -1e4, 1e4, Exact)?;
    check("round", k_round, f32::round, -1e4, 1e4, Exact)?;
    check("round.5", k_round, f32::round, -2.5, 2.5, Exact)?;
    check("trunc", k_trunc, f32::trunc, -1e4, 1e4, Exact)?;
    check("fract", k_fract, f32::fract, -1e4, 1e4, Exact)?;
    check("cbrt", k_cbrt, f32::cbrt, -1e6, 1e6, Rel(1e-4))?;
    check("recip", k_recip, f32::recip, 1e-3, 1e6, Ulp(3))?;
    check("signum", k_signum, f32::signum, -3.0, 3.0, Exact)?;
    check(
        "to_degrees",
        k_degrees,
        f32::to_degrees,
        -10.0,
        10.0,
        Ulp(2),
    )?;
    check("clamp", k_clamp, |x| x.clamp(-0.5, 0.75), -2.0, 2.0, Exact)?;
    check("powf 3", k_pow, |x| x.powf(3.0), -50.0, 50.0, Rel(1e-4))?;
    check("pow 0.5", k_pow_frac, |x| x.powf(0.5), -4.0, 1e4, Rel(1e-4))?;
    check("hypot", k_hypot, |x| x.hypot(2.5), -1e3, 1e3, Ulp(4))?;
    check(
        "mul_add",
        k_fma,
        |x| x.mul_add(3.0, -1.0),
        -1e3,
        1e3,
        Ulp(1),
    )?;
    check("fmod", k_fmod, |x| x % 1.5, -100.0, 100.0, Abs(1e-4))?;
    check(
        "copysign",
        k_copysign,
        |x| 2f32.copysign(x),
        -1.0,
        1.0,
        Exact,
    )?;
    check(
        "fdim",
        k_fdim,
        |x| if x > 0.25 { x - 0.25 } else { 0.0 },
        -1.0,
        1.0,
        Exact,
    )?;
    let classify = |x: f32| {
        if x.is_nan() {
            1.0
        } else if x.is_infinite() {
            2.0
        } else {
            3.0
        }
    };
    check("is_*", k_classify, classify, -1e38, 1e38, Exact)?;
    if std::env::var("AMP_VALIDATION").is_ok_and(|v| v == "1") {
        assert!(amp::validation_enabled());
    }
    assert_eq!(amp::validation_message_count(), 0);
    Ok(())
}

#[kernel(amp)]
fn specials(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let v = [
        nan.powf(0.0),
        (-2.0f32).powf(3.0),
        (-2.0f32).powf(0.5),
        (0.0f32).powf(-1.0),
        (0.0f32).powf(2.0),
        (-0.0f32).signum(),
        nan.clamp(0.0, 1.0),
        (-inf).copysign(1.0),
    ];
    out[idx] = v[idx[0]];
}

/// The cases GLSL leaves undefined and Rust defines.
#[test]
fn special_cases_follow_rust() -> Result<(), amp::Error> {
    let mut out = vec![0.0f32; 8];
    {
        let mut ov = ArrayViewMut::new([8], &mut out)?;
        parallel_for_each(ov.extent(), specials(&mut ov))?;
    }
    let want = [
        1.0,
        -8.0,
        f32::NAN,
        f32::INFINITY,
        0.0,
        -1.0,
        f32::NAN,
        f32::INFINITY,
    ];
    for (g, w) in out.iter().zip(want) {
        assert!(ulps(*g, w) == 0, "{out:?} vs {want:?}");
    }
    Ok(())
}

// ----- frexp, ldexp, modf, sincos, nextafter (f32) -----

#[kernel(amp)]
fn k_pairs(
    idx: Index<1>,
    a: ArrayView<f32, 1>,
    mant: ArrayViewMut<f32, 1>,
    expo: ArrayViewMut<i32, 1>,
    frac: ArrayViewMut<f32, 1>,
    whole: ArrayViewMut<f32, 1>,
    s: ArrayViewMut<f32, 1>,
    c: ArrayViewMut<f32, 1>,
    scaled: ArrayViewMut<f32, 1>,
    next: ArrayViewMut<f32, 1>,
) {
    let x = a[idx];
    let (m, e) = precise_math::frexp(x);
    mant[idx] = m;
    expo[idx] = e;
    let (f, w) = fast_math::modf(x);
    frac[idx] = f;
    whole[idx] = w;
    let (sx, cx) = x.sin_cos();
    s[idx] = sx;
    c[idx] = cx;
    scaled[idx] = precise_math::ldexp(x, idx[0] as i32 % 300 - 150);
    next[idx] = fast_math::nextafter(x, 1.0);
}

/// C's `frexp` (Rust's std has none): `x = m 2^e`, `0.5 <= |m| < 1`; `(x, 0)` for 0, inf, NaN.
fn frexp_ref(x: f32) -> (f32, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let e = x.abs().log2().floor() as i32 + 1;
    let m = (f64::from(x) / 2f64.powi(e)) as f32;
    if m.abs() >= 1.0 {
        (m / 2.0, e + 1)
    } else if m.abs() < 0.5 {
        (m * 2.0, e - 1)
    } else {
        (m, e)
    }
}

fn ldexp_ref(x: f32, e: i32) -> f32 {
    (f64::from(x) * 2f64.powi(e)) as f32
}

fn nextafter_ref(x: f32, y: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    if x == y {
        return y;
    }
    if x == 0.0 {
        return f32::from_bits(1).copysign(y);
    }
    let bits = x.to_bits();
    f32::from_bits(if (x < y) == (x > 0.0) {
        bits + 1
    } else {
        bits - 1
    })
}

#[test]
fn frexp_ldexp_modf_sincos_nextafter() -> Result<(), amp::Error> {
    let mut a = inputs(-1e4, 1e4, 1000);
    a.extend(inputs(-1e-3, 1e-3, 200));
    a.extend([
        0.0,
        -0.0,
        1.0,
        -2.0,
        0.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MAX,
        f32::MIN_POSITIVE,
        3.5e-39,
        -1.0e-45,
    ]);
    let n = a.len();
    let (mut mant, mut expo, mut frac, mut whole) =
        (vec![0f32; n], vec![0i32; n], vec![0f32; n], vec![0f32; n]);
    let (mut s, mut c, mut scaled, mut next) =
        (vec![0f32; n], vec![0f32; n], vec![0f32; n], vec![0f32; n]);
    {
        let av = ArrayView::new([n], &a)?;
        let mut m = ArrayViewMut::new([n], &mut mant)?;
        let mut ev = ArrayViewMut::new([n], &mut expo)?;
        let mut f = ArrayViewMut::new([n], &mut frac)?;
        let mut w = ArrayViewMut::new([n], &mut whole)?;
        let mut sv = ArrayViewMut::new([n], &mut s)?;
        let mut cv = ArrayViewMut::new([n], &mut c)?;
        let mut sc = ArrayViewMut::new([n], &mut scaled)?;
        let mut nx = ArrayViewMut::new([n], &mut next)?;
        let (m, f, w, sv, cv, sc, nx) =
            (&mut m, &mut f, &mut w, &mut sv, &mut cv, &mut sc, &mut nx);
        parallel_for_each(av.extent(), k_pairs(&av, m, &mut ev, f, w, sv, cv, sc, nx))?;
    }
    for (i, &x) in a.iter().enumerate() {
        let (rm, re) = frexp_ref(x);
        assert!(
            ulps(mant[i], rm) == 0 && expo[i] == re,
            "frexp({x:e}) = ({}, {}), want ({rm}, {re})",
            mant[i],
            expo[i]
        );
        let rw = x.trunc();
        let rf = if x.is_infinite() {
            0.0f32.copysign(x)
        } else {
            (x - rw).copysign(x)
        };
        assert!(
            ulps(whole[i], rw) == 0
                && ulps(frac[i], rf) == 0
                && frac[i].is_sign_negative() == rf.is_sign_negative(),
            "modf({x:e}) = ({}, {}), want ({rf}, {rw})",
            frac[i],
            whole[i]
        );
        if x.abs() <= std::f32::consts::PI {
            assert!(
                (s[i] - x.sin()).abs() <= 2f32.powi(-11)
                    && (c[i] - x.cos()).abs() <= 2f32.powi(-11),
                "sin_cos({x})"
            );
        }
        let e = i as i32 % 300 - 150;
        assert!(
            ulps(scaled[i], ldexp_ref(x, e)) == 0
                || crate::common::flushable32(&[x, ldexp_ref(x, e)]),
            "ldexp({x:e}, {e}) = {:e}, want {:e}",
            scaled[i],
            ldexp_ref(x, e)
        );
        assert!(
            ulps(next[i], nextafter_ref(x, 1.0)) == 0,
            "nextafter({x:e}, 1) = {:e}",
            next[i]
        );
    }
    assert_eq!(amp::validation_message_count(), 0);
    Ok(())
}

// ----- f64 (precise_math) -----

fn ulps64(a: f64, b: f64) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    let key = |x: f64| {
        let i = x.to_bits() as i64;
        if i < 0 {
            i128::from(i64::MIN) - i128::from(i)
        } else {
            i128::from(i)
        }
    };
    key(a).abs_diff(key(b)) as u64
}

fn inputs64(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut v: Vec<f64> = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            lo + (hi - lo) * ((state >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect();
    v.extend([lo, hi]);
    v
}

macro_rules! unary64 {
    ($($kernel:ident => |$x:ident| $body:expr;)*) => {$(
        #[kernel(amp)]
        fn $kernel(idx: Index<1>, a: ArrayView<f64, 1>, out: ArrayViewMut<f64, 1>) {
            let $x = a[idx];
            out[idx] = $body;
        }
    )*};
}

unary64! {
    d_exp => |x| x.exp();
    d_exp2 => |x| x.exp2();
    d_exp10 => |x| precise_math::exp10(x);
    d_expm1 => |x| x.exp_m1();
    d_ln => |x| x.ln();
    d_log2 => |x| x.log2();
    d_log10 => |x| x.log10();
    d_ln1p => |x| x.ln_1p();
    d_sin => |x| x.sin();
    d_cos => |x| x.cos();
    d_tan => |x| x.tan();
    d_asin => |x| x.asin();
    d_acos => |x| x.acos();
    d_atan => |x| x.atan();
    d_atan2 => |x| precise_math::atan2(x, -0.75);
    d_sinh => |x| x.sinh();
    d_cosh => |x| x.cosh();
    d_tanh => |x| x.tanh();
    d_asinh => |x| x.asinh();
    d_acosh => |x| x.acosh();
    d_atanh => |x| x.atanh();
    d_cbrt => |x| x.cbrt();
    d_pow => |x| x.powf(2.5);
    d_pow_base => |x| precise_math::pow(1.0001, x);
    d_sqrt => |x| x.sqrt();
    d_hypot => |x| x.hypot(3.0);
}

type Launch64 = for<'a> fn(
    &'a ArrayView<'_, f64, 1>,
    &'a mut ArrayViewMut<'_, f64, 1>,
) -> amp::KernelCall<'a, 1>;

/// Runs `launch` over `[lo, hi]` and returns the largest error in `f64` ULP against std.
fn check64(
    name: &str,
    launch: Launch64,
    reference: fn(f64) -> f64,
    lo: f64,
    hi: f64,
    max_ulp: u64,
) -> Result<u64, amp::Error> {
    let a = inputs64(lo, hi, 4000);
    let mut out = vec![0.0f64; a.len()];
    {
        let av = ArrayView::new([a.len()], &a)?;
        let mut ov = ArrayViewMut::new([a.len()], &mut out)?;
        parallel_for_each(av.extent(), launch(&av, &mut ov))?;
    }
    let mut worst = 0;
    for (&x, &got) in a.iter().zip(&out) {
        let want = reference(x);
        let u = ulps64(got, want);
        worst = worst.max(u);
        assert!(
            u <= max_ulp,
            "{name}({x:e}) = {got:e} on the device, {want:e} in Rust ({u} ulp)"
        );
    }
    println!("f64 {name:<10} [{lo:e}, {hi:e}] max {worst:>4} ulp");
    Ok(worst)
}

#[test]
fn f64_math_matches_std() -> Result<(), amp::Error> {
    use std::f64::consts::PI;
    check64("exp", d_exp, f64::exp, -700.0, 700.0, 2)?;
    check64("exp", d_exp, f64::exp, -745.0, -700.0, 2)?;
    check64("exp2", d_exp2, f64::exp2, -1070.0, 1020.0, 2)?;
    check64("exp10", d_exp10, |x| 10f64.powf(x), -300.0, 300.0, 2)?;
    check64("exp_m1", d_expm1, f64::exp_m1, -1.0, 1.0, 2)?;
    check64("exp_m1", d_expm1, f64::exp_m1, -40.0, 700.0, 2)?;
    check64("ln", d_ln, f64::ln, 1e-300, 1e300, 2)?;
    check64("ln", d_ln, f64::ln, 0.5, 2.0, 2)?;
    check64("log2", d_log2, f64::log2, 1e-300, 1e300, 2)?;
    check64("log2", d_log2, f64::log2, 0.5, 2.0, 2)?;
    check64("log10", d_log10, f64::log10, 1e-300, 1e300, 2)?;
    check64("ln_1p", d_ln1p, f64::ln_1p, -0.5, 1.0, 2)?;
    check64("ln_1p", d_ln1p, f64::ln_1p, -1e-10, 1e-10, 2)?;
    check64("sin", d_sin, f64::sin, -PI, PI, 2)?;
    check64("sin", d_sin, f64::sin, -1e5, 1e5, 2)?;
    check64("cos", d_cos, f64::cos, -1e5, 1e5, 2)?;
    check64("tan", d_tan, f64::tan, -1e3, 1e3, 4)?;
    check64("asin", d_asin, f64::asin, -1.0, 1.0, 3)?;
    check64("acos", d_acos, f64::acos, -1.0, 1.0, 3)?;
    check64("atan", d_atan, f64::atan, -100.0, 100.0, 2)?;
    check64("atan2", d_atan2, |x| x.atan2(-0.75), -10.0, 10.0, 2)?;
    check64("sinh", d_sinh, f64::sinh, -710.0, 710.0, 3)?;
    check64("sinh", d_sinh, f64::sinh, -1.0, 1.0, 3)?;
    check64("cosh", d_cosh, f64::cosh, -710.0, 710.0, 3)?;
    check64("tanh", d_tanh, f64::tanh, -25.0, 25.0, 3)?;
    check64("tanh", d_tanh, f64::tanh, -0.5, 0.5, 3)?;
    check64("asinh", d_asinh, f64::asinh, -1e4, 1e4, 3)?;
    check64("asinh", d_asinh, f64::asinh, -0.5, 0.5, 3)?;
    check64("acosh", d_acosh, f64::acosh, 1.0, 1e4, 3)?;
    // Rust's `f64::acosh` is `ln(x + sqrt(x - 1) sqrt(x + 1))`, which loses up to ~15 ulp
    // near 1 (the argument of `ln` rounds near 1); fdlibm's form on the CPU is the reference.
    let acosh_ref = |x: f64| {
        let t = x - 1.0;
        (t + (2.0 * t + t * t).sqrt()).ln_1p()
    };
    check64("acosh", d_acosh, acosh_ref, 1.0, 2.0, 3)?;
    // Rust's `f64::atanh` is `ln_1p(2x / (1 - x)) / 2`, a few ulp off where |x| < 0.5 and
    // near ±1; fdlibm's form (`2x + 2x² / (1 - x)` below 0.5) on the CPU is the reference.
    let atanh_ref = |x: f64| {
        let a = x.abs();
        let arg = if a < 0.5 {
            2.0 * a + 2.0 * a * a / (1.0 - a)
        } else {
            2.0 * a / (1.0 - a)
        };
        (0.5 * arg.ln_1p()).copysign(x)
    };
    check64("atanh", d_atanh, atanh_ref, -0.999, 0.999, 3)?;
    check64("cbrt", d_cbrt, f64::cbrt, -1e300, 1e300, 2)?;
    check64("cbrt", d_cbrt, f64::cbrt, -10.0, 10.0, 2)?;
    check64("powf 2.5", d_pow, |x| x.powf(2.5), 0.0, 1e100, 2)?;
    check64(
        "pow 1.0001^x",
        d_pow_base,
        |x| 1.0001f64.powf(x),
        -7e6,
        7e6,
        2,
    )?;
    check64("sqrt", d_sqrt, f64::sqrt, 0.0, 1e300, 0)?;
    check64("hypot", d_hypot, |x| x.hypot(3.0), -1e10, 1e10, 2)?;
    assert_eq!(amp::validation_message_count(), 0);
    Ok(())
}

// Each thread writes its own consecutive elements (idx * k + j), which the race checker proves.
#[kernel(amp)]
fn d_specials(idx: Index<1>, a: ArrayView<f64, 1>, out: ArrayViewMut<f64, 1>) {
    let x = a[idx];
    let i = idx[0] * 12;
    out[i] = x.exp();
    out[i + 1] = x.ln();
    out[i + 2] = x.sin();
    out[i + 3] = x.cos();
    out[i + 4] = x.atan();
    out[i + 5] = x.tanh();
    out[i + 6] = x.powf(0.5);
    out[i + 7] = (2.0f64).powf(x);
    out[i + 8] = x.cbrt();
    out[i + 9] = x.atan2(-1.0);
    out[i + 10] = x.log2();
    out[i + 11] = x.sinh();
}

/// Zeros, infinities and NaN give what Rust's std gives.
#[test]
fn f64_special_values_follow_std() -> Result<(), amp::Error> {
    let a = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -1.0,
        1.0,
    ];
    let mut out = vec![0.0f64; a.len() * 12];
    {
        let av = ArrayView::new([a.len()], &a)?;
        let mut ov = ArrayViewMut::new([out.len()], &mut out)?;
        parallel_for_each(av.extent(), d_specials(&av, &mut ov))?;
    }
    let fs: [fn(f64) -> f64; 12] = [
        f64::exp,
        f64::ln,
        f64::sin,
        f64::cos,
        f64::atan,
        f64::tanh,
        |x| x.powf(0.5),
        |x| 2f64.powf(x),
        f64::cbrt,
        |x| x.atan2(-1.0),
        f64::log2,
        f64::sinh,
    ];
    for (i, &x) in a.iter().enumerate() {
        for (j, f) in fs.iter().enumerate() {
            let (got, want) = (out[i * 12 + j], f(x));
            assert!(
                ulps64(got, want) <= 1 && got.is_sign_negative() == want.is_sign_negative()
                    || got.is_nan() && want.is_nan(),
                "function {j} of {x}: {got} on the device, {want} in Rust"
            );
        }
    }
    Ok(())
}

unary! {
    p_sin => |x| precise_math::sin(x);
    p_exp => |x| precise_math::exp(x);
    p_log => |x| precise_math::log(x);
    p_atan => |x| precise_math::atan(x);
    p_asin => |x| precise_math::asin(x);
    p_tanh => |x| precise_math::tanh(x);
    p_expm1 => |x| precise_math::expm1(x);
    p_cbrt => |x| precise_math::cbrt(x);
}

/// `precise_math::` on `f32` computes in `f64` and rounds: within 1 ulp of the correctly
/// rounded result (std's `f64` function rounded to `f32`; std's own `f32::tanh` is 2 ulp off
/// in places), where `fast_math::` (GLSL.std.450) is off by up to thousands of ulp.
#[test]
fn precise_math_f32_is_within_one_ulp() -> Result<(), amp::Error> {
    use std::f32::consts::PI;
    use Bound::Ulp;
    check(
        "p sin",
        p_sin,
        |x| f64::from(x).sin() as f32,
        -100.0 * PI,
        100.0 * PI,
        Ulp(1),
    )?;
    check(
        "p exp",
        p_exp,
        |x| f64::from(x).exp() as f32,
        -80.0,
        80.0,
        Ulp(1),
    )?;
    check(
        "p log",
        p_log,
        |x| f64::from(x).ln() as f32,
        1e-30,
        1e30,
        Ulp(1),
    )?;
    check(
        "p atan",
        p_atan,
        |x| f64::from(x).atan() as f32,
        -100.0,
        100.0,
        Ulp(1),
    )?;
    check(
        "p asin",
        p_asin,
        |x| f64::from(x).asin() as f32,
        -1.0,
        1.0,
        Ulp(1),
    )?;
    check(
        "p tanh",
        p_tanh,
        |x| f64::from(x).tanh() as f32,
        -10.0,
        10.0,
        Ulp(1),
    )?;
    check(
        "p expm1",
        p_expm1,
        |x| f64::from(x).exp_m1() as f32,
        -5.0,
        5.0,
        Ulp(1),
    )?;
    check(
        "p cbrt",
        p_cbrt,
        |x| f64::from(x).cbrt() as f32,
        -1e6,
        1e6,
        Ulp(1),
    )?;
    assert_eq!(amp::validation_message_count(), 0);
    Ok(())
}
