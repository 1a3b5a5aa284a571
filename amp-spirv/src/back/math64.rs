//! Math functions written out in SPIR-V instructions: the `f64` library (`GLSL.std.450`'s
//! transcendental instructions take 16- and 32-bit floats only) and the functions of both
//! widths that `GLSL.std.450` lacks or leaves undefined at the edges (`ldexp`, `frexp`, `modf`,
//! `nextafter`).
//!
//! The `f64` functions follow fdlibm (Sun's freely distributable libm, which Rust's `libm` and
//! most C libraries descend from): argument reduction with constants split into a high part
//! whose products are exact and a low part, then a minimax polynomial. Every operation is
//! `NoContraction` so the driver keeps the error-compensating sequences as written. The errors
//! measured against Rust's std are in docs/math.md.

// The constants keep fdlibm's digits, so they can be checked against its source.
#![allow(clippy::excessive_precision)]

use super::{glsl, Emitter};
use crate::ir::Lit;
use crate::math::MathFn;
use crate::types::Scalar;
use rspirv::spirv::{Op, Word};

/// `GLSL.std.450` instruction numbers used here.
mod inst {
    pub const TRUNC: u32 = 3;
    pub const FABS: u32 = 4;
    pub const FLOOR: u32 = 8;
    pub const SQRT: u32 = 31;
    pub const FMA: u32 = 50;
}

/// ln 2 split for exact products `k * LN2_HI` (fdlibm: the high part has 32 significant bits).
const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-01;
const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;
/// log2(e) and log10(e) as a double plus the rest.
const LOG2E: (f64, f64) = (std::f64::consts::LOG2_E, 2.035_527_374_093_103_3e-17);
const LOG10E: (f64, f64) = (std::f64::consts::LOG10_E, 1.098_319_650_216_765e-17);
/// log10(2) split so that `k * LOG10_2_HI` is exact (the high part has 32 significant bits).
const LOG10_2_HI: f64 = 0.301_029_995_549_470_2;
const LOG10_2_LO: f64 = 1.145_110_089_802_183_8e-10;
/// π/2 split (fdlibm's `pio2_1`, `pio2_1t`): `k * PIO2_1` is exact for `|k| < 2^20`.
const PIO2_1: f64 = 1.570_796_326_734_125_614_17;
const PIO2_1T: f64 = 6.077_100_506_506_192_249_32e-11;
/// π/2 - PIO2_1 - PIO2_1T.
const PIO2_1TT: f64 = 3.521_559_865_183_2e-27;
const PI: (f64, f64) = (std::f64::consts::PI, 1.224_646_799_147_353_2e-16);

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
    // ----- small helpers on one float type -----

    fn float_const(&mut self, s: Scalar, v: f64) -> Word {
        self.const_scalar(s, Lit::Float(v, v as f32))
    }

    fn d(&mut self, v: f64) -> Word {
        self.float_const(Scalar::F64, v)
    }

    /// A float operation, kept as written (`NoContraction`).
    fn fop(&mut self, op: Op, s: Scalar, a: Word, b: Word) -> Word {
        let t = self.scalar_ty(s);
        let id = self.op(op, t, &[a, b]);
        self.exact(id);
        id
    }

    fn add(&mut self, a: Word, b: Word) -> Word {
        self.fop(Op::FAdd, Scalar::F64, a, b)
    }

    fn sub(&mut self, a: Word, b: Word) -> Word {
        self.fop(Op::FSub, Scalar::F64, a, b)
    }

    fn mul(&mut self, a: Word, b: Word) -> Word {
        self.fop(Op::FMul, Scalar::F64, a, b)
    }

    fn div(&mut self, a: Word, b: Word) -> Word {
        self.fop(Op::FDiv, Scalar::F64, a, b)
    }

    fn neg(&mut self, s: Scalar, a: Word) -> Word {
        let t = self.scalar_ty(s);
        let id = self.op(Op::FNegate, t, &[a]);
        self.exact(id);
        id
    }

    fn fma(&mut self, a: Word, b: Word, c: Word) -> Word {
        let t = self.scalar_ty(Scalar::F64);
        self.ext(inst::FMA, t, &[a, b, c])
    }

    fn glsl1(&mut self, s: Scalar, inst: u32, a: Word) -> Word {
        let t = self.scalar_ty(s);
        self.ext(inst, t, &[a])
    }

    fn cmp(&mut self, op: Op, a: Word, b: Word) -> Word {
        let b_ty = self.scalar_ty(Scalar::Bool);
        self.op(op, b_ty, &[a, b])
    }

    fn test(&mut self, op: Op, a: Word) -> Word {
        let b_ty = self.scalar_ty(Scalar::Bool);
        self.op(op, b_ty, &[a])
    }

    fn or(&mut self, a: Word, b: Word) -> Word {
        self.cmp(Op::LogicalOr, a, b)
    }

    fn select(&mut self, s: Scalar, cond: Word, a: Word, b: Word) -> Word {
        let t = self.scalar_ty(s);
        self.op(Op::Select, t, &[cond, a, b])
    }

    fn iop(&mut self, op: Op, s: Scalar, a: Word, b: Word) -> Word {
        let t = self.scalar_ty(s);
        self.op(op, t, &[a, b])
    }

    fn int(&mut self, v: i32) -> Word {
        self.const_scalar(Scalar::I32, Lit::Int(v as u32 as u128))
    }

    fn uint(&mut self, v: u32) -> Word {
        self.const_scalar(Scalar::U32, Lit::Int(v as u128))
    }

    /// Dekker's exact product: `(p, e)` with `p = a * b` rounded and `p + e == a * b` exactly
    /// (Veltkamp's split into 26-bit halves). Vulkan does not promise that `Fma` is fused
    /// (its precision is that of a multiply and an add), so `fma(a, b, -p)` cannot be used.
    fn two_prod(&mut self, a: Word, b: Word) -> (Word, Word) {
        self.two_prod_of(Scalar::F64, a, b)
    }

    fn two_prod_of(&mut self, s: Scalar, a: Word, b: Word) -> (Word, Word) {
        let (ah, al) = self.split(s, a);
        let (bh, bl) = self.split(s, b);
        let p = self.fop(Op::FMul, s, a, b);
        let hh = self.fop(Op::FMul, s, ah, bh);
        let e = self.fop(Op::FSub, s, hh, p);
        let hl = self.fop(Op::FMul, s, ah, bl);
        let e = self.fop(Op::FAdd, s, e, hl);
        let lh = self.fop(Op::FMul, s, al, bh);
        let e = self.fop(Op::FAdd, s, e, lh);
        let ll = self.fop(Op::FMul, s, al, bl);
        (p, self.fop(Op::FAdd, s, e, ll))
    }

    /// Veltkamp's split of `a` into two halves whose products are exact.
    fn split(&mut self, s: Scalar, a: Word) -> (Word, Word) {
        let factor = if s == Scalar::F64 {
            134_217_729.0
        } else {
            4097.0
        };
        let factor = self.float_const(s, factor);
        let c = self.fop(Op::FMul, s, a, factor);
        let d = self.fop(Op::FSub, s, c, a);
        let hi = self.fop(Op::FSub, s, c, d);
        (hi, self.fop(Op::FSub, s, a, hi))
    }

    /// `c[0] + x (c[1] + x (c[2] + ...))` (with `Fma`, fused or not).
    fn horner(&mut self, x: Word, c: &[f64]) -> Word {
        let (last, rest) = c.split_last().expect("a polynomial has coefficients");
        let mut acc = self.d(*last);
        for &k in rest.iter().rev() {
            let k = self.d(k);
            acc = self.fma(acc, x, k);
        }
        acc
    }

    /// The two 32-bit words of an `f64` (`[low, high]`), without the `Int64` capability.
    fn words(&mut self, x: Word) -> (Word, Word) {
        let u = self.scalar_ty(Scalar::U32);
        let v2 = self.b.type_vector(u, 2);
        let v = self.op(Op::Bitcast, v2, &[x]);
        let lo = self.b.composite_extract(u, None, v, [0]).expect("open");
        let hi = self.b.composite_extract(u, None, v, [1]).expect("open");
        (lo, hi)
    }

    fn f64_of_words(&mut self, lo: Word, hi: Word) -> Word {
        let u = self.scalar_ty(Scalar::U32);
        let v2 = self.b.type_vector(u, 2);
        let v = self
            .b
            .composite_construct(v2, None, [lo, hi])
            .expect("open");
        let t = self.scalar_ty(Scalar::F64);
        self.op(Op::Bitcast, t, &[v])
    }

    /// Whether the sign bit is set (true for `-0.0`).
    fn sign_bit(&mut self, s: Scalar, x: Word) -> Word {
        let high = if s == Scalar::F64 {
            self.words(x).1
        } else {
            let u = self.scalar_ty(Scalar::U32);
            self.op(Op::Bitcast, u, &[x])
        };
        let sign = self.uint(0x8000_0000);
        let bit = self.iop(Op::BitwiseAnd, Scalar::U32, high, sign);
        let zero = self.uint(0);
        self.cmp(Op::INotEqual, bit, zero)
    }

    /// `|x|` with the sign bit of `y`.
    fn copysign_bits(&mut self, s: Scalar, x: Word, y: Word) -> Word {
        let ax = self.glsl1(s, inst::FABS, x);
        let negative = self.sign_bit(s, y);
        let nx = self.neg(s, ax);
        self.select(s, negative, nx, ax)
    }

    /// `2^k` for an `i32` `k` in the normal range of `s`, from its bits.
    fn pow2(&mut self, s: Scalar, k: Word) -> Word {
        let (bias, shift) = if s == Scalar::F64 {
            (1023, 20)
        } else {
            (127, 23)
        };
        let bias = self.int(bias);
        let shift = self.int(shift);
        let e = self.iop(Op::IAdd, Scalar::I32, k, bias);
        let bits = self.iop(Op::ShiftLeftLogical, Scalar::I32, e, shift);
        let u = self.scalar_ty(Scalar::U32);
        let bits = self.op(Op::Bitcast, u, &[bits]);
        if s == Scalar::F64 {
            let zero = self.uint(0);
            self.f64_of_words(zero, bits)
        } else {
            let t = self.scalar_ty(s);
            self.op(Op::Bitcast, t, &[bits])
        }
    }

    /// `x * 2^k` as C's `ldexp`: overflow to infinity, underflow through the denormals to 0.
    /// `k` is clamped to the range where the result can differ, then applied in three exact
    /// power-of-two factors (each within the normal exponents, which `GLSL.std.450`'s `Ldexp`
    /// does not promise for large `k`).
    pub(super) fn ldexp(&mut self, s: Scalar, x: Word, k: Word) -> Word {
        let limit = if s == Scalar::F64 { 2200 } else { 300 };
        let (lo, hi) = (self.int(-limit), self.int(limit));
        let i = self.scalar_ty(Scalar::I32);
        let k = self.ext(glsl::SMAX, i, &[k, lo]);
        let k = self.ext(glsl::SMIN, i, &[k, hi]);
        let three = self.int(3);
        let third = self.iop(Op::SDiv, Scalar::I32, k, three);
        let two_thirds = self.iop(Op::IAdd, Scalar::I32, third, third);
        let rest = self.iop(Op::ISub, Scalar::I32, k, two_thirds);
        let f = self.pow2(s, third);
        let g = self.pow2(s, rest);
        let y = self.fop(Op::FMul, s, x, f);
        let y = self.fop(Op::FMul, s, y, f);
        self.fop(Op::FMul, s, y, g)
    }

    /// `frexp(x)`: mantissa in [0.5, 1) and exponent; `(x, 0)` for zero, infinities and NaN.
    /// Read from the bits (Mesa's `Frexp` gets denormals wrong): denormals are first scaled
    /// into the normal range by an exact `2^64`.
    fn frexp(&mut self, s: Scalar, x: Word) -> (Word, Word) {
        let wide = s == Scalar::F64;
        let min_normal = if wide {
            f64::MIN_POSITIVE
        } else {
            f32::MIN_POSITIVE as f64
        };
        let ax = self.glsl1(s, inst::FABS, x);
        let min = self.float_const(s, min_normal);
        let denormal = self.cmp(Op::FOrdLessThan, ax, min);
        let scale = self.float_const(s, 18_446_744_073_709_551_616.0);
        let big = self.fop(Op::FMul, s, x, scale);
        let y = self.select(s, denormal, big, x);
        let (shift, field, bias): (u32, u32, i32) = if wide {
            (20, 0x7ff, 1022)
        } else {
            (23, 0xff, 126)
        };
        let high = if wide {
            self.words(y).1
        } else {
            let u = self.scalar_ty(Scalar::U32);
            self.op(Op::Bitcast, u, &[y])
        };
        let shift_c = self.uint(shift);
        let shifted = self.iop(Op::ShiftRightLogical, Scalar::U32, high, shift_c);
        let field_c = self.uint(field);
        let biased = self.iop(Op::BitwiseAnd, Scalar::U32, shifted, field_c);
        let i = self.scalar_ty(Scalar::I32);
        let biased = self.op(Op::Bitcast, i, &[biased]);
        let bias_c = self.int(bias);
        let e = self.iop(Op::ISub, Scalar::I32, biased, bias_c);
        let e64 = self.int(64);
        let e_adj = self.iop(Op::ISub, Scalar::I32, e, e64);
        let e = self.select(Scalar::I32, denormal, e_adj, e);
        // Keep sign and fraction, set the exponent field to that of 0.5.
        let keep = self.uint(!(field << shift));
        let half_exp = self.uint((bias << shift) as u32);
        let kept = self.iop(Op::BitwiseAnd, Scalar::U32, high, keep);
        let new_high = self.iop(Op::BitwiseOr, Scalar::U32, kept, half_exp);
        let m = if wide {
            let lo = self.words(y).0;
            self.f64_of_words(lo, new_high)
        } else {
            let t = self.scalar_ty(s);
            self.op(Op::Bitcast, t, &[new_high])
        };
        let zero = self.float_const(s, 0.0);
        let is_zero = self.cmp(Op::FOrdEqual, x, zero);
        let nan = self.test(Op::IsNan, x);
        let inf = self.test(Op::IsInf, x);
        let special = self.or(is_zero, nan);
        let special = self.or(special, inf);
        let m = self.select(s, special, x, m);
        let zero_i = self.int(0);
        let e = self.select(Scalar::I32, special, zero_i, e);
        (m, e)
    }

    /// C's `modf`: `(x - trunc(x), trunc(x))`, the fraction carrying the sign of `x` (`±0` for
    /// integers and infinities).
    fn modf(&mut self, s: Scalar, x: Word) -> (Word, Word) {
        let whole = self.glsl1(s, inst::TRUNC, x);
        let diff = self.fop(Op::FSub, s, x, whole);
        let inf = self.test(Op::IsInf, x);
        let zero = self.float_const(s, 0.0);
        let frac = self.select(s, inf, zero, diff);
        (self.copysign_bits(s, frac, x), whole)
    }

    /// C's `nextafter`: one step of the bit pattern towards `y`.
    fn nextafter(&mut self, s: Scalar, x: Word, y: Word) -> Word {
        let zero = self.float_const(s, 0.0);
        // Away from zero (the magnitude's bits grow) when x < y for positive x, x > y for negative.
        let up = self.cmp(Op::FOrdLessThan, x, y);
        let positive = self.cmp(Op::FOrdGreaterThan, x, zero);
        let grow = self.cmp(Op::LogicalEqual, up, positive);
        let stepped = if s == Scalar::F64 {
            let (lo, hi) = self.words(x);
            let one = self.uint(1);
            let zero_u = self.uint(0);
            let lo_up = self.iop(Op::IAdd, Scalar::U32, lo, one);
            let carry_into = self.cmp(Op::IEqual, lo_up, zero_u);
            let hi_up1 = self.iop(Op::IAdd, Scalar::U32, hi, one);
            let hi_up = self.select(Scalar::U32, carry_into, hi_up1, hi);
            let lo_down = self.iop(Op::ISub, Scalar::U32, lo, one);
            let borrow = self.cmp(Op::IEqual, lo, zero_u);
            let hi_down1 = self.iop(Op::ISub, Scalar::U32, hi, one);
            let hi_down = self.select(Scalar::U32, borrow, hi_down1, hi);
            let new_lo = self.select(Scalar::U32, grow, lo_up, lo_down);
            let new_hi = self.select(Scalar::U32, grow, hi_up, hi_down);
            self.f64_of_words(new_lo, new_hi)
        } else {
            let u = self.scalar_ty(Scalar::U32);
            let t = self.scalar_ty(s);
            let bits = self.op(Op::Bitcast, u, &[x]);
            let one = self.uint(1);
            let inc = self.iop(Op::IAdd, Scalar::U32, bits, one);
            let dec = self.iop(Op::ISub, Scalar::U32, bits, one);
            let r = self.select(Scalar::U32, grow, inc, dec);
            self.op(Op::Bitcast, t, &[r])
        };
        // From ±0 the step is the smallest denormal with the sign of y.
        let tiny = if s == Scalar::F64 {
            let (one, zero_u) = (self.uint(1), self.uint(0));
            self.f64_of_words(one, zero_u)
        } else {
            let u1 = self.uint(1);
            let t = self.scalar_ty(s);
            self.op(Op::Bitcast, t, &[u1])
        };
        let tiny = self.copysign_bits(s, tiny, y);
        let at_zero = self.cmp(Op::FOrdEqual, x, zero);
        let r = self.select(s, at_zero, tiny, stepped);
        let equal = self.cmp(Op::FOrdEqual, x, y);
        let r = self.select(s, equal, y, r);
        let nx = self.test(Op::IsNan, x);
        let ny = self.test(Op::IsNan, y);
        let nan = self.or(nx, ny);
        let sum = self.fop(Op::FAdd, s, x, y);
        self.select(s, nan, sum, r)
    }

    /// `a * b + c` rounded once, as Rust's `mul_add`: Vulkan's `Fma` may round the product
    /// (lavapipe's does), so the product's rounding error `e` (Dekker) and the sum's `t`
    /// (Knuth) are added back: `s + (t + e)`. The result is the exact one except when that
    /// last sum itself rounds a tie differently (rare; none in tests/math.rs).
    fn fused_multiply_add(&mut self, s: Scalar, a: Word, b: Word, c: Word) -> Word {
        let (p, e) = self.two_prod_of(s, a, b);
        let sum = self.fop(Op::FAdd, s, p, c);
        let bb = self.fop(Op::FSub, s, sum, p);
        let ab = self.fop(Op::FSub, s, sum, bb);
        let da = self.fop(Op::FSub, s, p, ab);
        let db = self.fop(Op::FSub, s, c, bb);
        let t = self.fop(Op::FAdd, s, da, db);
        let tail = self.fop(Op::FAdd, s, t, e);
        let r = self.fop(Op::FAdd, s, sum, tail);
        // Infinite intermediates (a product or a split beyond the range) make the tails NaN;
        // the plain sum is the answer there (and NaN where it should be).
        let nan = self.test(Op::IsNan, r);
        self.select(s, nan, sum, r)
    }

    /// The functions written out here for either width; `None` for the others.
    pub(super) fn math_any_width(&mut self, f: MathFn, s: Scalar, a: &[Word]) -> Option<Word> {
        Some(match f {
            MathFn::Ldexp => self.ldexp(s, a[0], a[1]),
            MathFn::FrexpMantissa => self.frexp(s, a[0]).0,
            MathFn::FrexpExponent => self.frexp(s, a[0]).1,
            MathFn::ModfFrac => self.modf(s, a[0]).0,
            MathFn::ModfInt => self.modf(s, a[0]).1,
            MathFn::Nextafter => self.nextafter(s, a[0], a[1]),
            MathFn::Fma => self.fused_multiply_add(s, a[0], a[1], a[2]),
            _ => return None,
        })
    }

    // ----- the f64 library -----

    /// The `f64` versions of the functions `GLSL.std.450` has for 32-bit floats only; `None`
    /// for the functions whose generic lowering works for `f64`.
    pub(super) fn math_f64(&mut self, f: MathFn, a: &[Word]) -> Option<Word> {
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

    fn exp64(&mut self, x: Word) -> Word {
        let r = self.exp_core(x, None);
        let nan = self.test(Op::IsNan, x);
        self.select(Scalar::F64, nan, x, r)
    }

    /// `2^x = 2^k e^(r ln 2)`, `r = x - k` exact.
    fn exp2_64(&mut self, x: Word) -> Word {
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
    fn exp10_64(&mut self, x: Word) -> Word {
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
    fn expm1_64(&mut self, x: Word) -> Word {
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

    fn ln64(&mut self, x: Word) -> Word {
        let (hi, lo) = self.ln_dd(x);
        let v = self.add(hi, lo);
        self.log_specials(x, v)
    }

    /// `ln(x) * c` for `c = log2(e)` or `log10(e)` as a double-double.
    fn log_scaled64(&mut self, x: Word, c: (f64, f64)) -> Word {
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
    fn ln1p64(&mut self, x: Word) -> Word {
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
    fn sin_cos64(&mut self, x: Word) -> (Word, Word) {
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

    fn tan64(&mut self, x: Word) -> Word {
        let (sin, cos) = self.sin_cos64(x);
        self.div(sin, cos)
    }

    /// fdlibm's `atan`: reduce |x| to |t| < 7/16 around 0, 0.5, 1, 1.5 or infinity, then the
    /// odd polynomial; the reduction's atan is added as a high and a low part.
    fn atan64(&mut self, x: Word) -> Word {
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
    fn atan2_64(&mut self, y: Word, x: Word) -> Word {
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
    fn asin_acos64(&mut self, x: Word, asin: bool) -> Word {
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

    fn ext_max0(&mut self, v: Word, zero: Word) -> Word {
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

    fn cosh64(&mut self, x: Word) -> Word {
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
    fn sinh64(&mut self, x: Word) -> Word {
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
    fn tanh64(&mut self, x: Word) -> Word {
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
    fn asinh64(&mut self, x: Word) -> Word {
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
    fn acosh64(&mut self, x: Word) -> Word {
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
    fn atanh64(&mut self, x: Word) -> Word {
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
    fn cbrt64(&mut self, x: Word) -> Word {
        let ax = self.glsl1(Scalar::F64, inst::FABS, x);
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
