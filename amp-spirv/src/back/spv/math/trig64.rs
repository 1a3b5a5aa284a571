//! The `f64` trigonometric functions and their inverses, after fdlibm.

// The constants keep fdlibm's digits, so they can be checked against its source.
#![allow(clippy::excessive_precision)]

use super::inst;
use crate::back::spv::Emitter;
use crate::types::Scalar;
use rspirv::spirv::{Op, Word};

/// π/2 split (fdlibm's `pio2_1`, `pio2_1t`): `k * PIO2_1` is exact for `|k| < 2^20`.
const PIO2_1: f64 = 1.570_796_326_734_125_614_17;
const PIO2_1T: f64 = 6.077_100_506_506_192_249_32e-11;
/// π/2 - PIO2_1 - PIO2_1T.
const PIO2_1TT: f64 = 3.521_559_865_183_2e-27;
const PI: (f64, f64) = (std::f64::consts::PI, 1.224_646_799_147_353_2e-16);
/// fdlibm's `__kernel_sin` and `__kernel_cos` polynomials on [-π/4, π/4].
const S: [f64; 6] = [
    -1.666_666_666_666_663_243_48e-01,
    8.333_333_333_322_489_461_24e-03,
    -1.984_126_982_985_794_931_34e-04,
    2.755_731_370_707_006_767_89e-06,
    -2.505_076_025_340_686_341_95e-08,
    1.589_690_995_211_550_102_21e-10,
];
const C: [f64; 6] = [
    4.166_666_666_666_660_190_37e-02,
    -1.388_888_888_887_410_957_49e-03,
    2.480_158_728_947_672_941_78e-05,
    -2.755_731_435_139_066_330_35e-07,
    2.087_572_321_298_174_827_90e-09,
    -1.135_964_755_778_819_482_65e-11,
];
/// fdlibm's `atan` polynomial on |x| < 7/16, and the reduction points' atan (high, low).
const AT: [f64; 11] = [
    3.333_333_333_333_293_180_27e-01,
    -1.999_999_999_987_648_324_76e-01,
    1.428_571_427_250_346_637_11e-01,
    -1.111_111_040_546_235_578_80e-01,
    9.090_887_133_436_506_561_96e-02,
    -7.691_876_205_044_829_994_95e-02,
    6.661_073_137_387_531_206_69e-02,
    -5.833_570_133_790_573_486_45e-02,
    4.976_877_994_615_932_360_17e-02,
    -3.653_157_274_421_691_552_70e-02,
    1.628_582_011_536_578_236_23e-02,
];
const ATAN_HI: [f64; 4] = [
    4.636_476_090_008_060_935_15e-01,
    std::f64::consts::FRAC_PI_4,
    9.827_937_232_473_290_540_82e-01,
    std::f64::consts::FRAC_PI_2,
];
const ATAN_LO: [f64; 4] = [
    2.269_877_745_296_168_709_24e-17,
    3.061_616_997_868_383_017_93e-17,
    1.390_331_103_123_099_845_16e-17,
    6.123_233_995_736_766_035_87e-17,
];

impl Emitter<'_> {
    /// Reduces `x` by multiples of π/2: `(r, rl, n)` with `x ≈ n π/2 + r + rl`, `|r| <= π/4`
    /// (fdlibm's medium-size reduction, accurate while `|x| < 2^20 π/2`).
    fn reduce_pio2(&mut self, x: Word) -> (Word, Word, Word) {
        let (two_over_pi, half) = (self.d(std::f64::consts::FRAC_2_PI), self.d(0.5));
        let k = self.fma(x, two_over_pi, half);
        let k = self.glsl1(Scalar::F64, inst::FLOOR, k);
        let nk = self.neg(Scalar::F64, k);
        let (p1, p1t) = (self.d(PIO2_1), self.d(PIO2_1T));
        // x - k p1 is exact (p1 has 33 bits, and x is near k p1); k p1t is split into its
        // rounded product and that product's error, so the double-double r + rl stays
        // accurate where x is near a multiple of π/2 and r is tiny.
        let r1 = self.fma(nk, p1, x);
        let (w, w_err) = self.two_prod(k, p1t);
        let r = self.sub(r1, w);
        let d = self.sub(r1, r);
        let rl = self.sub(d, w);
        let rl = self.sub(rl, w_err);
        let p1tt = self.d(PIO2_1TT);
        let rl = self.fma(nk, p1tt, rl);
        // Renormalize so that r carries what it can.
        let sum = self.add(r, rl);
        let back = self.sub(sum, r);
        let rl = self.sub(rl, back);
        let r = sum;
        let i = self.scalar_ty(Scalar::I32);
        let n = self.op(Op::ConvertFToS, i, &[k]);
        (r, rl, n)
    }

    /// fdlibm's `__kernel_sin(x, y)`: sin(x + y) on [-π/4, π/4].
    fn kernel_sin(&mut self, x: Word, y: Word) -> Word {
        let z = self.mul(x, x);
        let v = self.mul(z, x);
        let r = self.horner(z, &S[1..]);
        // x - ((z (y/2 - v r) - y) - v S1)
        let half = self.d(0.5);
        let hy = self.mul(half, y);
        let vr = self.mul(v, r);
        let a = self.sub(hy, vr);
        let za = self.mul(z, a);
        let b = self.sub(za, y);
        let s1 = self.d(S[0]);
        let vs1 = self.mul(v, s1);
        let c = self.sub(b, vs1);
        self.sub(x, c)
    }

    /// fdlibm's `__kernel_cos(x, y)`: cos(x + y) on [-π/4, π/4].
    fn kernel_cos(&mut self, x: Word, y: Word) -> Word {
        let z = self.mul(x, x);
        let p = self.horner(z, &C);
        let r = self.mul(z, p);
        let half = self.d(0.5);
        let hz = self.mul(half, z);
        let one = self.d(1.0);
        let w = self.sub(one, hz);
        // w + (((1 - w) - hz) + (z r - x y))
        let omw = self.sub(one, w);
        let a = self.sub(omw, hz);
        let zr = self.mul(z, r);
        let xy = self.mul(x, y);
        let b = self.sub(zr, xy);
        let c = self.add(a, b);
        self.add(w, c)
    }

    /// `(sin x, cos x)` from one reduction; NaN for infinite and NaN `x`.
    pub(super) fn sin_cos64(&mut self, x: Word) -> (Word, Word) {
        let (r, rl, n) = self.reduce_pio2(x);
        let s = self.kernel_sin(r, rl);
        let c = self.kernel_cos(r, rl);
        let (sin, cos) = self.quadrant(n, s, c);
        let (sin, cos) = (self.not_finite_nan(x, sin), self.not_finite_nan(x, cos));
        // sin(±0) is ±0.
        let zero = self.d(0.0);
        let is_zero = self.cmp(Op::FOrdEqual, x, zero);
        (self.select(Scalar::F64, is_zero, x, sin), cos)
    }

    /// sin and cos of `n π/2 + r` from sin r and cos r.
    fn quadrant(&mut self, n: Word, s: Word, c: Word) -> (Word, Word) {
        let three = self.int(3);
        let q = self.iop(Op::BitwiseAnd, Scalar::I32, n, three);
        let (ns, nc) = (self.neg(Scalar::F64, s), self.neg(Scalar::F64, c));
        let pick = |e: &mut Self, vals: [Word; 4]| {
            let mut r = vals[3];
            for (i, &v) in vals.iter().enumerate().take(3).rev() {
                let k = e.int(i as i32);
                let is = e.cmp(Op::IEqual, q, k);
                r = e.select(Scalar::F64, is, v, r);
            }
            r
        };
        let sin = pick(self, [s, c, ns, nc]);
        let cos = pick(self, [c, ns, nc, s]);
        (sin, cos)
    }

    fn not_finite_nan(&mut self, x: Word, v: Word) -> Word {
        let inf = self.test(Op::IsInf, x);
        let nan = self.test(Op::IsNan, x);
        let bad = self.or(inf, nan);
        let nan_c = self.d(f64::NAN);
        self.select(Scalar::F64, bad, nan_c, v)
    }

    pub(super) fn tan64(&mut self, x: Word) -> Word {
        let (sin, cos) = self.sin_cos64(x);
        self.div(sin, cos)
    }

    /// fdlibm's `atan`: reduce |x| to |t| < 7/16 around 0, 0.5, 1, 1.5 or infinity, then the
    /// odd polynomial; the reduction's atan is added as a high and a low part.
    pub(super) fn atan64(&mut self, x: Word) -> Word {
        let ax = self.glsl1(Scalar::F64, inst::FABS, x);
        // t = (a |x| - b) / (c + d |x|) per interval; hi and lo are the interval's atan.
        let intervals: [(f64, [f64; 4], usize); 4] = [
            (7.0 / 16.0, [2.0, 1.0, 2.0, 1.0], 0),
            (11.0 / 16.0, [1.0, 1.0, 1.0, 1.0], 1),
            (19.0 / 16.0, [1.0, 1.5, 1.0, 1.5], 2),
            (39.0 / 16.0, [0.0, 1.0, 0.0, 1.0], 3),
        ];
        let mut coef = [1.0, 0.0, 1.0, 0.0].map(|v| self.d(v));
        let (mut hi, mut lo) = (self.d(0.0), self.d(0.0));
        for (bound, k, id) in intervals {
            let b = self.d(bound);
            let above = self.cmp(Op::FOrdGreaterThanEqual, ax, b);
            for (slot, v) in coef.iter_mut().zip(k) {
                let v = self.d(v);
                *slot = self.select(Scalar::F64, above, v, *slot);
            }
            let (h, l) = (self.d(ATAN_HI[id]), self.d(ATAN_LO[id]));
            hi = self.select(Scalar::F64, above, h, hi);
            lo = self.select(Scalar::F64, above, l, lo);
        }
        let nb = self.neg(Scalar::F64, coef[1]);
        let num = self.fma(coef[0], ax, nb);
        let den = self.fma(coef[3], ax, coef[2]);
        let t = self.div(num, den);
        let z = self.mul(t, t);
        let w = self.mul(z, z);
        let s1 = self.horner(w, &[AT[0], AT[2], AT[4], AT[6], AT[8], AT[10]]);
        let s1 = self.mul(z, s1);
        let s2 = self.horner(w, &[AT[1], AT[3], AT[5], AT[7], AT[9]]);
        let s2 = self.mul(w, s2);
        let s = self.add(s1, s2);
        // hi - ((t s - lo) - t)
        let ts = self.mul(t, s);
        let a = self.sub(ts, lo);
        let b = self.sub(a, t);
        let r = self.sub(hi, b);
        // |x| = inf: 0 * inf in the reduction is NaN, the answer π/2.
        let inf = self.test(Op::IsInf, x);
        let r = self.select(Scalar::F64, inf, hi, r);
        let r = self.copysign_bits(Scalar::F64, r, x);
        let nan = self.test(Op::IsNan, x);
        self.select(Scalar::F64, nan, x, r)
    }

    /// `atan2(y, x)` from `atan(|y / x|)` and the quadrant, with C's signed zeros and infinities.
    pub(super) fn atan2_64(&mut self, y: Word, x: Word) -> Word {
        let ay = self.glsl1(Scalar::F64, inst::FABS, y);
        let ax = self.glsl1(Scalar::F64, inst::FABS, x);
        let iy = self.test(Op::IsInf, y);
        let ix = self.test(Op::IsInf, x);
        let both = self.cmp(Op::LogicalAnd, iy, ix);
        let one = self.d(1.0);
        let ay = self.select(Scalar::F64, both, one, ay);
        let ax = self.select(Scalar::F64, both, one, ax);
        let q = self.div(ay, ax);
        let z = self.atan64(q);
        let zero = self.d(0.0);
        let y_zero = self.cmp(Op::FOrdEqual, ay, zero);
        let z = self.select(Scalar::F64, y_zero, zero, z);
        // x negative (-0.0 included): π - z.
        let (pi_hi, pi_lo) = (self.d(PI.0), self.d(PI.1));
        let zl = self.sub(z, pi_lo);
        let flipped = self.sub(pi_hi, zl);
        let x_neg = self.sign_bit(Scalar::F64, x);
        let r = self.select(Scalar::F64, x_neg, flipped, z);
        let r = self.copysign_bits(Scalar::F64, r, y);
        let nx = self.test(Op::IsNan, x);
        let ny = self.test(Op::IsNan, y);
        let nan = self.or(nx, ny);
        let sum = self.add(x, y);
        self.select(Scalar::F64, nan, sum, r)
    }

    /// `asin x = atan2(x, sqrt((1 - x)(1 + x)))`, `acos x = atan2(sqrt(...), x)`; NaN outside
    /// [-1, 1].
    pub(super) fn asin_acos64(&mut self, x: Word, asin: bool) -> Word {
        let one = self.d(1.0);
        let a = self.sub(one, x);
        let b = self.add(one, x);
        let p = self.mul(a, b);
        let zero = self.d(0.0);
        let p = self.ext_max0(p, zero);
        let c = self.glsl1(Scalar::F64, inst::SQRT, p);
        let r = if asin {
            self.atan2_64(x, c)
        } else {
            self.atan2_64(c, x)
        };
        let ax = self.glsl1(Scalar::F64, inst::FABS, x);
        let outside = self.cmp(Op::FUnordGreaterThan, ax, one);
        let nan = self.d(f64::NAN);
        self.select(Scalar::F64, outside, nan, r)
    }
}
