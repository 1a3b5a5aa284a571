//! Exactly Rust: the cases random differential testing found where the device disagreed with
//! Rust's std, each against Rust on edge values and random bit patterns, compared
//! bit for bit (NaN equals NaN). docs/semantics.md has a row per case.

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

/// A deterministic stream of random bits (xorshift64*), so a failure replays.
struct Bits(u64);

impl Bits {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Mostly random bit patterns (denormals, infinities and NaNs included), some of them
    /// with the exponent of a moderate number so that pairs of them are near each other.
    fn f64(&mut self) -> f64 {
        let r = self.next();
        if r.is_multiple_of(3) {
            f64::from_bits(r & 0x800f_ffff_ffff_ffff | (1000 + (r >> 52) % 80) << 52)
        } else {
            f64::from_bits(r)
        }
    }

    fn f32(&mut self) -> f32 {
        let r = self.next() as u32;
        if r.is_multiple_of(3) {
            f32::from_bits(r & 0x807f_ffff | (100 + (r >> 23) % 60) << 23)
        } else {
            f32::from_bits(r)
        }
    }
}

const F64_EDGES: [f64; 24] = [
    0.0,
    -0.0,
    0.5,
    -0.5,
    0.49999999999999994,
    1.5,
    -2.5,
    1_000_000_000.5,
    4_294_967_295.5,
    -4_294_967_296.5,
    2_147_483_648.5,
    4_503_599_627_370_495.5,
    4_503_599_627_370_496.0,
    9_007_199_254_740_993.0,
    1e300,
    -1e-300,
    f64::MIN_POSITIVE,
    5e-324,
    f64::MAX,
    f64::MIN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    0.1,
];

const F32_EDGES: [f32; 20] = [
    0.0,
    -0.0,
    0.5,
    -0.5,
    1.0,
    0.3,
    100.0,
    2.5,
    7.5e9,
    1e35,
    1e-35,
    -1e-8,
    16_777_217.0,
    f32::MIN_POSITIVE,
    1e-45,
    f32::MAX,
    f32::MIN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
];

fn same64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan()
}

fn same32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan()
}

/// Fails, showing up to 30 of them, unless `wrong` is empty.
#[track_caller]
fn assert_none_wrong(what: &str, wrong: &[String]) {
    assert!(
        wrong.is_empty(),
        "{what}: {} wrong:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(30)].join("\n")
    );
}

/// The entries where the device's `got[i]` is not Rust's `want(i)` by `same`, each described
/// as `call(i): got, Rust want`.
fn mismatches<T: Copy + std::fmt::LowerExp>(
    got: &[T],
    want: impl Fn(usize) -> T,
    same: fn(T, T) -> bool,
    call: impl Fn(usize) -> String,
) -> Vec<String> {
    mismatches_except(got, want, same, call, |_| false)
}

/// [`mismatches`], leaving out the entries `skip(i)` names (cases the device may compute
/// otherwise, such as flushed denormals: `common::flushable32`).
fn mismatches_except<T: Copy + std::fmt::LowerExp>(
    got: &[T],
    want: impl Fn(usize) -> T,
    same: fn(T, T) -> bool,
    call: impl Fn(usize) -> String,
    skip: impl Fn(usize) -> bool,
) -> Vec<String> {
    (0..got.len())
        .filter(|&i| !same(got[i], want(i)) && !skip(i))
        .map(|i| format!("{}: {:e}, Rust {:e}", call(i), got[i], want(i)))
        .collect()
}

// Each thread writes its own consecutive elements (idx * k + j), which the race checker proves.
#[kernel(amp)]
fn rounding64(idx: Index<1>, x: ArrayView<f64, 1>, out: ArrayViewMut<f64, 1>) {
    let v = x[idx];
    let i = idx[0] * 3;
    out[i] = v.trunc();
    out[i + 1] = v.round();
    out[i + 2] = v.fract();
}

/// `f64` `trunc`, `round` and `fract` for values above 2^31 and for the sign of
/// `trunc(-0.5)` (lavapipe's `Trunc` on doubles got both wrong).
#[test]
fn f64_trunc_round_and_fract_are_exact() -> Result<(), amp::Error> {
    let mut bits = Bits(17);
    let mut x: Vec<f64> = F64_EDGES.to_vec();
    x.extend((0..4072).map(|_| bits.f64()));
    let n = x.len();
    let mut out = vec![0.0f64; 3 * n];
    {
        let xv = ArrayView::new([n], &x)?;
        let mut ov = ArrayViewMut::new([3 * n], &mut out)?;
        parallel_for_each(xv.extent(), rounding64(&xv, &mut ov))?;
    }
    let mut wrong = Vec::new();
    for (i, &v) in x.iter().enumerate() {
        for (k, (name, want)) in [
            ("trunc", v.trunc()),
            ("round", v.round()),
            ("fract", v.fract()),
        ]
        .into_iter()
        .enumerate()
        {
            let got = out[3 * i + k];
            if !same64(got, want) {
                wrong.push(format!("{v:e}.{name}(): {got:e}, Rust {want:e}"));
            }
        }
    }
    assert_none_wrong("results", &wrong);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn remainder32(
    idx: Index<1>,
    x: ArrayView<f32, 1>,
    y: ArrayView<f32, 1>,
    out: ArrayViewMut<f32, 1>,
) {
    out[idx] = x[idx] % y[idx];
}

#[kernel(amp)]
fn remainder64(
    idx: Index<1>,
    x: ArrayView<f64, 1>,
    y: ArrayView<f64, 1>,
    out: ArrayViewMut<f64, 1>,
) {
    out[idx] = x[idx] % y[idx];
}

// A vector's `%` is its components'.
#[kernel(amp)]
fn remainder_vector(idx: Index<1>, x: ArrayView<Float2, 1>, out: ArrayViewMut<Float2, 1>) {
    out[idx] = x[idx] % Float2::new(0.3, -7.0);
}

/// Float `%` is Rust's remainder (C's `fmod`) exactly, sign included, also where
/// `x / y` is huge (`OpFRem` rounds its quotient there).
#[test]
fn float_remainder_is_exact() -> Result<(), amp::Error> {
    let mut bits = Bits(29);
    let (mut x, mut y): (Vec<f32>, Vec<f32>) = F32_EDGES
        .iter()
        .flat_map(|&a| F32_EDGES.iter().map(move |&b| (a, b)))
        .unzip();
    for _ in 0..4096 {
        x.push(bits.f32());
        y.push(bits.f32());
    }
    let n = x.len();
    let mut out = vec![0.0f32; n];
    {
        let (xv, yv) = (ArrayView::new([n], &x)?, ArrayView::new([n], &y)?);
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(xv.extent(), remainder32(&xv, &yv, &mut ov))?;
    }
    let wrong = mismatches_except(
        &out,
        |i| x[i] % y[i],
        same32,
        |i| format!("{:e} % {:e}", x[i], y[i]),
        |i| common::flushable32(&[x[i], y[i], x[i] % y[i]]),
    );
    assert_none_wrong("f32", &wrong);

    let (mut x, mut y): (Vec<f64>, Vec<f64>) = F64_EDGES
        .iter()
        .flat_map(|&a| F64_EDGES.iter().map(move |&b| (a, b)))
        .unzip();
    for _ in 0..4096 {
        x.push(bits.f64());
        y.push(bits.f64());
    }
    let n = x.len();
    let mut out = vec![0.0f64; n];
    {
        let (xv, yv) = (ArrayView::new([n], &x)?, ArrayView::new([n], &y)?);
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(xv.extent(), remainder64(&xv, &yv, &mut ov))?;
    }
    let wrong = mismatches(
        &out,
        |i| x[i] % y[i],
        same64,
        |i| format!("{:e} % {:e}", x[i], y[i]),
    );
    assert_none_wrong("f64", &wrong);

    let v: Vec<Float2> = (0..64)
        .map(|i| Float2::new(i as f32 * 1.7, -(i as f32) * 100.3))
        .collect();
    let mut out = vec![Float2::default(); 64];
    {
        let vv = ArrayView::new([64], &v)?;
        let mut ov = ArrayViewMut::new([64], &mut out)?;
        parallel_for_each(vv.extent(), remainder_vector(&vv, &mut ov))?;
    }
    for (a, r) in v.iter().zip(&out) {
        assert!(
            same32(r.x, a.x % 0.3) && same32(r.y, a.y % -7.0),
            "{a:?} % (0.3, -7): {r:?}"
        );
    }
    assert_validation_clean();
    Ok(())
}

/// A device function with a variable declared without a value and assigned once per branch
/// (valid Rust), so it runs on the host and on the device alike.
// The late initialization is the point of the test.
#[allow(clippy::needless_late_init)]
#[amp::device]
fn piecewise(x: f32) -> f32 {
    let y: f32;
    if x < 0.0 {
        y = -x;
    } else if x < 1.0 {
        y = x * x;
    } else {
        y = 1.0;
    }
    let z: f32;
    z = y + 0.5;
    z
}

#[kernel(amp)]
fn deferred(idx: Index<1>, x: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let w: f32;
    if idx[0] % 2 == 0 {
        w = piecewise(x[idx]);
    } else {
        w = -piecewise(x[idx]);
    }
    out[idx] = w;
}

/// `let y: f32;` assigned once in each branch compiles and computes what Rust does.
#[test]
fn variables_assigned_once_per_branch() -> Result<(), amp::Error> {
    let x: Vec<f32> = (0..256).map(|i| (i as f32 - 100.0) / 64.0).collect();
    let mut out = vec![0.0f32; 256];
    {
        let xv = ArrayView::new([256], &x)?;
        let mut ov = ArrayViewMut::new([256], &mut out)?;
        parallel_for_each(xv.extent(), deferred(&xv, &mut ov))?;
    }
    for (i, (&a, &r)) in x.iter().zip(&out).enumerate() {
        let want = if i % 2 == 0 {
            piecewise(a)
        } else {
            -piecewise(a)
        };
        assert_eq!(r.to_bits(), want.to_bits(), "x = {a}");
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn fused32(
    idx: Index<1>,
    a: ArrayView<f32, 1>,
    b: ArrayView<f32, 1>,
    c: ArrayView<f32, 1>,
    out: ArrayViewMut<f32, 1>,
) {
    out[idx] = a[idx].mul_add(b[idx], c[idx]);
}

#[kernel(amp)]
fn fused64(
    idx: Index<1>,
    a: ArrayView<f64, 1>,
    b: ArrayView<f64, 1>,
    c: ArrayView<f64, 1>,
    out: ArrayViewMut<f64, 1>,
) {
    out[idx] = a[idx].mul_add(b[idx], c[idx]);
}

/// Triples of edge values and random ones, a third of them with `c` near `-a * b` (where the
/// product's rounding error is the whole result) or near the subnormal range.
fn triples<T: Copy>(
    edges: &[T],
    n: usize,
    mut random: impl FnMut() -> T,
    near: impl Fn(T, T, T) -> T,
) -> (Vec<T>, Vec<T>, Vec<T>) {
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for &x in edges {
        for &y in edges {
            a.push(x);
            b.push(y);
            c.push(edges[(a.len() * 7) % edges.len()]);
        }
    }
    for i in 0..n {
        let (x, y, z) = (random(), random(), random());
        a.push(x);
        b.push(y);
        c.push(if i % 3 == 0 { near(x, y, z) } else { z });
    }
    (a, b, c)
}

/// `mul_add` rounds once for every input: operands above `f32::MAX / 4097` (where
/// the old splitting step overflowed), cancellation, results in the subnormal range, zeros'
/// signs, infinities and NaN.
#[test]
fn mul_add_rounds_once() -> Result<(), amp::Error> {
    let mut bits = Bits(43);
    let (mut a, mut b, mut c) = triples(
        &F32_EDGES,
        6000,
        || bits.f32(),
        |x, y, z| -(x * y) * (1.0 + (z.to_bits() % 64) as f32 * f32::EPSILON),
    );
    a.push(1e35);
    b.push(1e-35);
    c.push(1e-8);
    let n = a.len();
    let mut out = vec![0.0f32; n];
    {
        let (av, bv, cv) = (
            ArrayView::new([n], &a)?,
            ArrayView::new([n], &b)?,
            ArrayView::new([n], &c)?,
        );
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(av.extent(), fused32(&av, &bv, &cv, &mut ov))?;
    }
    let want = |i: usize| a[i].mul_add(b[i], c[i]);
    let wrong = mismatches_except(
        &out,
        want,
        same32,
        |i| format!("({:e}).mul_add({:e}, {:e})", a[i], b[i], c[i]),
        |i| common::flushable32(&[a[i], b[i], c[i], want(i)]),
    );
    assert_none_wrong("f32", &wrong);
    // An operand above `f32::MAX / 4097`, where splitting it for an exact product overflows
    // (a splitting step that did gave 1.0): rounded once, as Rust's, it is 1.0000001.
    let i = (0..n).find(|&i| (a[i], b[i], c[i]) == (1e35, 1e-35, 1e-8));
    assert_eq!(out[i.expect("the triple is among the inputs")], 1.000_000_1);

    let mut bits = Bits(47);
    let (a, b, c) = triples(
        &F64_EDGES,
        6000,
        || bits.f64(),
        |x, y, z| -(x * y) * (1.0 + (z.to_bits() % 64) as f64 * f64::EPSILON),
    );
    let n = a.len();
    let mut out = vec![0.0f64; n];
    {
        let (av, bv, cv) = (
            ArrayView::new([n], &a)?,
            ArrayView::new([n], &b)?,
            ArrayView::new([n], &c)?,
        );
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(av.extent(), fused64(&av, &bv, &cv, &mut ov))?;
    }
    let wrong = mismatches(
        &out,
        |i| a[i].mul_add(b[i], c[i]),
        same64,
        |i| format!("({:e}).mul_add({:e}, {:e})", a[i], b[i], c[i]),
    );
    assert_none_wrong("f64", &wrong);
    assert_validation_clean();
    Ok(())
}

/// An outer constant (a specialization constant, which the driver folds).
const NO_SCALE: f32 = 0.0;

/// Case `j` of the arithmetic operations with a zero operand (a device function: it runs on the
/// host too, which gives the expected values).
// Operations that are zero or trivial on purpose: they are what the driver folds.
#[allow(clippy::eq_op, clippy::erasing_op, clippy::neg_multiply)]
#[amp::device]
fn with_zero(g: f32, n: i32, j: i32) -> f32 {
    let k = n - n;
    let z = (n & 0) as f32;
    let mut acc = g;
    acc *= (n - n) as f32;
    let cases = [
        g * 0.0,
        0.0 * g,
        g * -0.0,
        g + 0.0,
        0.0 + g,
        g + -0.0,
        g - 0.0,
        g - -0.0,
        0.0 - g,
        -0.0 - g,
        0.0 / g,
        -0.0 / g,
        g / 0.0,
        g / -0.0,
        g * (k as f32),
        g * z,
        z * g,
        g + z,
        z - g,
        z / g,
        g / z,
        g * ((n != n) as i32 as f32),
        acc,
        g * 2.0,
        g * (1.0 - 1.0),
        g * NO_SCALE,
        g * (0.0f32).sin(),
        g * (2.0f32).min(0.0),
        (Float2::splat(g) * 0.0).y,
        (Float2::new(1.0 - 1.0, 1.0) * g).x,
        -0.0 * g * -1.0,
        g + (-1.0 + 1.0),
        // `mul_add` with a factor or an addend the driver may know to be zero.
        g.mul_add(z, 1.0),
        z.mul_add(g, -0.0),
        g.mul_add(((n as i16).abs_diff(n as i16) as u32) as f32, 2.5),
        g.mul_add(2.0, z),
        g.mul_add(-1.0, (n - n) as f32),
        g.mul_add(NO_SCALE, -0.0),
        g.mul_add(0.0, 1.0),
        (g * 0.5).mul_add(z, z),
    ];
    cases[j as usize]
}

const WITH_ZEROS: usize = 40;

#[kernel(amp)]
fn zeros(idx: Index<2>, g: ArrayView<f32, 1>, n: ArrayView<i32, 1>, out: ArrayViewMut<f32, 2>) {
    out[idx] = with_zero(g[idx[0]], n[idx[0]], idx[1] as i32);
}

/// lavapipe (Mesa 22.3) folds `x * 0.0`, `x + 0.0`, `0.0 - x`, `0.0 / x` and
/// `x / 0.0` where it knows the zero, as if zeros had no sign and NaN and infinities did not
/// exist, despite `NoContraction` and `SignedZeroInfNanPreserve`. The kernel's operations with a
/// literal zero select the exact result, and those with an operand the driver may fold to a
/// zero (constants, outer constants, `(n - n) as f32`) are guarded by a select on that zero;
/// so are `mul_add`'s factors and addend.
#[test]
fn arithmetic_with_zeros_keeps_signs_nan_and_infinities() -> Result<(), amp::Error> {
    let gs = [
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -3.0,
        3.0,
        0.0,
        -0.0,
        1e-40,
    ];
    let g: Vec<f32> = gs.iter().flat_map(|&x| [x, x]).collect();
    let n: Vec<i32> = (0..g.len() as i32).map(|i| i * 7 - 20).collect();
    let len = g.len();
    let mut out = vec![0.0f32; len * WITH_ZEROS];
    {
        let (gv, nv) = (ArrayView::new([len], &g)?, ArrayView::new([len], &n)?);
        let mut ov = ArrayViewMut::new([len, WITH_ZEROS], &mut out)?;
        parallel_for_each(ov.extent(), zeros(&gv, &nv, &mut ov))?;
    }
    let mut wrong = Vec::new();
    for i in 0..len {
        for j in 0..WITH_ZEROS {
            let (got, want) = (out[i * WITH_ZEROS + j], with_zero(g[i], n[i], j as i32));
            if !same32(got, want) && !common::flushable32(&[g[i], want]) {
                wrong.push(format!("g = {:e}, case {j}: {got:e}, Rust {want:e}", g[i]));
            }
        }
    }
    assert_none_wrong("results", &wrong);
    assert_validation_clean();
    Ok(())
}

// ----- found by the differential tester (tests/diff) -----

#[kernel(amp)]
fn specials32(
    idx: Index<1>,
    x: ArrayView<f32, 1>,
    y: ArrayView<f32, 1>,
    out: ArrayViewMut<f32, 1>,
) {
    let (a, b) = (x[idx], y[idx]);
    let i = idx[0] * 5;
    out[i] = a.atan2(b);
    out[i + 1] = a.powf(b);
    out[i + 2] = a.hypot(b);
    out[i + 3] = a.cbrt();
    out[i + 4] = a.clamp(0.0, 1.0);
}

#[kernel(amp)]
fn specials64(
    idx: Index<1>,
    x: ArrayView<f64, 1>,
    y: ArrayView<f64, 1>,
    out: ArrayViewMut<f64, 1>,
) {
    let (a, b) = (x[idx], y[idx]);
    let i = idx[0] * 4;
    out[i] = a.powf(b);
    out[i + 1] = a.hypot(b);
    out[i + 2] = a.clamp(0.0, 1.0);
    out[i + 3] = a.cbrt();
}

/// Special values of `atan2`, `powf`, `hypot`, `cbrt` and `clamp` as Rust computes them: signed
/// zeros and infinities of `atan2` exactly, NaN through `powf` and `cbrt` (lavapipe's `Pow`
/// gave 0), `1^NaN == 1`, `hypot` without under- or overflow, `(-0.0).clamp(0.0, 1.0) == -0.0`.
#[test]
fn special_values_follow_rust() -> Result<(), amp::Error> {
    let edges = [
        0.0f64,
        -0.0,
        1.0,
        -1.0,
        2.5,
        -3.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-40,
        1.2e-38,
        -2.2e4,
        1e30,
    ];
    let pairs: Vec<(f64, f64)> = edges
        .iter()
        .flat_map(|&a| edges.iter().map(move |&b| (a, b)))
        .collect();
    let n = pairs.len();
    let x32: Vec<f32> = pairs.iter().map(|p| p.0 as f32).collect();
    let y32: Vec<f32> = pairs.iter().map(|p| p.1 as f32).collect();
    let (mut x64, mut y64): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
    // f64 denormals and the ends of the range (cbrt's Newton step).
    for v in [5e-324, -1e-310, 2.2e-308, f64::MAX, -1e300] {
        x64.push(v);
        y64.push(0.5);
    }
    let mut out32 = vec![0.0f32; 5 * n];
    let n64 = x64.len();
    let mut out64 = vec![0.0f64; 4 * n64];
    {
        let (xv, yv) = (ArrayView::new([n], &x32)?, ArrayView::new([n], &y32)?);
        let mut ov = ArrayViewMut::new([5 * n], &mut out32)?;
        parallel_for_each(xv.extent(), specials32(&xv, &yv, &mut ov))?;
        let (xv, yv) = (ArrayView::new([n64], &x64)?, ArrayView::new([n64], &y64)?);
        let mut ov = ArrayViewMut::new([4 * n64], &mut out64)?;
        parallel_for_each(xv.extent(), specials64(&xv, &yv, &mut ov))?;
    }
    let ulps32 = |a: f32, b: f32| (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs();
    let mut wrong = Vec::new();
    for (i, (&a, &b)) in x32.iter().zip(&y32).enumerate() {
        let want = [
            a.atan2(b),
            a.powf(b),
            a.hypot(b),
            a.cbrt(),
            a.clamp(0.0, 1.0),
        ];
        for (k, name) in ["atan2", "powf", "hypot", "cbrt", "clamp"]
            .iter()
            .enumerate()
        {
            let got = out32[5 * i + k];
            // Exact where the result is special (zero, infinite, NaN, a bound); within the
            // documented bounds of docs/math.md elsewhere.
            let special = !want[k].is_normal() || k == 4;
            let ok = same32(got, want[k])
                || (!special && got.is_finite() && ulps32(got, want[k]) <= 2048)
                || common::flushable32(&[a, b, want[k]]);
            if !ok {
                wrong.push(format!(
                    "f32 {a:e}.{name}({b:e}): {got:e}, Rust {:e}",
                    want[k]
                ));
            }
        }
    }
    for (i, (&a, &b)) in x64.iter().zip(&y64).enumerate() {
        let want = [a.powf(b), a.hypot(b), a.clamp(0.0, 1.0), a.cbrt()];
        for (k, name) in ["powf", "hypot", "clamp", "cbrt"].iter().enumerate() {
            let got = out64[4 * i + k];
            let special = !want[k].is_normal() || k == 2;
            let close = (got.to_bits() as i64).abs_diff(want[k].to_bits() as i64) <= 4;
            if !(same64(got, want[k]) || !special && close) {
                wrong.push(format!(
                    "f64 {a:e}.{name}({b:e}): {got:e}, Rust {:e}",
                    want[k]
                ));
            }
        }
    }
    assert_none_wrong("results", &wrong);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn cbrt32(idx: Index<1>, x: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = x[idx].cbrt();
}

/// f32 `cbrt` within its documented 32 ulps across the whole range, denormals included: Pow's
/// `exp2(log2(x) / 3)` alone was 33 ulps off at `0x00600d23` (found by the differential
/// tester); a Newton step brings it close to Rust's.
#[test]
fn cbrt_f32_is_within_its_bound_everywhere() -> Result<(), amp::Error> {
    let mut x: Vec<f32> = (0..8192u32)
        .map(|i| f32::from_bits(i.wrapping_mul(0x0003_fbf7) % 0x7f80_0000))
        .collect();
    x.push(f32::from_bits(0x0060_0d23));
    x.extend(x.clone().iter().map(|v| -v));
    let mut out = vec![0.0f32; x.len()];
    {
        let xv = ArrayView::new([x.len()], &x)?;
        let mut ov = ArrayViewMut::new([x.len()], &mut out)?;
        parallel_for_each(xv.extent(), cbrt32(&xv, &mut ov))?;
    }
    let worst = x
        .iter()
        .zip(&out)
        .filter(|(a, _)| !common::flushable32(&[**a, a.cbrt()]))
        .map(|(a, got)| (got.to_bits() as i64 - a.cbrt().to_bits() as i64).unsigned_abs())
        .max()
        .unwrap();
    assert!(worst <= 32, "cbrt is {worst} ulps from Rust's");
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn copysign64(
    idx: Index<1>,
    x: ArrayView<f64, 1>,
    y: ArrayView<f64, 1>,
    out: ArrayViewMut<f64, 1>,
) {
    out[idx] = x[idx].copysign(y[idx]);
}

/// `copysign` takes the sign bit of `y` whatever `y` is, a NaN included (the differential
/// tester found `f64`'s comparing instead, which reads every NaN as positive).
#[test]
fn f64_copysign_takes_the_sign_bit_of_nans_too() -> Result<(), amp::Error> {
    let signs = [
        1.0,
        -1.0,
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::from_bits(0xfff1_8fcb_ba17_2536), // a NaN with the sign bit set
        f64::from_bits(0x7ff8_0000_0000_0001), // and one without
    ];
    let values = [1.5, -2.0, 0.0, -0.0, f64::INFINITY, -6.5e6, 5e-324];
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for &v in &values {
        for &s in &signs {
            x.push(v);
            y.push(s);
        }
    }
    let n = x.len();
    let mut out = vec![0.0f64; n];
    {
        let (xv, yv) = (ArrayView::new([n], &x)?, ArrayView::new([n], &y)?);
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(xv.extent(), copysign64(&xv, &yv, &mut ov))?;
    }
    for i in 0..n {
        let want = x[i].copysign(y[i]);
        assert_eq!(
            out[i].to_bits(),
            want.to_bits(),
            "{:e}.copysign({:#x}): {:e}, Rust {want:e}",
            x[i],
            y[i].to_bits(),
            out[i]
        );
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn abs_of_non_negatives(
    idx: Index<1>,
    x: ArrayView<f32, 1>,
    d: ArrayView<f64, 1>,
    out32: ArrayViewMut<f32, 1>,
    out64: ArrayViewMut<f64, 1>,
    copy: ArrayViewMut<f32, 1>,
) {
    // `sqrt` of `-0.0` is `-0.0`; a driver that treats every `sqrt` as non-negative drops the
    // `abs` around it.
    out32[idx] = f32::abs(x[idx].sqrt().to_radians());
    out64[idx] = (d[idx].sqrt() * 3.0).abs();
    copy[idx] = (x[idx].sqrt() * 2.0).copysign(1.0);
}

/// `abs` clears the sign of `-0.0` wherever it comes from (the differential tester found
/// `f32::abs(sqrt(-0.0).to_radians())` giving `-0.0` on lavapipe, whose compiler removes an
/// absolute value of anything it proves non-negative, `-0.0` included).
#[test]
fn abs_clears_the_sign_of_negative_zero_from_any_source() -> Result<(), amp::Error> {
    let x = [-0.0f32, 0.0, 4.0, f32::INFINITY, -1.0, f32::NAN];
    let d: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let n = x.len();
    let (mut o32, mut o64, mut copy) = (vec![0.0f32; n], vec![0.0f64; n], vec![0.0f32; n]);
    {
        let (xv, dv) = (ArrayView::new([n], &x)?, ArrayView::new([n], &d)?);
        let mut o32v = ArrayViewMut::new([n], &mut o32)?;
        let mut o64v = ArrayViewMut::new([n], &mut o64)?;
        let mut cv = ArrayViewMut::new([n], &mut copy)?;
        parallel_for_each(
            xv.extent(),
            abs_of_non_negatives(&xv, &dv, &mut o32v, &mut o64v, &mut cv),
        )?;
    }
    for i in 0..n {
        let want32 = f32::abs(x[i].sqrt().to_radians());
        let want64 = (d[i].sqrt() * 3.0).abs();
        let want_copy = (x[i].sqrt() * 2.0).copysign(1.0);
        // Any NaN equals any NaN (Rust leaves NaN bits open).
        let same32 = |a: f32, b: f32| a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan();
        assert!(
            same32(o32[i], want32),
            "abs: x = {:e}: {:e}, Rust {want32:e}",
            x[i],
            o32[i]
        );
        assert!(
            o64[i].to_bits() == want64.to_bits() || o64[i].is_nan() && want64.is_nan(),
            "f64 abs: x = {:e}: {:e}, Rust {want64:e}",
            d[i],
            o64[i]
        );
        assert!(
            same32(copy[i], want_copy),
            "copysign: x = {:e}: {:e}",
            x[i],
            copy[i]
        );
    }
    assert_validation_clean();
    Ok(())
}

// Each thread writes its own three consecutive elements, which the race checker proves.
#[kernel(amp)]
fn rounded32(idx: Index<1>, x: ArrayView<f32, 1>, y: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let i = idx[0] * 3;
    out[i] = x[idx] / y[idx];
    out[i + 1] = x[idx].sqrt();
    out[i + 2] = y[idx].recip();
}

/// Operand pairs for division: every pair of edge values; random bit patterns; significands
/// alone (both in [1, 2)); denormal dividends and divisors; quotients near the largest float
/// and in the denormal range.
fn division_operands(random: usize) -> (Vec<f32>, Vec<f32>) {
    let mut bits = Bits(29);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for a in F32_EDGES {
        for b in F32_EDGES {
            x.push(a);
            y.push(b);
        }
    }
    let with_exponent =
        |r: u64, e: u64| f32::from_bits((r as u32 & 0x807f_ffff) | (e as u32) << 23);
    for k in 0..random {
        let (r, s) = (bits.next(), bits.next());
        let (a, b) = match k % 6 {
            0 => (bits.f32(), bits.f32()),
            1 => (with_exponent(r, 127), with_exponent(s, 127)),
            2 => (
                f32::from_bits(r as u32 & 0x807f_ffff),
                with_exponent(s, 100 + s % 50),
            ),
            3 => (
                with_exponent(r, 80 + r % 60),
                f32::from_bits(s as u32 & 0x807f_ffff),
            ),
            4 => (
                with_exponent(r, 200 + r % 54),
                with_exponent(s, 60 + s % 20),
            ),
            _ => (with_exponent(r, 1 + r % 30), with_exponent(s, 120 + s % 60)),
        };
        x.push(a);
        y.push(b);
    }
    (x, y)
}

/// `f32` `/`, `sqrt` and `recip` are correctly rounded, as Rust's are, on the default
/// accelerator (Vulkan lets a device's own be 2.5 ULP off; NVIDIA's division was 1 ULP off).
fn check_rounded32(random: usize) -> Result<(), amp::Error> {
    let (x, y) = division_operands(random);
    let n = x.len();
    let mut out = vec![0.0f32; 3 * n];
    {
        let xv = ArrayView::new([n], &x)?;
        let yv = ArrayView::new([n], &y)?;
        let mut ov = ArrayViewMut::new([3 * n], &mut out)?;
        parallel_for_each(xv.extent(), rounded32(&xv, &yv, &mut ov))?;
        ov.synchronize()?;
    }
    let mut wrong = Vec::new();
    for i in 0..n {
        let (a, b) = (x[i], y[i]);
        for (k, name, want, operands) in [
            (0, "/", a / b, [a, b]),
            (1, "sqrt", a.sqrt(), [a, a]),
            (2, "recip", b.recip(), [b, b]),
        ] {
            let got = out[3 * i + k];
            if !same32(got, want) && !common::flushable32(&[operands[0], operands[1], want]) {
                wrong.push(format!(
                    "{name} of {a:e} ({:#010x}), {b:e} ({:#010x}): {got:e} ({:#010x}), Rust {want:e} ({:#010x})",
                    a.to_bits(),
                    b.to_bits(),
                    got.to_bits(),
                    want.to_bits()
                ));
            }
        }
    }
    assert_none_wrong("rounded operations", &wrong);
    assert_validation_clean();
    Ok(())
}

#[test]
fn f32_division_and_square_root_are_correctly_rounded() -> Result<(), amp::Error> {
    check_rounded32(1 << 17)
}

/// The same with `AMP_FORCE_EXACT_PATHS=1` (in a process of its own: the setting is read once):
/// every division and square root takes the path that corrects a device's imprecise result,
/// from a rough guess, so the correction is tested on a device that never needs it.
#[test]
fn f32_division_and_square_root_are_correctly_rounded_on_their_exact_paths(
) -> Result<(), amp::Error> {
    const NAME: &str =
        "exact::f32_division_and_square_root_are_correctly_rounded_on_their_exact_paths";
    if common::in_child(NAME) {
        return check_rounded32(1 << 17);
    }
    if !common::on_native() {
        common::run_child(NAME, &[("AMP_FORCE_EXACT_PATHS", "1")], &[]);
    }
    Ok(())
}

// Each thread writes its own six consecutive elements, which the race checker proves.
#[kernel(amp, fast_math)]
fn device_own32(
    idx: Index<1>,
    x: ArrayView<f32, 1>,
    y: ArrayView<f32, 1>,
    out: ArrayViewMut<f32, 1>,
) {
    let i = idx[0] * 6;
    out[i] = x[idx] / y[idx];
    out[i + 1] = y[idx].sqrt();
    out[i + 2] = y[idx].recip();
    out[i + 3] = x[idx].sin();
    out[i + 4] = x[idx].cos();
    out[i + 5] = x[idx].tan();
}

/// `#[kernel(amp, fast_math)]` runs the device's own division, square root and trigonometry:
/// within Vulkan's precision of Rust's results (2.5 ULP for `/`, 3 for `sqrt`, 2^-11 absolute
/// for `sin` and `cos` on [-π, π]). Prints, per operation, how many results differ from Rust's
/// on this device: what the exact paths correct here (the GPU kit's report shows it).
#[test]
fn fast_math_is_within_vulkans_precision() -> Result<(), amp::Error> {
    let mut bits = Bits(31);
    let n = 4096;
    let x: Vec<f32> = (0..n)
        .map(|_| (bits.next() % 100_000) as f32 / 15_915.0 - std::f32::consts::PI)
        .collect();
    let y: Vec<f32> = (0..n)
        .map(|_| 1.0 + (bits.next() % 100_000) as f32 / 3.0)
        .collect();
    let mut out = vec![0.0f32; 6 * n];
    {
        let xv = ArrayView::new([n], &x)?;
        let yv = ArrayView::new([n], &y)?;
        let mut ov = ArrayViewMut::new([6 * n], &mut out)?;
        parallel_for_each(xv.extent(), device_own32(&xv, &yv, &mut ov))?;
        ov.synchronize()?;
    }
    // Vulkan's bound per operation: in ULP, absolute, or none (`tan`).
    enum Bound {
        Ulps(f32),
        Abs(f32),
        Open,
    }
    let ulp = |v: f32| f32::from_bits(v.abs().to_bits() + 1) - v.abs();
    let within = |bound: &Bound, got: f32, want: f32| match *bound {
        Bound::Ulps(n) => (got - want).abs() <= n * ulp(want),
        Bound::Abs(e) => (got - want).abs() <= e,
        Bound::Open => true,
    };
    type Rust = fn(f32, f32) -> f32;
    let checks: [(&str, Rust, Bound); 6] = [
        ("/", |a, b| a / b, Bound::Ulps(3.0)),
        ("sqrt", |_, b| b.sqrt(), Bound::Ulps(3.0)),
        ("recip", |_, b| b.recip(), Bound::Ulps(3.0)),
        ("sin", |a, _| a.sin(), Bound::Abs(2f32.powi(-11))),
        ("cos", |a, _| a.cos(), Bound::Abs(2f32.powi(-11))),
        ("tan", |a, _| a.tan(), Bound::Open),
    ];
    let name = amp::Accelerator::default()?.name().to_owned();
    for (k, (op, rust, bound)) in checks.iter().enumerate() {
        let mut differ = 0;
        for i in 0..n {
            let (got, want) = (out[6 * i + k], rust(x[i], y[i]));
            assert!(
                within(bound, got, want),
                "fast_math {op} of {}, {}: {got}, Rust {want}",
                x[i],
                y[i]
            );
            differ += usize::from(got.to_bits() != want.to_bits());
        }
        println!("{name}: the device's own f32 {op} differs from Rust's in {differ} of {n} cases");
    }
    assert_validation_clean();
    Ok(())
}

// Each thread writes its own three consecutive elements, which the race checker proves.
#[kernel(amp)]
fn trig32(idx: Index<1>, x: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let i = idx[0] * 3;
    out[i] = x[idx].sin();
    out[i + 1] = x[idx].cos();
    out[i + 2] = x[idx].tan();
}

/// Distance in units in the last place (0 for two NaNs).
fn ulps32(a: f32, b: f32) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    let key = |v: f32| {
        let i = v.to_bits() as i32;
        if i < 0 {
            i64::from(i32::MIN) - i64::from(i)
        } else {
            i64::from(i)
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

/// `f32` `sin`, `cos` and `tan` within 1, 1 and 2 ULP of Rust's for arguments of every
/// exponent (random bit patterns, the edge values, floats next to multiples of π/2), NaN for
/// infinities and NaN, and zeros kept with their sign.
#[test]
fn f32_trigonometry_is_within_its_ulps_everywhere() -> Result<(), amp::Error> {
    let mut bits = Bits(37);
    let mut x: Vec<f32> = F32_EDGES.to_vec();
    x.extend((0..1 << 15).map(|_| bits.f32()));
    // The floats nearest k π/2, where the reduction cancels most.
    x.extend((1..2000).map(|k| (k as f64 * std::f64::consts::FRAC_PI_2) as f32));
    x.extend((1..2000).map(|k| (k as f64 * 1e4 * std::f64::consts::FRAC_PI_2) as f32));
    let n = x.len();
    let mut out = vec![0.0f32; 3 * n];
    {
        let xv = ArrayView::new([n], &x)?;
        let mut ov = ArrayViewMut::new([3 * n], &mut out)?;
        parallel_for_each(xv.extent(), trig32(&xv, &mut ov))?;
        ov.synchronize()?;
    }
    let mut wrong = Vec::new();
    for (i, &v) in x.iter().enumerate() {
        for (k, name, want, bound) in [
            (0, "sin", v.sin(), 1),
            (1, "cos", v.cos(), 1),
            (2, "tan", v.tan(), 2),
        ] {
            let got = out[3 * i + k];
            let off = ulps32(got, want);
            let zero_sign = want == 0.0 && got.to_bits() != want.to_bits();
            if (off > bound || zero_sign) && !common::flushable32(&[v, want]) {
                wrong.push(format!(
                    "{name}({v:e} = {:#010x}): {got:e}, Rust {want:e} ({off} ULP)",
                    v.to_bits()
                ));
            }
        }
    }
    assert_none_wrong("trigonometry", &wrong);
    assert_validation_clean();
    Ok(())
}
