//! Functions whose result is exactly representable and that Vulkan leaves inexact: `f64`
//! `trunc` (lavapipe's `Trunc` on doubles is wrong above 2^31 and gives `+0.0` for `-0.5`) and
//! the float remainder `%` (`OpFRem` is `x - y * trunc(x / y)` with a rounded quotient, so it
//! drifts, even in sign, once `x / y` is large). Both are computed here without rounding.

use super::inst;
use crate::back::spv::Invariant;
use crate::back::spv::OrInternal;
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
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        self.branch(test);
        self.begin(test);
        let j = self.load(i, j_var);
        let zero_i = self.int(0);
        let go = self.cmp(Op::SGreaterThanEqual, j, zero_i);
        self.b
            .branch_conditional(go, body, merge, [])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
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

/// Which constant zero an operand is, if it is one.
#[derive(Clone, Copy, PartialEq)]
enum Zero {
    Positive,
    Negative,
}

impl Emitter<'_> {
    fn zero_constant(&self, s: Scalar, id: Word) -> Option<Zero> {
        let sign = if s == Scalar::F64 {
            1u64 << 63
        } else {
            1 << 31
        };
        match self.constant_bits.get(&id) {
            Some(0) => Some(Zero::Positive),
            Some(&b) if b == sign => Some(Zero::Negative),
            _ => None,
        }
    }

    /// `+`, `-`, `*` or `/` of a scalar float and a constant zero, without the arithmetic
    /// instruction: Mesa's llvmpipe (lavapipe, seen on 22.3) folds such an operation as if zeros
    /// had no sign and NaN and infinities did not exist (`x * 0.0` is `0.0` even for an infinite
    /// `x`, `x + 0.0` is `x` even for `-0.0`, and `x / 0.0` is not stored at all), whatever the
    /// module's `NoContraction` and `SignedZeroInfNanPreserve` say. The result is selected from
    /// constants and `x` instead, which no driver can fold wrongly. `None` when neither operand
    /// is a constant zero (or the zero is the one that folds correctly).
    pub(in crate::back::spv) fn arith_with_zero(
        &mut self,
        op: crate::ir::BinOp,
        s: Scalar,
        l: Word,
        r: Word,
    ) -> Option<Word> {
        let (lz, rz) = (self.zero_constant(s, l), self.zero_constant(s, r));
        self.arith_with_zeros(op, s, l, r, lz, rz)
    }

    /// `op` on `l` and `r` where `l` is the zero `lz` or `r` the zero `rz` (see
    /// [`arith_with_zero`](Self::arith_with_zero)).
    fn arith_with_zeros(
        &mut self,
        op: crate::ir::BinOp,
        s: Scalar,
        l: Word,
        r: Word,
        lz: Option<Zero>,
        rz: Option<Zero>,
    ) -> Option<Word> {
        use crate::ir::BinOp;
        if lz.is_none() && rz.is_none() {
            return None;
        }
        let zero = self.float_const(s, 0.0);
        // `x + 0.0` is `x` except that `-0.0 + 0.0` is `+0.0`.
        let plus_zero = |e: &mut Self, x: Word| {
            let is_zero = e.cmp(Op::FOrdEqual, x, zero);
            e.select(s, is_zero, zero, x)
        };
        Some(match (op, lz, rz) {
            (BinOp::Mul, _, Some(z)) => self.times_zero(s, l, z),
            (BinOp::Mul, Some(z), None) => self.times_zero(s, r, z),
            (BinOp::Add, _, Some(Zero::Positive)) => plus_zero(self, l),
            (BinOp::Add, Some(Zero::Positive), _) => plus_zero(self, r),
            (BinOp::Add, _, Some(Zero::Negative)) => l,
            (BinOp::Add, Some(Zero::Negative), _) => r,
            (BinOp::Sub, _, Some(Zero::Positive)) => l,
            (BinOp::Sub, _, Some(Zero::Negative)) => plus_zero(self, l),
            (BinOp::Sub, Some(z), None) => {
                let negated = self.neg(s, r);
                match z {
                    Zero::Negative => negated,
                    Zero::Positive => {
                        // `0.0 - x` is `-x` except that `0.0 - 0.0` is `+0.0`.
                        let is_zero = self.cmp(Op::FOrdEqual, r, zero);
                        self.select(s, is_zero, zero, negated)
                    }
                }
            }
            (BinOp::Div, Some(z), None) => {
                // `±0 / x`: NaN for a zero or NaN `x`, else a zero signed by both signs.
                let sign = self.product_sign(s, r, z);
                let signed_zero = self.signed(s, sign, 0.0);
                let is_zero = self.cmp(Op::FOrdEqual, r, zero);
                let nan = self.test(Op::IsNan, r);
                let undefined = self.or(is_zero, nan);
                let nan_c = self.float_const(s, f64::NAN);
                self.select(s, undefined, nan_c, signed_zero)
            }
            (BinOp::Div, _, Some(z)) => {
                // `x / ±0`: NaN for a zero or NaN `x`, else an infinity signed by both signs.
                let sign = self.product_sign(s, l, z);
                let inf = self.signed(s, sign, f64::INFINITY);
                let is_zero = self.cmp(Op::FOrdEqual, l, zero);
                let nan = self.test(Op::IsNan, l);
                let undefined = self.or(is_zero, nan);
                let nan_c = self.float_const(s, f64::NAN);
                self.select(s, undefined, nan_c, inf)
            }
            _ => return None,
        })
    }

    /// `x * ±0`: a zero signed by both signs for a finite `x`, NaN otherwise.
    fn times_zero(&mut self, s: Scalar, x: Word, z: Zero) -> Word {
        let sign = self.product_sign(s, x, z);
        let signed_zero = self.signed(s, sign, 0.0);
        let nan = self.test(Op::IsNan, x);
        let inf = self.test(Op::IsInf, x);
        let not_finite = self.or(nan, inf);
        let nan_c = self.float_const(s, f64::NAN);
        self.select(s, not_finite, nan_c, signed_zero)
    }

    /// Whether the product of `x` and the zero `z` is negative: the signs differ.
    fn product_sign(&mut self, s: Scalar, x: Word, z: Zero) -> Word {
        let negative = self.sign_bit(s, x);
        match z {
            Zero::Positive => negative,
            Zero::Negative => self.test(Op::LogicalNot, negative),
        }
    }

    /// `-magnitude` where `negative` holds, else `magnitude`, from constants.
    fn signed(&mut self, s: Scalar, negative: Word, magnitude: f64) -> Word {
        let plus = self.float_const(s, magnitude);
        let minus = self.float_const(s, -magnitude);
        self.select(s, negative, minus, plus)
    }
}

impl Emitter<'_> {
    /// `op` on `l` and `r`, one of which (`zero_left` says which) the driver may find to be a
    /// constant zero after its own folding (see [`Foldable`]) and then fold `op` wrongly (see
    /// [`arith_with_zero`](Self::arith_with_zero)). Where that operand is zero the exact result
    /// is selected, so the fold cannot matter; where the driver knows the operand, it folds the
    /// test and the select away, so the guard costs nothing there.
    pub(in crate::back::spv) fn arith_guarding_zero(
        &mut self,
        op: crate::ir::BinOp,
        s: Scalar,
        l: Word,
        r: Word,
        zero_left: bool,
        kind: Foldable,
    ) -> Option<Word> {
        let operand = if zero_left { l } else { r };
        if self.constant_bits.contains_key(&operand) {
            // A literal: `arith_with_zero` saw whether it is a zero.
            return None;
        }
        let zeros = |z: Zero| {
            if zero_left {
                (Some(z), None)
            } else {
                (None, Some(z))
            }
        };
        let (lz, rz) = zeros(Zero::Positive);
        let mut exact = self.arith_with_zeros(op, s, l, r, lz, rz)?;
        if kind == Foldable::Constant {
            // A constant may be `-0.0`; an integer converted to a float never is.
            let (lz, rz) = zeros(Zero::Negative);
            let negative_zero = self.arith_with_zeros(op, s, l, r, lz, rz)?;
            let negative = self.sign_bit(s, operand);
            exact = self.select(s, negative, negative_zero, exact);
        }
        let opcode = match op {
            crate::ir::BinOp::Add => Op::FAdd,
            crate::ir::BinOp::Sub => Op::FSub,
            crate::ir::BinOp::Mul => Op::FMul,
            _ => Op::FDiv,
        };
        let plain = if opcode == Op::FDiv && s == Scalar::F32 {
            self.div_f32(l, r)
        } else {
            self.fop(opcode, s, l, r)
        };
        let zero = self.float_const(s, 0.0);
        let is_zero = self.cmp(Op::FOrdEqual, operand, zero);
        Some(self.select(s, is_zero, exact, plain))
    }
}

/// How the driver may come to know a float operand's value at compile time, and so fold an
/// operation with it (as Mesa's llvmpipe does, wrongly, with a zero).
#[derive(Clone, Copy, PartialEq, Debug)]
pub(in crate::back::spv) enum Foldable {
    /// Through nothing the driver can fold.
    No,
    /// An integer (or `bool`) converted to a float: never `-0.0`, but a zero where the driver
    /// folds the integer (`(n - n) as f32`).
    FromInteger,
    /// Literals, outer constants (specialization constants) and operations on them only.
    Constant,
}
