//! Functions whose result is exactly representable and that Vulkan leaves inexact: `f64`
//! `trunc` (lavapipe's `Trunc` on doubles is wrong above 2^31 and gives `+0.0` for `-0.5`) and
//! the float remainder `%` (`OpFRem` is `x - y * trunc(x / y)` with a rounded quotient, so it
//! drifts, even in sign, once `x / y` is large). Both are computed here without rounding.

use super::inst;
use crate::back::spv::{glsl, Emitter};
use crate::types::Scalar;
use rspirv::spirv::{self, Op, Word};

impl Emitter<'_> {
    /// Rust's `trunc`: `GLSL.std.450`'s `Trunc` for `f32` (exact there), the bits for `f64`.
    pub(in crate::back::spv) fn trunc(&mut self, s: Scalar, x: Word) -> Word {
        if s == Scalar::F32 {
            return self.glsl1(s, inst::TRUNC, x);
        }
        self.trunc64(x)
    }

    /// `trunc` of an `f64` by clearing the fraction bits below its exponent: `±0.0` (the sign of
    /// `x`) for `|x| < 1`, `x` itself from 2^52 on (infinities and NaN included).
    fn trunc64(&mut self, x: Word) -> Word {
        let i = self.scalar_ty(Scalar::I32);
        let (lo, hi) = self.words(x);
        let twenty = self.uint(20);
        let field = self.uint(0x7ff);
        let biased = self.iop(Op::ShiftRightLogical, Scalar::U32, hi, twenty);
        let biased = self.iop(Op::BitwiseAnd, Scalar::U32, biased, field);
        let biased = self.op(Op::Bitcast, i, &[biased]);
        // The number of fraction bits to clear, 52 - exponent: in 1..=52 where it matters.
        let bias_plus_52 = self.int(1023 + 52);
        let clear = self.iop(Op::ISub, Scalar::I32, bias_plus_52, biased);
        let (zero, thirty_one, thirty_two) = (self.int(0), self.int(31), self.int(32));
        let ones = self.uint(u32::MAX);
        // Low word: clear min(clear, 32) bits (all of them from 32 on).
        let lo_shift = self.ext(glsl::SMIN, i, &[clear, thirty_one]);
        let lo_shift = self.ext(glsl::SMAX, i, &[lo_shift, zero]);
        let lo_mask = self.iop(Op::ShiftLeftLogical, Scalar::U32, ones, lo_shift);
        let all_low = self.cmp(Op::SGreaterThanEqual, clear, thirty_two);
        let zero_u = self.uint(0);
        let lo_mask = self.select(Scalar::U32, all_low, zero_u, lo_mask);
        // High word: clear the other clear - 32 bits (at most 20 where it matters).
        let hi_shift = self.iop(Op::ISub, Scalar::I32, clear, thirty_two);
        let hi_shift = self.ext(glsl::SMAX, i, &[hi_shift, zero]);
        let hi_shift = self.ext(glsl::SMIN, i, &[hi_shift, thirty_one]);
        let hi_mask = self.iop(Op::ShiftLeftLogical, Scalar::U32, ones, hi_shift);
        let new_lo = self.iop(Op::BitwiseAnd, Scalar::U32, lo, lo_mask);
        let new_hi = self.iop(Op::BitwiseAnd, Scalar::U32, hi, hi_mask);
        let truncated = self.f64_of_words(new_lo, new_hi);
        // |x| < 1: a zero with the sign of x.
        let sign = self.uint(0x8000_0000);
        let sign_hi = self.iop(Op::BitwiseAnd, Scalar::U32, hi, sign);
        let signed_zero = self.f64_of_words(zero_u, sign_hi);
        let bias = self.int(1023);
        let below_one = self.cmp(Op::SLessThan, biased, bias);
        let r = self.select(Scalar::F64, below_one, signed_zero, truncated);
        // From 2^52 on every value is an integer (and infinities and NaN stay as they are).
        let integral = self.cmp(Op::SLessThanEqual, clear, zero);
        self.select(Scalar::F64, integral, x, r)
    }

    /// Rust's float `%` (C's `fmod`): `x - trunc(x / y) * y` computed exactly, with the sign of
    /// `x`; NaN for an infinite `x`, a zero `y` or a NaN; `x` for an infinite `y`.
    ///
    /// Long division on the magnitudes: `t` starts at `|y|` scaled into the binade of `|x|`
    /// (at most `|x|`) and halves down to `|y|`, subtracting it from the remainder `r` where it
    /// fits. `r < 2t` holds throughout, so every subtraction is exact (Sterbenz). One iteration
    /// per binade between `x` and `y`: at most 277 for `f32`, 2,097 for `f64`.
    pub(in crate::back::spv) fn float_rem(&mut self, s: Scalar, x: Word, y: Word) -> Word {
        let t_ty = self.scalar_ty(s);
        let i = self.scalar_ty(Scalar::I32);
        let ax = self.glsl1(s, inst::FABS, x);
        let ay = self.glsl1(s, inst::FABS, y);
        let ex = self.frexp(s, ax).1;
        let ey = self.frexp(s, ay).1;
        let k = self.iop(Op::ISub, Scalar::I32, ex, ey);
        let t0 = self.ldexp(s, ay, k);
        let over = self.cmp(Op::FOrdGreaterThan, t0, ax);
        let half = self.float_const(s, 0.5);
        let t0_half = self.fop(Op::FMul, s, t0, half);
        let t_start = self.select(s, over, t0_half, t0);
        let one = self.int(1);
        let k_less = self.iop(Op::ISub, Scalar::I32, k, one);
        let j_start = self.select(Scalar::I32, over, k_less, k);

        let r_var = self.function_var(t_ty, None);
        let t_var = self.function_var(t_ty, None);
        let j_var = self.function_var(i, None);
        self.store(r_var, ax);
        self.store(t_var, t_start);
        self.store(j_var, j_start);
        let (header, test, body) = (self.b.id(), self.b.id(), self.b.id());
        let (cont, merge) = (self.b.id(), self.b.id());
        self.branch(header);
        self.begin(header);
        self.b
            .loop_merge(merge, cont, spirv::LoopControl::NONE, [])
            .expect("open");
        self.branch(test);
        self.begin(test);
        let j = self.load(i, j_var);
        let zero_i = self.int(0);
        let go = self.cmp(Op::SGreaterThanEqual, j, zero_i);
        self.b
            .branch_conditional(go, body, merge, [])
            .expect("open");
        self.begin(body);
        let r = self.load(t_ty, r_var);
        let t = self.load(t_ty, t_var);
        let fits = self.cmp(Op::FOrdGreaterThanEqual, r, t);
        let less = self.fop(Op::FSub, s, r, t);
        let r_next = self.select(s, fits, less, r);
        self.store(r_var, r_next);
        let t_next = self.fop(Op::FMul, s, t, half);
        self.store(t_var, t_next);
        let j_next = self.iop(Op::ISub, Scalar::I32, j, one);
        self.store(j_var, j_next);
        self.branch(cont);
        self.begin(cont);
        self.branch(header);
        self.begin(merge);
        let r = self.load(t_ty, r_var);
        let rem = self.copysign_bits(s, r, x);

        let x_nan = self.test(Op::IsNan, x);
        let y_nan = self.test(Op::IsNan, y);
        let x_inf = self.test(Op::IsInf, x);
        let zero = self.float_const(s, 0.0);
        let y_zero = self.cmp(Op::FOrdEqual, y, zero);
        let nan_result = self.or(x_nan, y_nan);
        let nan_result = self.or(nan_result, x_inf);
        let nan_result = self.or(nan_result, y_zero);
        let y_inf = self.test(Op::IsInf, y);
        let r = self.select(s, y_inf, x, rem);
        let nan = self.float_const(s, f64::NAN);
        self.select(s, nan_result, nan, r)
    }
}
