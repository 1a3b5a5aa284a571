//! Float helpers: the `Norm`/`Unorm` clamps, and per width ([`m32`], [`m64`]) the math
//! functions the kernel language has and std lacks, with the results docs/semantics.md gives.

/// A `Norm`'s clamp, as the host's `Norm::new`: NaN to 0, then into `[-1, 1]` (a `-0.0` stays).
#[inline(always)]
pub fn norm(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(-1.0, 1.0)
    }
}

/// A `Unorm`'s clamp, as the host's `Unorm::new`: NaN to 0, then into `[0, 1]`.
#[inline(always)]
pub fn unorm(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

macro_rules! float_helpers {
    ($t:ident, $bits:ident, $mant:expr, $bias:expr, $limit:expr, $m:ident, $int:ident, $integral:expr) => {
        /// Helpers for one float width.
        pub mod $m {
            // `floor`, `ceil`, `trunc`, `round`: std's results, computed inline. Without SSE4.1
            // (the baseline of x86-64 targets) std calls libm for each, a call per texel of
            // a linear sample. Below `$integral` (2^mantissa bits) every float converts to the
            // integer type exactly; at or above it (and for infinities and NaN) a float is
            // already integral and is its own result. Each result has the sign of `x`, as std's
            // (`-0.0` stays `-0.0`, `floor(-0.5)` is `-1.0`, `ceil(-0.5)` is `-0.0`).

            /// `x.trunc()`.
            #[inline(always)]
            pub fn trunc(x: $t) -> $t {
                if x.is_nan() || x.abs() >= $integral {
                    return x;
                }
                ((x as $int) as $t).copysign(x)
            }
            /// `x.floor()`.
            #[inline(always)]
            pub fn floor(x: $t) -> $t {
                if x.is_nan() || x.abs() >= $integral {
                    return x;
                }
                let t = (x as $int) as $t;
                (if t > x { t - 1.0 } else { t }).copysign(x)
            }
            /// `x.ceil()`.
            #[inline(always)]
            pub fn ceil(x: $t) -> $t {
                if x.is_nan() || x.abs() >= $integral {
                    return x;
                }
                let t = (x as $int) as $t;
                (if t < x { t + 1.0 } else { t }).copysign(x)
            }
            /// `x.round()`: half-way cases away from zero.
            #[inline(always)]
            pub fn round(x: $t) -> $t {
                if x.is_nan() || x.abs() >= $integral {
                    return x;
                }
                let t = (x as $int) as $t;
                // Exact: the fraction of a float below `$integral` is itself a float.
                let away = (x - t).abs() >= 0.5;
                (if away { t + (1.0 as $t).copysign(x) } else { t }).copysign(x)
            }
            /// `x.round_ties_even()`.
            #[inline(always)]
            pub fn round_ties_even(x: $t) -> $t {
                if x.is_nan() || x.abs() >= $integral {
                    return x;
                }
                // Adding and removing 2^mantissa rounds the fraction away in the current
                // (nearest-even) rounding mode; done on |x| so both signs round alike.
                let a = x.abs();
                ((a + $integral) - $integral).copysign(x)
            }
            /// `1 / sqrt(x)`.
            #[inline(always)]
            pub fn rsqrt(x: $t) -> $t {
                1.0 / x.sqrt()
            }
            /// `1 / x`.
            #[inline(always)]
            pub fn rcp(x: $t) -> $t {
                1.0 / x
            }
            /// `10^x`.
            #[inline(always)]
            pub fn exp10(x: $t) -> $t {
                <$t>::powf(10.0, x)
            }
            /// C's `fdim`: `x - y` when `x > y`, 0 otherwise, NaN when either is NaN.
            #[inline(always)]
            pub fn fdim(x: $t, y: $t) -> $t {
                let d = x - y;
                if d.is_nan() || x > y {
                    d
                } else {
                    0.0
                }
            }
            /// Rust's `clamp`, without its panic on bad bounds: a NaN `x` stays NaN, `-0.0`
            /// against a `0.0` bound stays `-0.0`.
            #[inline(always)]
            pub fn clamp(x: $t, lo: $t, hi: $t) -> $t {
                let r = if x < lo { lo } else { x };
                if r > hi {
                    hi
                } else {
                    r
                }
            }
            /// `x * 2^k`, rounded once (C's `ldexp`).
            #[inline(always)]
            pub fn ldexp(x: $t, k: i32) -> $t {
                let k = k.clamp(-$limit, $limit);
                let third = k / 3;
                let rest = k - 2 * third;
                let f = pow2(third);
                x * f * f * pow2(rest)
            }
            /// `2^k` for `k` within the normal exponents.
            #[inline(always)]
            fn pow2(k: i32) -> $t {
                <$t>::from_bits(((k + $bias) as $bits) << $mant)
            }
            /// The mantissa of `frexp(x)`.
            #[inline(always)]
            pub fn frexp_mantissa(x: $t) -> $t {
                frexp(x).0
            }
            /// The exponent of `frexp(x)`.
            #[inline(always)]
            pub fn frexp_exponent(x: $t) -> i32 {
                frexp(x).1
            }
            fn frexp(x: $t) -> ($t, i32) {
                if x == 0.0 || !x.is_finite() {
                    return (x, 0);
                }
                let (y, adj) = if x.abs() < <$t>::MIN_POSITIVE {
                    (x * 18_446_744_073_709_551_616.0, 64)
                } else {
                    (x, 0)
                };
                let b = y.to_bits();
                let one: $bits = 1;
                let exp_mask: $bits = (one << ($bits::BITS - 1 - $mant)) - 1;
                let biased = ((b >> $mant) & exp_mask) as i32;
                let e = biased - ($bias - 1) - adj;
                let m = (b & !(exp_mask << $mant)) | ((($bias - 1) as $bits) << $mant);
                (<$t>::from_bits(m), e)
            }
            /// The fraction of `modf(x)`.
            #[inline(always)]
            pub fn modf_frac(x: $t) -> $t {
                let f = if x.is_infinite() { 0.0 } else { x - x.trunc() };
                f.copysign(x)
            }
            /// `acosh(x)`: fdlibm's `ln_1p` form on `(1, 2]`, where std's `ln(x + ..)` loses
            /// up to ~15 ulp (the device's bound is 3).
            #[inline]
            pub fn acosh(x: $t) -> $t {
                if x > 1.0 && x <= 2.0 {
                    let t = x - 1.0;
                    (t + (2.0 * t + t * t).sqrt()).ln_1p()
                } else {
                    x.acosh()
                }
            }
            /// `atanh(x)`: fdlibm's form, a few ulp closer than std's below 0.5 and near ±1.
            #[inline]
            pub fn atanh(x: $t) -> $t {
                let a = x.abs();
                let arg = if a < 0.5 {
                    2.0 * a + 2.0 * a * a / (1.0 - a)
                } else {
                    2.0 * a / (1.0 - a)
                };
                (0.5 * arg.ln_1p()).copysign(x)
            }
            /// The integral part of `modf(x)`.
            #[inline(always)]
            pub fn modf_int(x: $t) -> $t {
                trunc(x)
            }
            /// C's `nextafter`.
            #[inline(always)]
            pub fn nextafter(x: $t, y: $t) -> $t {
                if x.is_nan() || y.is_nan() {
                    return x + y;
                }
                if x == y {
                    return y;
                }
                if x == 0.0 {
                    return <$t>::from_bits(1).copysign(y);
                }
                let grow = (x < y) == (x > 0.0);
                let b = x.to_bits();
                <$t>::from_bits(if grow {
                    b.wrapping_add(1)
                } else {
                    b.wrapping_sub(1)
                })
            }
        }
    };
}
float_helpers!(f32, u32, 23, 127, 300, m32, i32, 8_388_608.0);
float_helpers!(f64, u64, 52, 1023, 2200, m64, i64, 4_503_599_627_370_496.0);
