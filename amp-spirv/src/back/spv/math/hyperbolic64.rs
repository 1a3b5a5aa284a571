//! The `f64` hyperbolic functions and their inverses, and `cbrt`, built on the exponentials
//! and logarithms.

// The constants keep fdlibm's digits, so they can be checked against its source.
#![allow(clippy::excessive_precision)]

use super::inst;
use crate::back::spv::{glsl, Emitter};
use crate::types::Scalar;
use rspirv::spirv::{Op, Word};

impl Emitter<'_> {
    pub(super) fn ext_max0(&mut self, v: Word, zero: Word) -> Word {
        let t = self.scalar_ty(Scalar::F64);
        self.ext(glsl::NMAX, t, &[v, zero])
    }

    /// `e^|x|` that stays finite as long as `cosh x` does: `(e^(|x|/2))²/2` computed as
    /// `e^(|x|/2) * (e^(|x|/2) / 2)`.
    fn half_exp_abs(&mut self, ax: Word) -> Word {
        let half = self.d(0.5);
        let h = self.mul(ax, half);
        let w = self.exp64(h);
        let hw = self.mul(w, half);
        self.mul(w, hw)
    }

    pub(super) fn cosh64(&mut self, x: Word) -> Word {
        let ax = self.glsl1(Scalar::F64, inst::FABS, x);
        let e = self.exp64(ax);
        let (half, one) = (self.d(0.5), self.d(1.0));
        let he = self.mul(half, e);
        let inv = self.div(half, e);
        let small = self.add(he, inv);
        let big = self.half_exp_abs(ax);
        let limit = self.d(700.0);
        let large = self.cmp(Op::FOrdGreaterThan, ax, limit);
        let r = self.select(Scalar::F64, large, big, small);
        // cosh x - 1 is below half an ulp of 1 for |x| < 2^-26.
        let tiny = self.d(1.0 / 67_108_864.0);
        let is_tiny = self.cmp(Op::FOrdLessThan, ax, tiny);
        self.select(Scalar::F64, is_tiny, one, r)
    }

    /// fdlibm's `sinh`: `(t + t / (t + 1)) / 2` with `t = expm1(|x|)` below 22.
    pub(super) fn sinh64(&mut self, x: Word) -> Word {
        let ax = self.glsl1(Scalar::F64, inst::FABS, x);
        let t = self.expm1_64(ax);
        let (one, half) = (self.d(1.0), self.d(0.5));
        let t1 = self.add(t, one);
        let q = self.div(t, t1);
        let s = self.add(t, q);
        let small = self.mul(half, s);
        let big = self.half_exp_abs(ax);
        let limit = self.d(22.0);
        let large = self.cmp(Op::FOrdGreaterThan, ax, limit);
        let r = self.select(Scalar::F64, large, big, small);
        let r = self.copysign_bits(Scalar::F64, r, x);
        let nan = self.test(Op::IsNan, x);
        self.select(Scalar::F64, nan, x, r)
    }

    /// `tanh |x| = t / (t + 2)` with `t = expm1(2|x|)`; 1 beyond 22.
    pub(super) fn tanh64(&mut self, x: Word) -> Word {
        let ax = self.glsl1(Scalar::F64, inst::FABS, x);
        let two_x = self.add(ax, ax);
        let t = self.expm1_64(two_x);
        let (one, two) = (self.d(1.0), self.d(2.0));
        let t2 = self.add(t, two);
        let r = self.div(t, t2);
        let limit = self.d(22.0);
        let large = self.cmp(Op::FOrdGreaterThan, ax, limit);
        let r = self.select(Scalar::F64, large, one, r);
        let r = self.copysign_bits(Scalar::F64, r, x);
        let nan = self.test(Op::IsNan, x);
        self.select(Scalar::F64, nan, x, r)
    }

    /// fdlibm's `asinh`: `log1p(|x| + x² / (1 + sqrt(1 + x²)))`, `ln|x| + ln 2` for huge `|x|`.
    pub(super) fn asinh64(&mut self, x: Word) -> Word {
        let ax = self.glsl1(Scalar::F64, inst::FABS, x);
        let one = self.d(1.0);
        let xx = self.mul(ax, ax);
        let xx1 = self.add(xx, one);
        let root = self.glsl1(Scalar::F64, inst::SQRT, xx1);
        let den = self.add(one, root);
        let q = self.div(xx, den);
        let arg = self.add(ax, q);
        let small = self.ln1p64(arg);
        let l = self.ln64(ax);
        let ln2 = self.d(std::f64::consts::LN_2);
        let big = self.add(l, ln2);
        let limit = self.d(268_435_456.0);
        let large = self.cmp(Op::FOrdGreaterThan, ax, limit);
        let r = self.select(Scalar::F64, large, big, small);
        let r = self.copysign_bits(Scalar::F64, r, x);
        let nan = self.test(Op::IsNan, x);
        self.select(Scalar::F64, nan, x, r)
    }

    /// fdlibm's `acosh`: `log1p(t + sqrt(2t + t²))`, `t = x - 1`, below 2; `ln(2x - 1/(x +
    /// sqrt(x² - 1)))` up to 2^28; `ln x + ln 2` beyond. NaN below 1.
    pub(super) fn acosh64(&mut self, x: Word) -> Word {
        let (one, two) = (self.d(1.0), self.d(2.0));
        let t = self.sub(x, one);
        let two_t = self.mul(two, t);
        let s = self.fma(t, t, two_t);
        let root = self.glsl1(Scalar::F64, inst::SQRT, s);
        let arg = self.add(t, root);
        let small = self.ln1p64(arg);
        let xx = self.mul(x, x);
        let xx1 = self.sub(xx, one);
        let r2 = self.glsl1(Scalar::F64, inst::SQRT, xx1);
        let xr = self.add(x, r2);
        let inv = self.div(one, xr);
        let two_x = self.mul(two, x);
        let mid_arg = self.sub(two_x, inv);
        let mid = self.ln64(mid_arg);
        let l = self.ln64(x);
        let ln2 = self.d(std::f64::consts::LN_2);
        let big = self.add(l, ln2);
        let is_mid = self.cmp(Op::FOrdGreaterThanEqual, x, two);
        let r = self.select(Scalar::F64, is_mid, mid, small);
        let limit = self.d(268_435_456.0);
        let large = self.cmp(Op::FOrdGreaterThan, x, limit);
        let r = self.select(Scalar::F64, large, big, r);
        let below = self.cmp(Op::FUnordLessThan, x, one);
        let nan = self.d(f64::NAN);
        self.select(Scalar::F64, below, nan, r)
    }

    /// fdlibm's `atanh`: `log1p(2|x| + 2x²/(1 - |x|)) / 2` below 0.5, `log1p(2|x|/(1 - |x|)) / 2`
    /// above; NaN beyond 1, ±inf at ±1.
    pub(super) fn atanh64(&mut self, x: Word) -> Word {
        let ax = self.glsl1(Scalar::F64, inst::FABS, x);
        let (one, half) = (self.d(1.0), self.d(0.5));
        let omx = self.sub(one, ax);
        let t = self.add(ax, ax);
        let tx = self.mul(t, ax);
        let q = self.div(tx, omx);
        let a_small = self.add(t, q);
        let a_big = self.div(t, omx);
        let lower = self.cmp(Op::FOrdLessThan, ax, half);
        let arg = self.select(Scalar::F64, lower, a_small, a_big);
        let l = self.ln1p64(arg);
        let r = self.mul(half, l);
        let r = self.copysign_bits(Scalar::F64, r, x);
        let outside = self.cmp(Op::FUnordGreaterThan, ax, one);
        let nan = self.d(f64::NAN);
        self.select(Scalar::F64, outside, nan, r)
    }

    /// `cbrt x`: `e^(ln|x| / 3)` refined by one Newton step `y - (y³ - |x|) / (3y²)`, with the
    /// sign of `x`; zeros, infinities and NaN pass through.
    pub(super) fn cbrt64(&mut self, x: Word) -> Word {
        let ax = self.glsl1(Scalar::F64, inst::FABS, x);
        // Far from 1, |x| is scaled by 2^±162 (exactly) and the root by 2^∓54, so that the
        // Newton step's cube neither underflows into denormals (the differential tester found
        // `cbrt(5e-324)` 66 ULP off) nor overflows.
        let (tiny_bound, huge_bound) = (self.d(2f64.powi(-900)), self.d(2f64.powi(900)));
        let tiny = self.cmp(Op::FOrdLessThan, ax, tiny_bound);
        let huge = self.cmp(Op::FOrdGreaterThan, ax, huge_bound);
        let (up, down) = (self.d(2f64.powi(162)), self.d(2f64.powi(-162)));
        let in_scale = self.select(Scalar::F64, huge, down, up);
        let scaled = self.or(tiny, huge);
        let one = self.d(1.0);
        let in_scale = self.select(Scalar::F64, scaled, in_scale, one);
        let (root_up, root_down) = (self.d(2f64.powi(54)), self.d(2f64.powi(-54)));
        let out_scale = self.select(Scalar::F64, huge, root_up, root_down);
        let out_scale = self.select(Scalar::F64, scaled, out_scale, one);
        let ax = self.mul(ax, in_scale);
        let l = self.ln64(ax);
        let third = self.d(1.0 / 3.0);
        let lt = self.mul(l, third);
        let y = self.exp64(lt);
        let yy = self.mul(y, y);
        let nax = self.neg(Scalar::F64, ax);
        let yyy = self.fma(yy, y, nax);
        let three = self.d(3.0);
        let d = self.mul(three, yy);
        let step = self.div(yyy, d);
        let y = self.sub(y, step);
        let y = self.mul(y, out_scale);
        let r = self.copysign_bits(Scalar::F64, y, x);
        let zero = self.d(0.0);
        let is_zero = self.cmp(Op::FOrdEqual, x, zero);
        let inf = self.test(Op::IsInf, x);
        let nan = self.test(Op::IsNan, x);
        let pass = self.or(is_zero, inf);
        let pass = self.or(pass, nan);
        self.select(Scalar::F64, pass, x, r)
    }
}
