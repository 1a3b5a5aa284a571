//! Math functions: the `GLSL.std.450` instructions where they match Rust's semantics, and
//! the functions written out in SPIR-V instructions where they do not: the `f64` library
//! (`GLSL.std.450`'s transcendental instructions take 16- and 32-bit floats only) and the
//! functions of both widths that `GLSL.std.450` lacks or leaves undefined at the edges.
//!
//! The `f64` functions follow fdlibm (Sun's freely distributable libm, which Rust's `libm` and
//! most C libraries descend from): argument reduction with constants split into a high part
//! whose products are exact and a low part, then a minimax polynomial. Every operation is
//! `NoContraction` so the driver keeps the error-compensating sequences as written. The errors
//! measured against Rust's std are in docs/math.md.

mod any_width;
mod exact;
pub(super) use exact::Foldable;
mod exp_log64;
mod float;
mod hyperbolic64;
mod integer;
mod rounded;
mod trig32;
mod trig64;

use super::{glsl, Emitter};
use crate::back::spv::Invariant;
use crate::ir::Lit;
use crate::math::MathFn;
use crate::types::Scalar;
use exp_log64::{LOG10E, LOG2E};
pub(super) use rounded::Rounded;
use rspirv::spirv::{Op, Word};

/// `GLSL.std.450` instruction numbers used here.
mod inst {
    pub const TRUNC: u32 = 3;
    pub const FABS: u32 = 4;
    pub const FLOOR: u32 = 8;
    pub const SQRT: u32 = 31;
    pub const FMA: u32 = 50;
    pub const FIND_U_MSB: u32 = 75;
}

impl Emitter<'_> {
    /// A math function on `s` (`f32` or `f64`) arguments.
    pub(super) fn math(&mut self, f: MathFn, s: Scalar, a: &[Word]) -> Word {
        use MathFn::*;
        let t = self.scalar_ty(s);
        let b = self.scalar_ty(Scalar::Bool);
        let c = |e: &mut Self, v: f64| e.const_scalar(s, Lit::Float(v, v as f32));
        let glsl_op = |f: MathFn| -> Option<u32> {
            Some(match f {
                Sin => 13,
                Cos => 14,
                Tan => 15,
                Asin => 16,
                Acos => 17,
                Atan => 18,
                Sinh => 19,
                Cosh => 20,
                Tanh => 21,
                Asinh => 22,
                Acosh => 23,
                Atanh => 24,
                Atan2 => 25,
                Exp => 27,
                Log => 28,
                Exp2 => 29,
                Log2 => 30,
                Sqrt => 31,
                Rsqrt => 32,
                Floor => 8,
                Ceil => 9,
                Trunc => 3,
                _ => return None,
            })
        };
        if let Some(v) = self.math_any_width(f, s, a) {
            return v;
        }
        if s == Scalar::F64 {
            if let Some(v) = self.math_f64(f, a) {
                return v;
            }
        }
        if f == Trunc {
            return self.trunc(s, a[0]);
        }
        if f == Atan2 {
            return self.atan2_32(a[0], a[1]);
        }
        if s == Scalar::F32 && f == Sqrt {
            return self.sqrt_f32(a[0]);
        }
        if s == Scalar::F32 && matches!(f, Sin | Cos | Tan) && !self.fast_math {
            return self.trig32(f, a[0]);
        }
        if let Some(inst) = glsl_op(f) {
            return self.ext(inst, t, a);
        }
        let x = a[0];
        match f {
            Exp10 => {
                let k = c(self, std::f64::consts::LOG2_10);
                let y = self.op(Op::FMul, t, &[x, k]);
                self.ext(29, t, &[y])
            }
            Expm1 => {
                let e = self.ext(27, t, &[x]);
                let one = c(self, 1.0);
                self.op(Op::FSub, t, &[e, one])
            }
            Log10 => {
                let l = self.ext(30, t, &[x]);
                let k = c(self, std::f64::consts::LOG10_2);
                self.op(Op::FMul, t, &[l, k])
            }
            Log1p => {
                let one = c(self, 1.0);
                let y = self.op(Op::FAdd, t, &[x, one]);
                self.ext(28, t, &[y])
            }
            Pow => self.pow(s, x, a[1]),
            // Rust and C round halfway cases away from zero; GLSL's Round leaves them to the
            // implementation.
            Round => {
                let tr = self.trunc(s, x);
                let diff = self.op(Op::FSub, t, &[x, tr]);
                let ad = self.ext(4, t, &[diff]);
                let half = c(self, 0.5);
                let up = self.op(Op::FOrdGreaterThanEqual, b, &[ad, half]);
                let sign = self.ext(6, t, &[x]);
                // Select rather than add 0.0: `trunc(-0.25) + 0.0` would lose the sign of -0.0.
                let stepped = self.op(Op::FAdd, t, &[tr, sign]);
                self.op(Op::Select, t, &[up, stepped, tr])
            }
            // Rust's `fract` keeps the sign of `x` (GLSL's Fract is `x - floor(x)`).
            Fract => {
                let tr = self.trunc(s, x);
                self.op(Op::FSub, t, &[x, tr])
            }
            Fmod => self.float_rem(s, x, a[1]),
            // `m sqrt(1 + (n/m)^2)` with `m` the larger magnitude: `sqrt(x^2 + y^2)` overflows
            // beyond ~1.8e19 (f32) and loses everything below ~1e-19 (`hypot(-2.2e4, 1.2e-38)`
            // and `hypot(x, 1e-40)` came out wrong). An infinity wins over a NaN, as in C and
            // Rust.
            Hypot => {
                let y = a[1];
                let ax = self.ext(4, t, &[x]);
                let ay = self.ext(4, t, &[y]);
                let m = self.ext(glsl::NMAX, t, &[ax, ay]);
                let n = self.ext(glsl::NMIN, t, &[ax, ay]);
                let r = self.fop(Op::FDiv, s, n, m);
                let rr = self.fop(Op::FMul, s, r, r);
                let one = c(self, 1.0);
                let sum = self.fop(Op::FAdd, s, one, rr);
                let root = self.ext(31, t, &[sum]);
                let h = self.fop(Op::FMul, s, m, root);
                let zero = c(self, 0.0);
                let m_zero = self.op(Op::FOrdEqual, b, &[m, zero]);
                let h = self.op(Op::Select, t, &[m_zero, zero, h]);
                let nan = self.float_const(s, f64::NAN);
                let x_nan = self.op(Op::IsNan, b, &[x]);
                let y_nan = self.op(Op::IsNan, b, &[y]);
                let any_nan = self.op(Op::LogicalOr, b, &[x_nan, y_nan]);
                let h = self.op(Op::Select, t, &[any_nan, nan, h]);
                let inf = self.float_const(s, f64::INFINITY);
                let x_inf = self.op(Op::IsInf, b, &[x]);
                let y_inf = self.op(Op::IsInf, b, &[y]);
                let any_inf = self.op(Op::LogicalOr, b, &[x_inf, y_inf]);
                self.op(Op::Select, t, &[any_inf, inf, h])
            }
            // Zeros, infinities and NaN are their own cube roots (GLSL's Pow gave 0 for a NaN).
            Cbrt => {
                let ax = self.ext(4, t, &[x]);
                let third = c(self, 1.0 / 3.0);
                // The root of a scaled denormal is scaled back by 2^-8.
                let (tiny, base) = self.denormal_scaled(s, ax);
                let r = self.ext(26, t, &[base, third]);
                // One Newton step, r + (base / r² - r) / 3 written as (2r + base / r²) / 3:
                // Pow's exp2(log2(x) / 3) alone was 33 ulps off for some inputs (the
                // differential tester found 0x00600d23).
                let r2 = self.fop(Op::FMul, s, r, r);
                let q = self.fop(Op::FDiv, s, base, r2);
                let two_r = self.fop(Op::FAdd, s, r, r);
                let sum = self.fop(Op::FAdd, s, two_r, q);
                let r = self.fop(Op::FMul, s, sum, third);
                let down = c(self, 1.0 / 256.0);
                let unscaled = self.fop(Op::FMul, s, r, down);
                let r = self.op(Op::Select, t, &[tiny, unscaled, r]);
                let r = self.copysign(s, r, x);
                let zero = c(self, 0.0);
                let x_zero = self.op(Op::FOrdEqual, b, &[x, zero]);
                let x_nan = self.op(Op::IsNan, b, &[x]);
                let x_inf = self.op(Op::IsInf, b, &[x]);
                let itself = self.op(Op::LogicalOr, b, &[x_nan, x_inf]);
                let itself = self.op(Op::LogicalOr, b, &[itself, x_zero]);
                self.op(Op::Select, t, &[itself, x, r])
            }
            Copysign => self.copysign(s, x, a[1]),
            Fdim => {
                let d = self.op(Op::FSub, t, &[x, a[1]]);
                let zero = c(self, 0.0);
                let gt = self.op(Op::FOrdGreaterThan, b, &[x, a[1]]);
                let nan = self.op(Op::IsNan, b, &[d]);
                let r = self.op(Op::Select, t, &[gt, d, zero]);
                self.op(Op::Select, t, &[nan, d, r])
            }
            Rcp => {
                let one = c(self, 1.0);
                if s == Scalar::F32 {
                    self.div_f32(one, x)
                } else {
                    self.op(Op::FDiv, t, &[one, x])
                }
            }
            IsNan => self.op(Op::IsNan, b, &[x]),
            IsInf => self.op(Op::IsInf, b, &[x]),
            IsFinite => {
                let n = self.op(Op::IsNan, b, &[x]);
                let i = self.op(Op::IsInf, b, &[x]);
                let either = self.op(Op::LogicalOr, b, &[n, i]);
                self.op(Op::LogicalNot, b, &[either])
            }
            // Rust: 1.0 for +0.0 and positives, -1.0 for -0.0 and negatives, NaN for NaN.
            Signum => {
                let one = c(self, 1.0);
                let r = self.copysign(s, one, x);
                let nan = self.op(Op::IsNan, b, &[x]);
                self.op(Op::Select, t, &[nan, x, r])
            }
            // A zero is returned as it is: where the driver knows `x` is a zero (an expression
            // of constants), llvmpipe folds `x * k` to `+0.0` even for `-0.0` (as with the
            // other operations on zeros, docs/semantics.md), and `±0 * k` is `x` anyway.
            ToDegrees | ToRadians => {
                let k = if f == ToDegrees {
                    180.0 / std::f64::consts::PI
                } else {
                    std::f64::consts::PI / 180.0
                };
                let k = c(self, k);
                let product = self.op(Op::FMul, t, &[x, k]);
                self.exact(product);
                let is_zero = self.is_zero_bits(s, x);
                self.op(Op::Select, t, &[is_zero, x, product])
            }
            // Rust's `clamp`: `lo` below it, `hi` above it, `x` itself otherwise (a NaN, and a
            // `-0.0` against a `0.0` bound, whose sign GLSL's min and max leave open).
            Clamp => {
                let below = self.op(Op::FOrdLessThan, b, &[x, a[1]]);
                let r = self.op(Op::Select, t, &[below, a[1], x]);
                let above = self.op(Op::FOrdGreaterThan, b, &[r, a[2]]);
                self.op(Op::Select, t, &[above, a[2], r])
            }
            _ => self.broken(Invariant::CheckedType),
        }
    }

    /// The `f64` versions of the functions `GLSL.std.450` has for 32-bit floats only; `None`
    /// for the functions whose generic lowering works for `f64`.
    fn math_f64(&mut self, f: MathFn, a: &[Word]) -> Option<Word> {
        use MathFn::*;
        let x = a[0];
        Some(match f {
            Exp => self.exp64(x),
            Exp2 => self.exp2_64(x),
            Exp10 => self.exp10_64(x),
            Expm1 => self.expm1_64(x),
            Log => self.ln64(x),
            Log2 => self.log_scaled64(x, LOG2E),
            Log10 => self.log_scaled64(x, LOG10E),
            Log1p => self.ln1p64(x),
            Sin => self.sin_cos64(x).0,
            Cos => self.sin_cos64(x).1,
            Tan => self.tan64(x),
            Atan => self.atan64(x),
            Atan2 => self.atan2_64(x, a[1]),
            Asin => self.asin_acos64(x, true),
            Acos => self.asin_acos64(x, false),
            Sinh => self.sinh64(x),
            Cosh => self.cosh64(x),
            Tanh => self.tanh64(x),
            Asinh => self.asinh64(x),
            Acosh => self.acosh64(x),
            Atanh => self.atanh64(x),
            Cbrt => self.cbrt64(x),
            _ => return None,
        })
    }

    /// `|x|` with the sign bit of `y`, on the bits (of the high words of an `f64`, which has no
    /// 64-bit integer to hold it without the `Int64` capability): exact for every `x` and `y`,
    /// NaNs included, as Rust's `copysign`.
    fn copysign(&mut self, s: Scalar, x: Word, y: Word) -> Word {
        if s == Scalar::F32 {
            let t = self.scalar_ty(s);
            let u = self.scalar_ty(Scalar::U32);
            let xb = self.op(Op::Bitcast, u, &[x]);
            let yb = self.op(Op::Bitcast, u, &[y]);
            let magnitude = self.constant(u, 0x7fff_ffff, false);
            let sign = self.constant(u, 0x8000_0000, false);
            let xm = self.op(Op::BitwiseAnd, u, &[xb, magnitude]);
            let ys = self.op(Op::BitwiseAnd, u, &[yb, sign]);
            let r = self.op(Op::BitwiseOr, u, &[xm, ys]);
            return self.op(Op::Bitcast, t, &[r]);
        }
        // `f64`: the same on the high words (comparisons would miss the sign of a NaN `y`).
        let u = self.scalar_ty(Scalar::U32);
        let (lo, hi) = self.words(x);
        let (_, y_hi) = self.words(y);
        let magnitude = self.constant(u, 0x7fff_ffff, false);
        let sign = self.constant(u, 0x8000_0000, false);
        let hm = self.op(Op::BitwiseAnd, u, &[hi, magnitude]);
        let ys = self.op(Op::BitwiseAnd, u, &[y_hi, sign]);
        let hi = self.op(Op::BitwiseOr, u, &[hm, ys]);
        self.f64_of_words(lo, hi)
    }

    /// Rust's `powf` (and C's `pow`) on every input: GLSL's Pow is undefined for `x < 0` and for
    /// `x == 0, y <= 0`, so those cases are computed here (negative `x` with an integer `y`
    /// takes the sign of the odd power; otherwise NaN; `pow(x, 0)` is 1 even for NaN).
    fn pow(&mut self, s: Scalar, x: Word, y: Word) -> Word {
        let t = self.scalar_ty(s);
        let b = self.scalar_ty(Scalar::Bool);
        let k = |e: &mut Self, v: f64| e.const_scalar(s, Lit::Float(v, v as f32));
        let (zero, one, two) = (k(self, 0.0), k(self, 1.0), k(self, 2.0));
        let inf = k(self, f64::INFINITY);
        let nan = k(self, f64::NAN);
        let ax = self.ext(4, t, &[x]);
        let p = if s == Scalar::F64 {
            self.pow_abs64(ax, y)
        } else {
            let (tiny, base) = self.denormal_scaled(s, ax);
            let p = self.ext(26, t, &[base, y]);
            let minus_24 = k(self, -24.0);
            let e = self.fop(Op::FMul, s, y, minus_24);
            let correction = self.ext(29, t, &[e]);
            let corrected = self.fop(Op::FMul, s, p, correction);
            self.op(Op::Select, t, &[tiny, corrected, p])
        };
        let y_inf = self.op(Op::IsInf, b, &[y]);
        // An odd integer y (finite) gives the sign of x to the result.
        let y_trunc = self.trunc(s, y);
        let y_int = self.op(Op::FOrdEqual, b, &[y_trunc, y]);
        let y_fin = self.op(Op::LogicalNot, b, &[y_inf]);
        let y_int_fin = self.op(Op::LogicalAnd, b, &[y_int, y_fin]);
        let half = self.op(Op::FRem, t, &[y, two]);
        let odd_rem = self.op(Op::FUnordNotEqual, b, &[half, zero]);
        let odd = self.op(Op::LogicalAnd, b, &[odd_rem, y_int_fin]);
        // |x| == 0: 0 for y > 0, +inf for y < 0.
        let x_zero = self.op(Op::FOrdEqual, b, &[ax, zero]);
        let y_neg = self.op(Op::FOrdLessThan, b, &[y, zero]);
        let at_zero = self.op(Op::Select, t, &[y_neg, inf, zero]);
        let p = self.op(Op::Select, t, &[x_zero, at_zero, p]);
        // x negative (-0.0 and -inf included): an odd integer y negates |x|^y; an even integer
        // or infinite y keeps it, as do -0.0 and -inf for every y; otherwise NaN.
        let negp = self.op(Op::FNegate, t, &[p]);
        let signed = self.op(Op::Select, t, &[odd, negp, p]);
        let neg_inf = k(self, f64::NEG_INFINITY);
        let x_neg_inf = self.op(Op::FOrdEqual, b, &[x, neg_inf]);
        let defined = self.op(Op::LogicalOr, b, &[y_int, y_inf]);
        let defined = self.op(Op::LogicalOr, b, &[defined, x_neg_inf]);
        let defined = self.op(Op::LogicalOr, b, &[defined, x_zero]);
        let for_neg = self.op(Op::Select, t, &[defined, signed, nan]);
        let x_neg = self.sign_bit(s, x);
        let r = self.op(Op::Select, t, &[x_neg, for_neg, p]);
        // A NaN operand gives NaN (GLSL's Pow may give anything; lavapipe gave 0), except that
        // `1^y` is 1 for every `y` and `(-1)^±inf` is 1, as in C and Rust.
        let x_nan = self.op(Op::IsNan, b, &[x]);
        let y_nan = self.op(Op::IsNan, b, &[y]);
        let any_nan = self.op(Op::LogicalOr, b, &[x_nan, y_nan]);
        let r = self.op(Op::Select, t, &[any_nan, nan, r]);
        let ax_one = self.op(Op::FOrdEqual, b, &[ax, one]);
        let minus_one_inf = self.op(Op::LogicalAnd, b, &[ax_one, y_inf]);
        let x_one = self.op(Op::FOrdEqual, b, &[x, one]);
        let is_one = self.op(Op::LogicalOr, b, &[x_one, minus_one_inf]);
        let y_zero = self.op(Op::FOrdEqual, b, &[y, zero]);
        let is_one = self.op(Op::LogicalOr, b, &[is_one, y_zero]);
        self.op(Op::Select, t, &[is_one, one, r])
    }

    /// For GLSL's `Pow` on an `f32` magnitude `ax`: whether it is a denormal, and `ax` scaled
    /// by 2^24 (exactly) if it is, as lavapipe's `Pow` flushes denormals.
    fn denormal_scaled(&mut self, s: Scalar, ax: Word) -> (Word, Word) {
        let t = self.scalar_ty(s);
        let b = self.scalar_ty(Scalar::Bool);
        let min_normal = self.float_const(s, f32::MIN_POSITIVE as f64);
        let tiny = self.op(Op::FOrdLessThan, b, &[ax, min_normal]);
        let up = self.float_const(s, 16_777_216.0);
        let scaled = self.fop(Op::FMul, s, ax, up);
        let base = self.op(Op::Select, t, &[tiny, scaled, ax]);
        (tiny, base)
    }

    /// `atan2(y, x)` on `f32` with C's and Rust's zeros, infinities and NaNs: GLSL's Atan2 is
    /// undefined where both are zero (lavapipe gave `3π/4` for `atan2(+0, -0)`, Rust `π`), so
    /// it gets `atan(|y| / |x|)` by quadrant as the `f64` version does.
    fn atan2_32(&mut self, y: Word, x: Word) -> Word {
        let s = Scalar::F32;
        let ay = self.glsl1(s, inst::FABS, y);
        let ax = self.glsl1(s, inst::FABS, x);
        let iy = self.test(Op::IsInf, y);
        let ix = self.test(Op::IsInf, x);
        let both = self.cmp(Op::LogicalAnd, iy, ix);
        let one = self.float_const(s, 1.0);
        let ay = self.select(s, both, one, ay);
        let ax = self.select(s, both, one, ax);
        let q = self.fop(Op::FDiv, s, ay, ax);
        let z = self.glsl1(s, 18, q);
        // atan(q) rounds to q below 2^-12 (the q^3/3 term is under half an ulp); lavapipe's
        // Atan loses the last bits of denormals there.
        let small = self.float_const(s, 1.0 / 4096.0);
        let q_small = self.cmp(Op::FOrdLessThan, q, small);
        let z = self.select(s, q_small, q, z);
        // atan(inf) as π/2 exactly: Vulkan bounds Atan only on finite arguments.
        let q_inf = self.test(Op::IsInf, q);
        let half_pi = self.float_const(s, std::f64::consts::FRAC_PI_2);
        let z = self.select(s, q_inf, half_pi, z);
        let zero = self.float_const(s, 0.0);
        let y_zero = self.cmp(Op::FOrdEqual, ay, zero);
        let z = self.select(s, y_zero, zero, z);
        // x negative (-0.0 included): π - z.
        let pi = self.float_const(s, std::f64::consts::PI);
        let flipped = self.fop(Op::FSub, s, pi, z);
        let x_neg = self.sign_bit(s, x);
        let r = self.select(s, x_neg, flipped, z);
        let r = self.copysign_bits(s, r, y);
        let nx = self.test(Op::IsNan, x);
        let ny = self.test(Op::IsNan, y);
        let nan = self.or(nx, ny);
        let sum = self.fop(Op::FAdd, s, x, y);
        self.select(s, nan, sum, r)
    }
}
