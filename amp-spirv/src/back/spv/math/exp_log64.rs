//! The `f64` exponentials and logarithms (and `powf`'s core), after fdlibm.

// The constants keep fdlibm's digits, so they can be checked against its source.
#![allow(clippy::excessive_precision)]

use super::inst;
use crate::back::spv::{glsl, Emitter};
use crate::types::Scalar;
use rspirv::spirv::{Op, Word};

/// ln 2 split for exact products `k * LN2_HI` (fdlibm: the high part has 32 significant bits).
const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-01;
const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;
/// log2(e) and log10(e) as a double plus the rest.
pub(super) const LOG2E: (f64, f64) = (std::f64::consts::LOG2_E, 2.035_527_374_093_103_3e-17);
pub(super) const LOG10E: (f64, f64) = (std::f64::consts::LOG10_E, 1.098_319_650_216_765e-17);
/// log10(2) split so that `k * LOG10_2_HI` is exact (the high part has 32 significant bits).
const LOG10_2_HI: f64 = 0.301_029_995_549_470_2;
const LOG10_2_LO: f64 = 1.145_110_089_802_183_8e-10;
/// fdlibm's `__ieee754_log` polynomial in `s²`, `s = f / (2 + f)`.
const LG: [f64; 7] = [
    6.666_666_666_666_735_130e-01,
    3.999_999_999_940_941_908e-01,
    2.857_142_874_366_239_149e-01,
    2.222_219_843_214_978_396e-01,
    1.818_357_216_161_805_012e-01,
    1.531_383_769_920_937_332e-01,
    1.479_819_860_511_658_591e-01,
];

impl Emitter<'_> {
    /// `p * 2^k` for an `f64` `k` with `p` near 1 and `k` in [-1080, 1030]: two normal factors.
    fn scale64(&mut self, p: Word, k: Word) -> Word {
        let i = self.scalar_ty(Scalar::I32);
        let k = self.op(Op::ConvertFToS, i, &[k]);
        let one = self.int(1);
        let half = self.iop(Op::ShiftRightArithmetic, Scalar::I32, k, one);
        let rest = self.iop(Op::ISub, Scalar::I32, k, half);
        let f = self.pow2(Scalar::F64, half);
        let g = self.pow2(Scalar::F64, rest);
        let y = self.mul(p, f);
        self.mul(y, g)
    }

    /// Reduces `xh + xl` (clamped to [-746, 710]) to `k ln 2 + r`, `|r| <= ln(2)/2`:
    /// `(r, k)` with `k` an integral `f64`.
    fn exp_reduce(&mut self, xh: Word, xl: Option<Word>) -> (Word, Word) {
        let t = self.scalar_ty(Scalar::F64);
        let (lo, hi) = (self.d(-746.0), self.d(710.0));
        let xh = self.ext(glsl::NMAX, t, &[xh, lo]);
        let xh = self.ext(glsl::NMIN, t, &[xh, hi]);
        let (log2e, half) = (self.d(LOG2E.0), self.d(0.5));
        let k = self.fma(xh, log2e, half);
        let k = self.glsl1(Scalar::F64, inst::FLOOR, k);
        let nk = self.neg(Scalar::F64, k);
        let (ln2_hi, ln2_lo) = (self.d(LN2_HI), self.d(LN2_LO));
        let r = self.fma(nk, ln2_hi, xh);
        let r = self.fma(nk, ln2_lo, r);
        let r = match xl {
            Some(l) => self.add(r, l),
            None => r,
        };
        (r, k)
    }

    /// `(e^r - 1) / r` for `|r| <= ln(2)/2`: the Taylor series `1 + r/2 + r²/6 + ...` to
    /// r^14/15!, whose rest is below 2^-60.
    fn expm1_over_x(&mut self, r: Word) -> Word {
        let mut coeffs = [1.0f64; 15];
        for n in 1..15 {
            coeffs[n] = coeffs[n - 1] / (n + 1) as f64;
        }
        self.horner(r, &coeffs)
    }

    /// `e^(xh + xl)` for `|xl|` tiny against `xh`, finite and NaN-free inputs clamped to where
    /// the result is neither 0 nor infinite.
    fn exp_core(&mut self, xh: Word, xl: Option<Word>) -> Word {
        let (r, k) = self.exp_reduce(xh, xl);
        // e^r = 1 + r (e^r - 1) / r.
        let q = self.expm1_over_x(r);
        let one = self.d(1.0);
        let p = self.fma(r, q, one);
        self.scale64(p, k)
    }

    pub(super) fn exp64(&mut self, x: Word) -> Word {
        let r = self.exp_core(x, None);
        let nan = self.test(Op::IsNan, x);
        self.select(Scalar::F64, nan, x, r)
    }

    /// `2^x = 2^k e^(r ln 2)`, `r = x - k` exact.
    pub(super) fn exp2_64(&mut self, x: Word) -> Word {
        let t = self.scalar_ty(Scalar::F64);
        let (lo, hi) = (self.d(-1100.0), self.d(1100.0));
        let xc = self.ext(glsl::NMAX, t, &[x, lo]);
        let xc = self.ext(glsl::NMIN, t, &[xc, hi]);
        let half = self.d(0.5);
        let k = self.add(xc, half);
        let k = self.glsl1(Scalar::F64, inst::FLOOR, k);
        let r = self.sub(xc, k);
        // r ln 2 as a double-double keeps the argument's last bits.
        let ln2 = self.d(std::f64::consts::LN_2);
        let (rh, err) = self.two_prod(r, ln2);
        let ln2_lo = self.d(2.319_046_813_846_299_6e-17);
        let rl = self.fma(r, ln2_lo, err);
        let e = self.exp_core(rh, Some(rl));
        let r = self.scale64(e, k);
        let nan = self.test(Op::IsNan, x);
        self.select(Scalar::F64, nan, x, r)
    }

    /// `10^x = 2^k e^((x - k log10 2) ln 10)`.
    pub(super) fn exp10_64(&mut self, x: Word) -> Word {
        let t = self.scalar_ty(Scalar::F64);
        let (lo, hi) = (self.d(-330.0), self.d(310.0));
        let xc = self.ext(glsl::NMAX, t, &[x, lo]);
        let xc = self.ext(glsl::NMIN, t, &[xc, hi]);
        let (log2_10, half) = (self.d(std::f64::consts::LOG2_10), self.d(0.5));
        let k = self.fma(xc, log2_10, half);
        let k = self.glsl1(Scalar::F64, inst::FLOOR, k);
        let nk = self.neg(Scalar::F64, k);
        let (h, l) = (self.d(LOG10_2_HI), self.d(LOG10_2_LO));
        let r = self.fma(nk, h, xc);
        let r = self.fma(nk, l, r);
        let ln10 = self.d(std::f64::consts::LN_10);
        let (rh, err) = self.two_prod(r, ln10);
        let ln10_lo = self.d(-2.170_756_223_382_249_4e-16);
        let rl = self.fma(r, ln10_lo, err);
        let e = self.exp_core(rh, Some(rl));
        let r = self.scale64(e, k);
        let nan = self.test(Op::IsNan, x);
        self.select(Scalar::F64, nan, x, r)
    }

    /// `e^x - 1` without cancellation: `2^k (e^r - 1) + (2^k - 1)` in one fused multiply-add
    /// (`2^k - 1` is exact for the `k` used), `x (e^x - 1)/x` near 0, `e^x - 1` where it is
    /// exact anyway (beyond 700 and below -40).
    pub(super) fn expm1_64(&mut self, x: Word) -> Word {
        let (r, k) = self.exp_reduce(x, None);
        let q = self.expm1_over_x(r);
        let em1 = self.mul(r, q);
        let i = self.scalar_ty(Scalar::I32);
        let ki = self.op(Op::ConvertFToS, i, &[k]);
        let p2 = self.pow2(Scalar::F64, ki);
        let one = self.d(1.0);
        let p2m1 = self.sub(p2, one);
        let mid = self.fma(em1, p2, p2m1);
        let q0 = self.expm1_over_x(x);
        let small = self.mul(x, q0);
        let e = self.exp64(x);
        let big = self.sub(e, one);
        let ax = self.glsl1(Scalar::F64, inst::FABS, x);
        let quarter = self.d(0.25);
        let near = self.cmp(Op::FOrdLessThan, ax, quarter);
        let (lo, hi) = (self.d(-40.0), self.d(700.0));
        let above = self.cmp(Op::FOrdGreaterThan, x, lo);
        let below = self.cmp(Op::FOrdLessThan, x, hi);
        let in_range = self.cmp(Op::LogicalAnd, above, below);
        let r = self.select(Scalar::F64, in_range, mid, big);
        self.select(Scalar::F64, near, small, r)
    }

    /// `ln(x)` of a positive finite `x` as a double-double `(hi, lo)`, and the special-case
    /// result (NaN, -inf, +inf) to use when `x` is not positive and finite.
    fn ln_dd(&mut self, x: Word) -> (Word, Word) {
        let (m, e) = self.frexp(Scalar::F64, x);
        // m in [sqrt(1/2), sqrt(2)): f = m - 1 is exact and small.
        let sqrt_half = self.d(std::f64::consts::FRAC_1_SQRT_2);
        let low = self.cmp(Op::FOrdLessThan, m, sqrt_half);
        let m2 = self.add(m, m);
        let m = self.select(Scalar::F64, low, m2, m);
        let one_i = self.int(1);
        let e1 = self.iop(Op::ISub, Scalar::I32, e, one_i);
        let e = self.select(Scalar::I32, low, e1, e);
        let t = self.scalar_ty(Scalar::F64);
        let k = self.op(Op::ConvertSToF, t, &[e]);
        let one = self.d(1.0);
        let f = self.sub(m, one);
        let two = self.d(2.0);
        let denom = self.add(two, f);
        let s = self.div(f, denom);
        let z = self.mul(s, s);
        let w = self.mul(z, z);
        // fdlibm: R = z (Lg1 + w (Lg3 + ...)) + w (Lg2 + w (Lg4 + ...)).
        let odd = self.horner(w, &[LG[0], LG[2], LG[4], LG[6]]);
        let t2 = self.mul(z, odd);
        let even = self.horner(w, &[LG[1], LG[3], LG[5]]);
        let t1 = self.mul(w, even);
        let r = self.add(t2, t1);
        // hfsq = f²/2 and its rounding error.
        let half = self.d(0.5);
        let hf = self.mul(half, f);
        let (hfsq, hfsq_err) = self.two_prod(hf, f);
        // ln(m) = f - c, c = hfsq - s (hfsq + R).
        let hr = self.add(hfsq, r);
        let shr = self.mul(s, hr);
        let c = self.sub(hfsq, shr);
        let c = self.add(c, hfsq_err);
        let lm_hi = self.sub(f, c);
        let fl = self.sub(f, lm_hi);
        let lm_lo = self.sub(fl, c);
        // k ln2_hi is exact; add it with a two-sum.
        let (ln2_hi, ln2_lo) = (self.d(LN2_HI), self.d(LN2_LO));
        let a = self.mul(k, ln2_hi);
        let hi = self.add(a, lm_hi);
        let (hi, err) = self.two_sum_err(a, lm_hi, hi);
        let kl = self.mul(k, ln2_lo);
        let lo = self.add(lm_lo, kl);
        let lo = self.add(lo, err);
        // Renormalize.
        let sum = self.add(hi, lo);
        let back = self.sub(sum, hi);
        let lo = self.sub(lo, back);
        (sum, lo)
    }

    /// The rounding error of `s = a + b` (Knuth's two-sum), returned with `s`.
    fn two_sum_err(&mut self, a: Word, b: Word, s: Word) -> (Word, Word) {
        let bb = self.sub(s, a);
        let ab = self.sub(s, bb);
        let da = self.sub(a, ab);
        let db = self.sub(b, bb);
        (s, self.add(da, db))
    }

    /// The result of a logarithm where `x` is not positive and finite: NaN for negatives and
    /// NaN, -inf for ±0, +inf for +inf; `value` otherwise.
    fn log_specials(&mut self, x: Word, value: Word) -> Word {
        let zero = self.d(0.0);
        let is_zero = self.cmp(Op::FOrdEqual, x, zero);
        let ninf = self.d(f64::NEG_INFINITY);
        let r = self.select(Scalar::F64, is_zero, ninf, value);
        let inf = self.d(f64::INFINITY);
        let is_inf = self.cmp(Op::FOrdEqual, x, inf);
        let r = self.select(Scalar::F64, is_inf, x, r);
        let neg = self.cmp(Op::FUnordLessThan, x, zero);
        let nan = self.d(f64::NAN);
        self.select(Scalar::F64, neg, nan, r)
    }

    pub(super) fn ln64(&mut self, x: Word) -> Word {
        let (hi, lo) = self.ln_dd(x);
        let v = self.add(hi, lo);
        self.log_specials(x, v)
    }

    /// `ln(x) * c` for `c = log2(e)` or `log10(e)` as a double-double.
    pub(super) fn log_scaled64(&mut self, x: Word, c: (f64, f64)) -> Word {
        let (hi, lo) = self.ln_dd(x);
        let (ch, cl) = (self.d(c.0), self.d(c.1));
        let (p, err) = self.two_prod(hi, ch);
        let t1 = self.mul(lo, ch);
        let t2 = self.fma(hi, cl, t1);
        let tail = self.add(err, t2);
        let v = self.add(p, tail);
        self.log_specials(x, v)
    }

    /// `ln(1 + x)`: `ln(u) x / (u - 1)` with `u = 1 + x` corrects the rounding of `u`.
    pub(super) fn ln1p64(&mut self, x: Word) -> Word {
        let one = self.d(1.0);
        let u = self.add(one, x);
        let l = self.ln64(u);
        let um1 = self.sub(u, one);
        let q = self.div(x, um1);
        let corrected = self.mul(l, q);
        let exact = self.cmp(Op::FOrdEqual, u, one);
        let r = self.select(Scalar::F64, exact, x, corrected);
        // Where u is infinite or not positive, ln(u) is already the answer.
        let zero = self.d(0.0);
        let pos = self.cmp(Op::FOrdGreaterThan, u, zero);
        let inf = self.test(Op::IsInf, u);
        let finite_pos = {
            let not_inf = self.test(Op::LogicalNot, inf);
            self.cmp(Op::LogicalAnd, pos, not_inf)
        };
        self.select(Scalar::F64, finite_pos, r, l)
    }

    /// `|x|^y` for the `f64` `powf`: `e^(y ln|x|)` with `ln` as a double-double, so large
    /// results keep their precision. The caller handles `x <= 0` and `y == 0`.
    pub(super) fn pow_abs64(&mut self, ax: Word, y: Word) -> Word {
        let (lh, ll) = self.ln_dd(ax);
        let (ph, err) = self.two_prod(y, lh);
        let pl = self.fma(y, ll, err);
        let e = self.exp_core(ph, Some(pl));
        // Out of range: overflow to +inf, underflow to 0; ln|x| infinite for |x| = inf.
        let (big, small) = (self.d(710.0), self.d(-746.0));
        let inf = self.d(f64::INFINITY);
        let zero = self.d(0.0);
        let over = self.cmp(Op::FOrdGreaterThan, ph, big);
        let r = self.select(Scalar::F64, over, inf, e);
        let under = self.cmp(Op::FOrdLessThan, ph, small);
        let r = self.select(Scalar::F64, under, zero, r);
        let nan = self.test(Op::IsNan, ph);
        let r = self.select(Scalar::F64, nan, ph, r);
        let x_inf = self.cmp(Op::FOrdEqual, ax, inf);
        let y_pos = self.cmp(Op::FOrdGreaterThan, y, zero);
        let at_inf = self.select(Scalar::F64, y_pos, inf, zero);
        let r = self.select(Scalar::F64, x_inf, at_inf, r);
        // 1^y is 1 for every y, NaN included (C and Rust).
        let one = self.d(1.0);
        let x_one = self.cmp(Op::FOrdEqual, ax, one);
        self.select(Scalar::F64, x_one, one, r)
    }
}
