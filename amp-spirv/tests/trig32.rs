//! A host model of the `f32` `sin`, `cos` and `tan` kernels emit (`back/spv/math/trig32.rs`:
//! the same integer Payne-Hanek reduction, double-`f32` product by π/2 and `f32` kernels, step
//! for step), held to 1, 1 and 2 ULP of Rust's std on every float of two ranges and on random
//! arguments of every exponent. The emitted code runs in the device tests
//! `exact::f32_trigonometry_is_within_its_ulps_everywhere` and `math::math_matches_std`.

#![allow(clippy::excessive_precision)]

const TWO_OVER_PI: [u32; 8] = [
    0, 0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab,
];
const P1: f32 = std::f64::consts::FRAC_PI_2 as f32;
fn pio2_lo() -> f32 {
    (std::f64::consts::FRAC_PI_2 - P1 as f64) as f32
}
const S: [f32; 4] = [
    -0.166666666416265235595,
    0.0083333293858894631756,
    -0.000198393348360966317347,
    0.0000027183114939898219064,
];
const C: [f32; 4] = [
    -0.499999997251031003120,
    0.0416666233237390631894,
    -0.00138867637746099294692,
    0.0000243904487962774090654,
];

fn split(a: f32) -> (f32, f32) {
    let c = a * 4097.0;
    let d = c - a;
    let hi = c - d;
    (hi, a - hi)
}
fn two_prod(a: f32, b: f32) -> (f32, f32) {
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    let p = a * b;
    let e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    (p, e)
}
/// (r_hi, r_lo, n) with |x| = n pi/2 + r
fn reduce(ax: f32) -> (f32, f32, u32) {
    let bits = ax.to_bits();
    let field = (bits >> 23) as i32;
    if ax < std::f32::consts::FRAC_PI_4 {
        return (ax, 0.0, 0);
    }
    let m = (bits & 0x7fffff) | 0x800000;
    let g0 = (field - 120).max(0) as u32;
    let (j, b) = ((g0 >> 5) as usize, g0 & 31);
    let tw = |k: usize| if k < 8 { TWO_OVER_PI[k] } else { 0xdebbc561 };
    let w = |k: usize| {
        let hi = tw(j + k) << b;
        let lo = if b == 0 { 0 } else { tw(j + k + 1) >> (32 - b) };
        hi | lo
    };
    let (w0, w1, w2) = (w(0), w(1), w(2));
    let a2 = m as u64 * w2 as u64;
    let a1 = m as u64 * w1 as u64;
    let a0 = m as u64 * w0 as u64;
    let p0 = a2 as u32;
    let (p1, c1) = ((a2 >> 32) as u32).overflowing_add(a1 as u32);
    let (s2, c2a) = ((a1 >> 32) as u32).overflowing_add(a0 as u32);
    let (p2, c2b) = s2.overflowing_add(c1 as u32);
    let _p3 = ((a0 >> 32) as u32).wrapping_add((c2a | c2b) as u32);
    let mut n = (p2 >> 30) & 3;
    let fh = (p2 << 2) | (p1 >> 30);
    let fl = (p1 << 2) | (p0 >> 30);
    let negative = fh >> 31 == 1;
    let (mh, ml) = if negative {
        n = (n + 1) & 3;
        let (l, c) = (!fl).overflowing_add(1);
        ((!fh).wrapping_add(c as u32), l)
    } else {
        (fh, fl)
    };
    // normalize
    let msb64 = if mh != 0 {
        32 + 31 - mh.leading_zeros()
    } else {
        31 - ml.leading_zeros()
    };
    let s = 63 - msb64;
    let (nh, nl) = if s >= 32 {
        (ml << (s - 32), 0)
    } else if s == 0 {
        (mh, ml)
    } else {
        ((mh << s) | (ml >> (32 - s)), ml << s)
    };
    let hi24 = nh >> 8;
    let lo24 = ((nh & 0xff) << 16) | (nl >> 16);
    let pw = |k: i32| f32::from_bits(((127 + k) as u32) << 23);
    let hf = hi24 as f32 * pw(-24 - s as i32);
    let lf = lo24 as f32 * pw(-48 - s as i32);
    let (ph, pe) = two_prod(hf, P1);
    let pl = pe + (hf * pio2_lo() + lf * P1);
    let rh = ph + pl;
    let rl = pl - (rh - ph);
    if negative {
        (-rh, -rl, n)
    } else {
        (rh, rl, n)
    }
}
fn ksin(r: f32, rl: f32) -> f32 {
    let z = r * r;
    let p = S[2] + z * S[3];
    let p = S[1] + z * p;
    let p = S[0] + z * p;
    let tail = r * z * p;
    // sin(r + rl) ~ sin r + rl cos r
    r + (tail + rl * (1.0 - 0.5 * z))
}
fn kcos(r: f32, rl: f32) -> f32 {
    let z = r * r;
    let p = C[2] + z * C[3];
    let p = C[1] + z * p;
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    // cos(r + rl) ~ cos r - rl sin r
    w + (((1.0 - w) - hz) + (z * z * p - r * rl))
}
fn sin32(x: f32) -> f32 {
    if !x.is_finite() {
        return f32::NAN;
    }
    let (r, rl, n) = reduce(x.abs());
    let v = match n {
        0 => ksin(r, rl),
        1 => kcos(r, rl),
        2 => -ksin(r, rl),
        _ => -kcos(r, rl),
    };
    if x.is_sign_negative() {
        -v
    } else {
        v
    }
}
fn cos32(x: f32) -> f32 {
    if !x.is_finite() {
        return f32::NAN;
    }
    let (r, rl, n) = reduce(x.abs());
    match n {
        0 => kcos(r, rl),
        1 => -ksin(r, rl),
        2 => -kcos(r, rl),
        _ => ksin(r, rl),
    }
}
fn tan32(x: f32) -> f32 {
    if !x.is_finite() {
        return f32::NAN;
    }
    let (r, rl, n) = reduce(x.abs());
    let (s, c) = (ksin(r, rl), kcos(r, rl));
    let v = if n & 1 == 0 { s / c } else { -c / s };
    if x.is_sign_negative() {
        -v
    } else {
        v
    }
}
fn ulps(a: f32, b: f32) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    let key = |v: f32| {
        let i = v.to_bits() as i32;
        if i < 0 {
            (i32::MIN - i) as i64
        } else {
            i as i64
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

fn worst(xs: impl Iterator<Item = f32>) -> [(u64, f32); 3] {
    let mut worst = [(0u64, 0f32); 3];
    for x in xs {
        for (k, (got, want)) in [
            (sin32(x), x.sin()),
            (cos32(x), x.cos()),
            (tan32(x), x.tan()),
        ]
        .into_iter()
        .enumerate()
        {
            let u = ulps(got, want);
            if u > worst[k].0 {
                worst[k] = (u, x);
            }
        }
    }
    worst
}

#[track_caller]
fn assert_within(w: [(u64, f32); 3]) {
    assert!(w[0].0 <= 1, "sin({:e}): {} ULP", w[0].1, w[0].0);
    assert!(w[1].0 <= 1, "cos({:e}): {} ULP", w[1].1, w[1].0);
    assert!(w[2].0 <= 2, "tan({:e}): {} ULP", w[2].1, w[2].0);
}

#[test]
fn every_float_of_two_ranges() {
    // Around π/4 (where the reduction starts) and around 10^5.
    let from = |x: f32, count: u32| (0..count).map(move |k| f32::from_bits(x.to_bits() + k));
    assert_within(worst(from(0.75, 1 << 20)));
    assert_within(worst(from(1e5, 1 << 20)));
}

#[test]
fn random_arguments_of_every_exponent() {
    let mut s: u64 = 0x1234_5678_9abc_def1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let xs: Vec<f32> = (0..1_000_000)
        .map(|_| f32::from_bits(next() as u32))
        .filter(|x| x.is_finite())
        .collect();
    assert_within(worst(xs.into_iter()));
}
