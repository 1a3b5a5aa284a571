//! The functions of both widths that `GLSL.std.450` lacks or leaves undefined at the edges
//! (`ldexp`, `frexp`, `modf`, `nextafter`, `mul_add`), written on the float's bits.

use super::inst;
use crate::back::spv::{glsl, Emitter};
use crate::math::MathFn;
use crate::types::Scalar;
use rspirv::spirv::{Op, Word};

impl Emitter<'_> {
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
    /// Read from the bits (Mesa's `Frexp` gets denormals wrong): an `f64` denormal is first
    /// scaled into the normal range by an exact `2^64`; an `f32` is read in integers alone.
    pub(super) fn frexp(&mut self, s: Scalar, x: Word) -> (Word, Word) {
        let wide = s == Scalar::F64;
        if !wide {
            return self.frexp_f32(x);
        }
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

    /// [`frexp`](Self::frexp) of an `f32`, in integers alone: a device that flushes
    /// denormal operands (NVIDIA's) would see a denormal `x` as zero in any float operation,
    /// its scaling by `2^64` included. A denormal `m · 2^-149` whose highest set bit is bit `p`
    /// is `1.f · 2^(p - 149)`: exponent `p - 148`, fraction `m` shifted up by `23 - p`.
    fn frexp_f32(&mut self, x: Word) -> (Word, Word) {
        let (u, i) = (Scalar::U32, Scalar::I32);
        let ut = self.scalar_ty(u);
        let it = self.scalar_ty(i);
        let bits = self.op(Op::Bitcast, ut, &[x]);
        let magnitude_mask = self.uint(0x7fff_ffff);
        let magnitude = self.iop(Op::BitwiseAnd, u, bits, magnitude_mask);
        let sign_mask = self.uint(0x8000_0000);
        let sign = self.iop(Op::BitwiseAnd, u, bits, sign_mask);
        let (zero, inf_bits) = (self.uint(0), self.uint(0x7f80_0000));
        let is_zero = self.cmp(Op::IEqual, magnitude, zero);
        let not_finite = self.cmp(Op::UGreaterThanEqual, magnitude, inf_bits);
        let special = self.or(is_zero, not_finite);
        let twenty_three = self.uint(23);
        let field = self.iop(Op::ShiftRightLogical, u, magnitude, twenty_three);
        let denormal = self.cmp(Op::IEqual, field, zero);
        let fraction_mask = self.uint(0x7f_ffff);
        // A normal number: exponent field - 126, its own fraction.
        let field_i = self.op(Op::Bitcast, it, &[field]);
        let bias = self.int(126);
        let normal_e = self.iop(Op::ISub, i, field_i, bias);
        let normal_fraction = self.iop(Op::BitwiseAnd, u, magnitude, fraction_mask);
        // A denormal: its highest set bit `p` (0..=22) gives both.
        let p = self.ext(inst::FIND_U_MSB, ut, &[magnitude]);
        let p = self.op(Op::Bitcast, it, &[p]);
        let k148 = self.int(148);
        let denormal_e = self.iop(Op::ISub, i, p, k148);
        let k23 = self.int(23);
        let up = self.iop(Op::ISub, i, k23, p);
        let shifted = self.iop(Op::ShiftLeftLogical, u, magnitude, up);
        let denormal_fraction = self.iop(Op::BitwiseAnd, u, shifted, fraction_mask);
        let e = self.select(i, denormal, denormal_e, normal_e);
        let fraction = self.select(u, denormal, denormal_fraction, normal_fraction);
        // The exponent field of 0.5, the sign of `x`.
        let half = self.uint(126 << 23);
        let m_bits = self.iop(Op::BitwiseOr, u, fraction, half);
        let m_bits = self.iop(Op::BitwiseOr, u, m_bits, sign);
        let ft = self.scalar_ty(Scalar::F32);
        let m = self.op(Op::Bitcast, ft, &[m_bits]);
        let m = self.select(Scalar::F32, special, x, m);
        let zero_i = self.int(0);
        let e = self.select(i, special, zero_i, e);
        (m, e)
    }

    /// C's `modf`: `(x - trunc(x), trunc(x))`, the fraction carrying the sign of `x` (`±0` for
    /// integers and infinities).
    fn modf(&mut self, s: Scalar, x: Word) -> (Word, Word) {
        let whole = self.trunc(s, x);
        let diff = self.fop(Op::FSub, s, x, whole);
        // Below 1 in magnitude the fraction is `x` itself, taken as it is: a device that
        // flushes denormals would flush a denormal `x` in the subtraction.
        let magnitude = self.glsl1(s, inst::FABS, x);
        let one = self.float_const(s, 1.0);
        let below_one = self.cmp(Op::FOrdLessThan, magnitude, one);
        let diff = self.select(s, below_one, x, diff);
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

    /// `a * b + c` rounded once, as Rust's `mul_add`, for every input. Vulkan's `Fma` may round
    /// the product (lavapipe's does), so the sum is built from exact parts (Boldo and
    /// Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using
    /// rounding to odd", 2008): with `a` and `b` scaled to `[0.5, 1)` (and `c` by the same power
    /// of two), the product is `uh + ul` exactly (Dekker), `c + uh` is `th + tl` exactly (Knuth),
    /// and `th + odd(tl + ul)` rounds once to the fused result, where `odd` rounds to odd
    /// (which keeps what a second rounding needs to know). A result below the normal range is
    /// rounded once more at the subnormal grid by the same scheme, against a power of two whose
    /// last place is that grid. Zeros, infinities and NaN take `a * b + c` (exact there), an
    /// infinite `c` with a finite product is `c`, and a `c` far outside the product's range
    /// contributes only its sign (checked on 20 million f32 triples against the host's fused
    /// `mul_add`, edge values included). The special cases never multiply by a zero or add
    /// one: their results are selected from constants (see `plain` below).
    fn fused_multiply_add(&mut self, s: Scalar, a: Word, b: Word, c: Word) -> Word {
        let wide = s == Scalar::F64;
        let (min_exp, far_below) = if wide { (-1022, -1100) } else { (-126, -200) };
        let plain_product = self.fop(Op::FMul, s, a, b);
        let (fa, fb, fc) = (self.finite(a), self.finite(b), self.finite(c));
        let zero = self.float_const(s, 0.0);
        let a_zero = self.cmp(Op::FOrdEqual, a, zero);
        let b_zero = self.cmp(Op::FOrdEqual, b, zero);
        let c_zero = self.cmp(Op::FOrdEqual, c, zero);
        let both_finite = self.cmp(Op::LogicalAnd, fa, fb);
        let zero_factor = self.or(a_zero, b_zero);
        // The special cases' `a * b + c`, selected from constants where a factor or `c` is
        // zero: a driver that knows that zero (llvmpipe, docs/semantics.md) folds the product
        // to `+0.0` and the sum to the other operand, losing NaN (`inf * 0`) and signs.
        let plain = {
            let (sa, sb) = (self.sign_bit(s, a), self.sign_bit(s, b));
            let negative = self.cmp(Op::LogicalNotEqual, sa, sb);
            let (plus, minus) = (zero, self.float_const(s, -0.0));
            let signed_zero = self.select(s, negative, minus, plus);
            let nan = self.float_const(s, f64::NAN);
            let zero_product = self.select(s, both_finite, signed_zero, nan);
            let product = self.select(s, zero_factor, zero_product, plain_product);
            let sum = self.fop(Op::FAdd, s, product, c);
            // `product + ±0.0`: the product, or where it is a zero too, `-0.0` only for two.
            let (sp, sc) = (self.sign_bit(s, product), self.sign_bit(s, c));
            let both_negative = self.cmp(Op::LogicalAnd, sp, sc);
            let zeros = self.select(s, both_negative, minus, plus);
            let product_zero = self.cmp(Op::FOrdEqual, product, zero);
            let with_zero = self.select(s, product_zero, zeros, product);
            self.select(s, c_zero, with_zero, sum)
        };
        let c_inf = self.test(Op::IsInf, c);
        let finite_product_inf_c = self.cmp(Op::LogicalAnd, both_finite, c_inf);
        let special_result = self.select(s, finite_product_inf_c, c, plain);
        let regular = self.cmp(Op::LogicalAnd, both_finite, fc);
        let special = self.test(Op::LogicalNot, regular);
        let special = self.or(special, zero_factor);

        // a = ma 2^ea, b = mb 2^eb, c = cs 2^k.
        let (ma, ea) = self.frexp(s, a);
        let (mb, eb) = self.frexp(s, b);
        let k = self.iop(Op::IAdd, Scalar::I32, ea, eb);
        let i = self.scalar_ty(Scalar::I32);
        let neg_k = self.op(Op::SNegate, i, &[k]);
        let cs = self.ldexp(s, c, neg_k);
        let cs_inf = self.test(Op::IsInf, cs);
        // A `c` scaled below the normal range only decides the sign of what is left over.
        let min_normal = self.float_const(
            s,
            if wide {
                f64::MIN_POSITIVE
            } else {
                f32::MIN_POSITIVE as f64
            },
        );
        let sticky = self.copysign_bits(s, min_normal, c);
        let abs_cs = self.glsl1(s, inst::FABS, cs);
        let cs_small = self.cmp(Op::FOrdLessThan, abs_cs, min_normal);
        let c_nonzero = self.test(Op::LogicalNot, c_zero);
        let use_sticky = self.cmp(Op::LogicalAnd, cs_small, c_nonzero);
        let cs = self.select(s, use_sticky, sticky, cs);

        let (uh, ul) = self.two_prod_of(s, ma, mb);
        let (th, tl) = self.two_sum(s, cs, uh);
        let v = self.round_odd_sum(s, tl, ul);
        let zs = self.fop(Op::FAdd, s, th, v);
        let z = self.ldexp(s, zs, k);

        // Below the normal range: round once at the subnormal grid, which is the last place
        // of `m` (the smallest normal, scaled, with the sign of the result).
        let grid_exp = self.int(min_exp);
        let grid_exp = self.iop(Op::ISub, Scalar::I32, grid_exp, k);
        let one = self.float_const(s, 1.0);
        let threshold = self.ldexp(s, one, grid_exp);
        let m = self.copysign_bits(s, threshold, zs);
        let (h1, l1) = self.two_sum(s, m, th);
        let v2 = self.round_odd_sum(s, l1, v);
        let hv = self.fop(Op::FAdd, s, h1, v2);
        let zd = self.fop(Op::FSub, s, hv, m);
        let zd_zero = self.cmp(Op::FOrdEqual, zd, zero);
        let signed_zero = self.copysign_bits(s, zero, zs);
        let zd = self.select(s, zd_zero, signed_zero, zd);
        let z_subnormal = self.ldexp(s, zd, k);
        let abs_zs = self.glsl1(s, inst::FABS, zs);
        let subnormal = self.cmp(Op::FOrdLessThan, abs_zs, threshold);

        let r = self.select(s, subnormal, z_subnormal, z);
        // A product far below the subnormal grid leaves a nonzero `c` as it is.
        let far = self.int(far_below);
        let product_far_below = self.cmp(Op::SLessThan, k, far);
        let r = self.select(s, product_far_below, c, r);
        // `a * b + 0` is the rounded product, with its sign even where it rounds to zero.
        let r = self.select(s, c_zero, plain_product, r);
        let r = self.select(s, cs_inf, c, r);
        self.select(s, special, special_result, r)
    }

    /// Whether `x` is neither infinite nor NaN.
    fn finite(&mut self, x: Word) -> Word {
        let nan = self.test(Op::IsNan, x);
        let inf = self.test(Op::IsInf, x);
        let either = self.or(nan, inf);
        self.test(Op::LogicalNot, either)
    }

    /// Knuth's exact sum: `(s, e)` with `s = a + b` rounded and `s + e == a + b` exactly.
    fn two_sum(&mut self, s: Scalar, a: Word, b: Word) -> (Word, Word) {
        let sum = self.fop(Op::FAdd, s, a, b);
        let bb = self.fop(Op::FSub, s, sum, a);
        let ab = self.fop(Op::FSub, s, sum, bb);
        let da = self.fop(Op::FSub, s, a, ab);
        let db = self.fop(Op::FSub, s, b, bb);
        (sum, self.fop(Op::FAdd, s, da, db))
    }

    /// `a + b` rounded to odd: the rounded sum where it is exact or its last bit is 1, else its
    /// neighbour towards the exact sum (whose last bit is 1).
    fn round_odd_sum(&mut self, s: Scalar, a: Word, b: Word) -> Word {
        let (sum, err) = self.two_sum(s, a, b);
        let low = self.low_word(s, sum);
        let one = self.uint(1);
        let last = self.iop(Op::BitwiseAnd, Scalar::U32, low, one);
        let zero_u = self.uint(0);
        let even = self.cmp(Op::IEqual, last, zero_u);
        let zero = self.float_const(s, 0.0);
        let inexact = self.cmp(Op::FUnordNotEqual, err, zero);
        let step = self.cmp(Op::LogicalAnd, even, inexact);
        let inf = self.float_const(s, f64::INFINITY);
        let towards = self.copysign_bits(s, inf, err);
        let stepped = self.nextafter(s, sum, towards);
        self.select(s, step, stepped, sum)
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
}
