//! `f32` division and square root rounded as Rust rounds them, on every device.
//!
//! Vulkan lets a device compute `OpFDiv` within 2.5 ULP and `Sqrt` as a reciprocal of an
//! inverse square root; NVIDIA's driver returns quotients 1 ULP off (`1e-30 / 0.7`). Rust's
//! `/` and `sqrt` are correctly rounded. Each is a function of the module (`amp_div_f32`,
//! `amp_sqrt_f32`) that takes the device's result as a guess and proves it with integer
//! arithmetic, which every device computes exactly:
//!
//! - The correctly rounded result `q` of a true value `t` is the float whose rounding
//!   interval holds `t`: `mid(q - 1) < t < mid(q)`, where `mid(x)` is the midpoint between the
//!   float with bits `x` and the next one up (`(2m + 1) · 2^(e - 1)` for `x = m · 2^e`). A
//!   quotient or square root of floats is never exactly a midpoint, so no tie occurs.
//! - Both comparisons are exact in integers: for `a / b` with `a = ma · 2^ea`,
//!   `b = mb · 2^eb`, `t > mid(x)` is `ma · 2^s > (2mx + 1) · mb` with
//!   `s = ea - eb - ex + 1`; for `sqrt(a)`, `ma · 2^s > (2mx + 1)²`. The right side is one
//!   `OpUMulExtended` (under 2^50), the left a 64-bit shift of a 24-bit significand.
//! - The fast path tests the device's own result on both sides; where it passes (always, on
//!   an exact device) that is the answer. Otherwise the slow path guesses again from the
//!   significands alone (`1 <= a', b' < 2`, so no guess underflows, overflows or meets a
//!   flushed denormal), puts the exponent back in integers, and steps the guess one unit at a
//!   time toward `t`, three times: enough for Vulkan's 2.5 ULP bound (a model of these steps
//!   in `amp-spirv/tests/rounded.rs` checks every guess up to 3 ULP off).
//! - Zeros, infinities and NaN take IEEE's results, computed from the operands' bits (a
//!   device dividing as `x · (1 / y)` makes `inf / f32::MAX` a NaN); a NaN is the device's.
//!   A denormal result is computed exactly; a device that flushes denormals flushes it
//!   afterwards as it does every denormal.
//!
//! The specialization constant [`amp_abi::spec_id::FORCE_EXACT_PATHS`] makes every call take
//! the slow path with a worse guess (`a · (1 / b)`, as fast GPU divisions compute it), so the
//! correction runs, and is tested, on a device whose own results are exact.

use super::inst;
use crate::back::spv::IfLabels;
use crate::back::spv::Invariant;
use crate::back::spv::{glsl, Emitter, OrInternal};
use crate::types::Scalar;
use rspirv::dr::Operand;
use rspirv::spirv::{self, Op, Word};

/// `GLSL.std.450`'s `Sqrt`.
const SQRT: u32 = 31;
/// `GLSL.std.450`'s `InverseSqrt`.
const INVERSE_SQRT: u32 = 32;
/// The bits of `+inf`: the first value above every finite magnitude.
const INFINITY_BITS: u32 = 0x7f80_0000;
/// Steps of the slow path: a guess within 2.5 ULP of the true value is within 3 of the
/// correctly rounded result.
const STEPS: usize = 3;

/// The module's functions for rounded operations, declared at their first use and emitted
/// after `main`.
#[derive(Default)]
pub(in crate::back::spv) struct Rounded {
    div: Option<Word>,
    sqrt: Option<Word>,
    /// The boolean specialization constants [`amp_abi::spec_id::FORCE_EXACT_PATHS`] and
    /// [`amp_abi::spec_id::DEVICE_ROUNDS_EXACTLY`].
    constants: Option<(Word, Word)>,
    /// `struct { u32, u32 }`, the result of `OpUMulExtended` (a type of its own, not a
    /// buffer's block type that happens to have the same members).
    wide: Option<Word>,
}

/// A finite, nonzero `f32` magnitude as `m · 2^(e - 150)` with `2^23 <= m < 2^24` (`u32`,
/// `i32`).
#[derive(Clone, Copy)]
struct Significand {
    m: Word,
    e: Word,
}

/// Which rounded operation a function computes.
#[derive(Clone, Copy, PartialEq)]
enum Operation {
    Div,
    Sqrt,
}

impl Emitter<'_> {
    /// `a / b` on `f32` scalars, rounded as Rust rounds it (the device's `OpFDiv` under
    /// `fast_math`).
    pub(in crate::back::spv) fn div_f32(&mut self, a: Word, b: Word) -> Word {
        if self.fast_math {
            return self.fop(Op::FDiv, Scalar::F32, a, b);
        }
        let f = self.rounded_fn(Operation::Div);
        let t = self.scalar_ty(Scalar::F32);
        self.b
            .function_call(t, None, f, [a, b])
            .or_internal(&mut self.internal, Invariant::BlockOpen)
    }

    /// `sqrt(a)` of an `f32` scalar, rounded as Rust rounds it (the device's `Sqrt` under
    /// `fast_math`).
    pub(in crate::back::spv) fn sqrt_f32(&mut self, a: Word) -> Word {
        let t = self.scalar_ty(Scalar::F32);
        if self.fast_math {
            return self.ext(SQRT, t, &[a]);
        }
        let f = self.rounded_fn(Operation::Sqrt);
        self.b
            .function_call(t, None, f, [a])
            .or_internal(&mut self.internal, Invariant::BlockOpen)
    }

    fn rounded_fn(&mut self, op: Operation) -> Word {
        let slot = match op {
            Operation::Div => &mut self.rounded.div,
            Operation::Sqrt => &mut self.rounded.sqrt,
        };
        match *slot {
            Some(f) => f,
            None => {
                let f = self.b.id();
                match op {
                    Operation::Div => self.rounded.div = Some(f),
                    Operation::Sqrt => self.rounded.sqrt = Some(f),
                }
                f
            }
        }
    }

    /// Emits the rounded-operation functions `main` called (after `main`).
    pub(in crate::back::spv) fn rounded_functions(&mut self) {
        if let Some(f) = self.rounded.div {
            self.rounded_function(f, Operation::Div);
        }
        if let Some(f) = self.rounded.sqrt {
            self.rounded_function(f, Operation::Sqrt);
        }
    }

    fn rounded_function(&mut self, id: Word, op: Operation) {
        let s = Scalar::F32;
        let f = self.scalar_ty(s);
        let arity = if op == Operation::Div { 2 } else { 1 };
        let fn_ty = self.b.type_function(f, vec![f; arity]);
        self.b
            .begin_function(f, Some(id), spirv::FunctionControl::NONE, fn_ty)
            .or_internal(&mut self.internal, Invariant::MainClosed);
        let name = match op {
            Operation::Div => "amp_div_f32",
            Operation::Sqrt => "amp_sqrt_f32",
        };
        self.b.name(id, name);
        let args: Vec<Word> = (0..arity)
            .map(|_| {
                self.b
                    .function_parameter(f)
                    .or_internal(&mut self.internal, Invariant::FunctionOpen)
            })
            .collect();
        let entry = self.b.id();
        self.begin(entry);
        let (forced, trusted) = self.exact_path_constants();
        let magnitude = self.uint(0x7fff_ffff);
        let inf_bits = self.uint(INFINITY_BITS);
        let zero_u = self.uint(0);
        // The device's result, and whether the operands leave the exact path out: zeros,
        // infinities, NaN (and, for a square root, negative numbers) have IEEE's results.
        let (device, special, a, b) = match op {
            Operation::Div => {
                let (x, y) = (args[0], args[1]);
                let precise = self.fop(Op::FDiv, s, x, y);
                let one = self.float_const(s, 1.0);
                let r = self.fop(Op::FDiv, s, one, y);
                let rough = self.fop(Op::FMul, s, x, r);
                let xb = self.bits32(x);
                let yb = self.bits32(y);
                let xm = self.iop(Op::BitwiseAnd, Scalar::U32, xb, magnitude);
                let ym = self.iop(Op::BitwiseAnd, Scalar::U32, yb, magnitude);
                let mut special = self.constant_false();
                for m in [xm, ym] {
                    let zero = self.cmp(Op::IEqual, m, zero_u);
                    let not_finite = self.cmp(Op::UGreaterThanEqual, m, inf_bits);
                    let either = self.or(zero, not_finite);
                    special = self.or(special, either);
                }
                let guess = self.rough_unless_special(forced, special, rough, precise);
                let ieee = self.special_quotient(xb, yb, xm, ym, precise);
                (self.select(s, special, ieee, guess), special, xm, Some(ym))
            }
            Operation::Sqrt => {
                let x = args[0];
                let precise = self.ext(SQRT, f, &[x]);
                let inverse = self.ext(INVERSE_SQRT, f, &[x]);
                let rough = self.fop(Op::FMul, s, x, inverse);
                let xb = self.bits32(x);
                let xm = self.iop(Op::BitwiseAnd, Scalar::U32, xb, magnitude);
                let zero = self.cmp(Op::IEqual, xm, zero_u);
                // Negative numbers, infinities and NaN, all at or above the bits of +inf.
                let other = self.cmp(Op::UGreaterThanEqual, xb, inf_bits);
                let special = self.or(zero, other);
                (
                    self.rough_unless_special(forced, special, rough, precise),
                    special,
                    xm,
                    None,
                )
            }
        };
        let device_bits = self.bits32(device);
        let device_bits = self.iop(Op::BitwiseAnd, Scalar::U32, device_bits, magnitude);
        let right = self.fast_check(a, b, device_bits);
        let wrong = self.test(Op::LogicalNot, right);
        let not_special = self.test(Op::LogicalNot, special);
        let slow = self.cmp(Op::LogicalAnd, wrong, not_special);
        // On a device known to round exactly the whole test folds away.
        let not_trusted = self.test(Op::LogicalNot, trusted);
        let slow = self.cmp(Op::LogicalAnd, slow, not_trusted);
        let (slow_label, merge) = (self.b.id(), self.b.id());
        let labels = IfLabels {
            merge,
            then: Some(slow_label),
            otherwise: None,
        };
        let from = self.label;
        let end = self.structured_if(slow, labels, &[], |e, _| {
            let sa = e.significand(a);
            let sb = b.map(|b| e.significand(b));
            let mut q = e.slow_guess(op, sa, sb, forced);
            for _ in 0..STEPS {
                let (up, down) = e.rounding_steps(op, sa, sb, q);
                let one = e.uint(1);
                let above = e.iop(Op::IAdd, Scalar::U32, q, one);
                let below = e.iop(Op::ISub, Scalar::U32, q, one);
                let stepped = e.select(Scalar::U32, down, below, q);
                q = e.select(Scalar::U32, up, above, stepped);
            }
            let sign = match op {
                Operation::Div => {
                    let xb = e.bits32(args[0]);
                    let yb = e.bits32(args[1]);
                    let both = e.iop(Op::BitwiseXor, Scalar::U32, xb, yb);
                    let sign_bit = e.uint(0x8000_0000);
                    e.iop(Op::BitwiseAnd, Scalar::U32, both, sign_bit)
                }
                Operation::Sqrt => e.uint(0),
            };
            let signed = e.iop(Op::BitwiseOr, Scalar::U32, q, sign);
            let ft = e.scalar_ty(Scalar::F32);
            e.op(Op::Bitcast, ft, &[signed])
        });
        let Some(arm) = end.then else {
            return self.broken(Invariant::IfArm);
        };
        let slow_end = arm
            .end
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        let result = self
            .b
            .phi(f, None, [(arm.value, slow_end), (device, from)])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        self.b
            .ret_value(result)
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        self.b
            .end_function()
            .or_internal(&mut self.internal, Invariant::FunctionOpen);
    }

    /// IEEE's quotient of special operands (a zero, an infinity or NaN), from their bits
    /// `xb`, `yb` and magnitudes `xm`, `ym`: NaN (the device's `precise` quotient, which is a
    /// NaN then) for a NaN operand, `0 / 0` and `inf / inf`; otherwise the sign of `x ^ y` on
    /// infinity for `inf / y` and `x / 0`, on zero for the rest. Not the device's quotient:
    /// a device that divides as `x · (1 / y)` returns NaN for `inf / f32::MAX`, whose
    /// reciprocal is a denormal it flushes to zero.
    fn special_quotient(&mut self, xb: Word, yb: Word, xm: Word, ym: Word, precise: Word) -> Word {
        let u = Scalar::U32;
        let (inf_bits, zero) = (self.uint(INFINITY_BITS), self.uint(0));
        let x_nan = self.cmp(Op::UGreaterThan, xm, inf_bits);
        let y_nan = self.cmp(Op::UGreaterThan, ym, inf_bits);
        let x_inf = self.cmp(Op::IEqual, xm, inf_bits);
        let y_inf = self.cmp(Op::IEqual, ym, inf_bits);
        let x_zero = self.cmp(Op::IEqual, xm, zero);
        let y_zero = self.cmp(Op::IEqual, ym, zero);
        let zeros = self.cmp(Op::LogicalAnd, x_zero, y_zero);
        let infinities = self.cmp(Op::LogicalAnd, x_inf, y_inf);
        let nan = self.or(x_nan, y_nan);
        let nan = self.or(nan, zeros);
        let nan = self.or(nan, infinities);
        let infinite = self.or(x_inf, y_zero);
        let magnitude = self.select(u, infinite, inf_bits, zero);
        let both = self.iop(Op::BitwiseXor, u, xb, yb);
        let sign_bit = self.uint(0x8000_0000);
        let sign = self.iop(Op::BitwiseAnd, u, both, sign_bit);
        let bits = self.iop(Op::BitwiseOr, u, magnitude, sign);
        let ft = self.scalar_ty(Scalar::F32);
        let value = self.op(Op::Bitcast, ft, &[bits]);
        self.select(Scalar::F32, nan, precise, value)
    }

    fn constant_false(&mut self) -> Word {
        self.const_scalar(Scalar::Bool, crate::ir::Lit::Bool(false))
    }

    /// The guess the fast path tests: the device's own result, or under
    /// [`amp_abi::spec_id::FORCE_EXACT_PATHS`] a rougher one (`x · (1 / y)`, `x · rsqrt(x)`)
    /// that is often an ULP off, so that both the fast test's refusal and the slow path run.
    /// Special operands keep the device's own (IEEE's) result.
    fn rough_unless_special(
        &mut self,
        forced: Word,
        special: Word,
        rough: Word,
        precise: Word,
    ) -> Word {
        let ordinary = self.test(Op::LogicalNot, special);
        let use_rough = self.cmp(Op::LogicalAnd, forced, ordinary);
        self.select(Scalar::F32, use_rough, rough, precise)
    }

    /// Whether `q` (a magnitude's bits) is the correctly rounded result of `op` on the
    /// magnitudes `a` (and `b`), decided in the common case only: normal operands, a normal
    /// result whose fraction is not 0 (so both neighbours share its exponent) and the usual
    /// distance between the exponents. False otherwise, and the slow path decides.
    ///
    /// With `t` the true result and `q = mq · 2^eq`, `q` is right when
    /// `(2mq - 1) · w < L < (2mq + 1) · w` with `L = ma · 2^s` and `w = mb` for a quotient, or
    /// `(2mq - 1)² < L < (2mq + 1)²` for a root; that is `0 < L - 2mq·w + w < 2w` (quotient)
    /// and `0 < L - 4mq² + 4mq <= 8mq` (root), one 64-bit difference each.
    fn fast_check(&mut self, a: Word, b: Option<Word>, q: Word) -> Word {
        let (u, i) = (Scalar::U32, Scalar::I32);
        let ut = self.scalar_ty(u);
        let it = self.scalar_ty(i);
        let (twenty_three, fraction_mask, hidden) =
            (self.uint(23), self.uint(0x7f_ffff), self.uint(0x80_0000));
        let (one, zero) = (self.uint(1), self.uint(0));
        let max_field = self.uint(254);
        // Significand and exponent field of a magnitude, and whether it is normal.
        let parts = |e: &mut Self, x: Word| {
            let field = e.iop(Op::ShiftRightLogical, u, x, twenty_three);
            let fraction = e.iop(Op::BitwiseAnd, u, x, fraction_mask);
            let m = e.iop(Op::BitwiseOr, u, fraction, hidden);
            // 1 <= field <= 254: field - 1 < 254 as unsigned.
            let below = e.iop(Op::ISub, u, field, one);
            let normal = e.cmp(Op::ULessThan, below, max_field);
            let field = e.op(Op::Bitcast, it, &[field]);
            (m, field, fraction, normal)
        };
        let (ma, ea, _, a_normal) = parts(self, a);
        let (mq, eq, q_fraction, q_normal) = parts(self, q);
        let q_inside = self.cmp(Op::INotEqual, q_fraction, zero);
        let mut ok = self.cmp(Op::LogicalAnd, a_normal, q_normal);
        ok = self.cmp(Op::LogicalAnd, ok, q_inside);
        let (w, s, product, bound) = match b {
            Some(b) => {
                let (mb, eb, _, b_normal) = parts(self, b);
                ok = self.cmp(Op::LogicalAnd, ok, b_normal);
                // s = ea - eb - eq + 151
                let d = self.iop(Op::ISub, i, ea, eb);
                let d = self.iop(Op::ISub, i, d, eq);
                let k = self.int(151);
                let s = self.iop(Op::IAdd, i, d, k);
                let twice_q = self.iop(Op::ShiftLeftLogical, u, mq, one);
                let wide = self.wide_ty();
                let product = self.op(Op::UMulExtended, wide, &[twice_q, mb]);
                let bound = self.iop(Op::ShiftLeftLogical, u, mb, one);
                (mb, s, product, bound)
            }
            None => {
                // s = ea - 2 eq + 152
                let twice_e = self.iop(Op::IAdd, i, eq, eq);
                let d = self.iop(Op::ISub, i, ea, twice_e);
                let k = self.int(152);
                let s = self.iop(Op::IAdd, i, d, k);
                let twice_q = self.iop(Op::ShiftLeftLogical, u, mq, one);
                let wide = self.wide_ty();
                let product = self.op(Op::UMulExtended, wide, &[twice_q, twice_q]);
                let two = self.uint(2);
                let w = self.iop(Op::ShiftLeftLogical, u, mq, two);
                let bound = self.iop(Op::ShiftLeftLogical, u, w, one);
                (w, s, product, bound)
            }
        };
        // 1 <= s <= 31, so that both shifts below are defined.
        let s_u = self.op(Op::Bitcast, ut, &[s]);
        let s_below = self.iop(Op::ISub, u, s_u, one);
        let thirty_one = self.uint(31);
        let s_fits = self.cmp(Op::ULessThan, s_below, thirty_one);
        ok = self.cmp(Op::LogicalAnd, ok, s_fits);
        let thirty_two = self.uint(32);
        let l_lo = self.iop(Op::ShiftLeftLogical, u, ma, s_u);
        let right = self.iop(Op::ISub, u, thirty_two, s_u);
        let l_hi = self.iop(Op::ShiftRightLogical, u, ma, right);
        let (p_lo, p_hi) = self.wide_halves(product);
        // D = L - P + w in 64 bits.
        let (d_lo, borrow) = self.wide_op(Op::ISubBorrow, l_lo, p_lo);
        let d_hi = self.iop(Op::ISub, u, l_hi, p_hi);
        let d_hi = self.iop(Op::ISub, u, d_hi, borrow);
        let (d_lo, carry) = self.wide_op(Op::IAddCarry, d_lo, w);
        let d_hi = self.iop(Op::IAdd, u, d_hi, carry);
        // 0 < D <= bound (D = 0 and D = bound would be ties, which cannot occur).
        let high_clear = self.cmp(Op::IEqual, d_hi, zero);
        let low_below = self.iop(Op::ISub, u, d_lo, one);
        let in_range = self.cmp(Op::ULessThan, low_below, bound);
        let inside = self.cmp(Op::LogicalAnd, high_clear, in_range);
        self.cmp(Op::LogicalAnd, ok, inside)
    }

    /// The boolean specialization constants that force the slow paths and that leave the
    /// checks out (both false by default), declared once.
    pub(in crate::back::spv) fn exact_path_constants(&mut self) -> (Word, Word) {
        if let Some(ids) = self.rounded.constants {
            return ids;
        }
        let forced =
            self.bool_spec_constant(amp_abi::spec_id::FORCE_EXACT_PATHS, "amp_force_exact_paths");
        let trusted = self.bool_spec_constant(
            amp_abi::spec_id::DEVICE_ROUNDS_EXACTLY,
            "amp_device_rounds_exactly",
        );
        self.rounded.constants = Some((forced, trusted));
        (forced, trusted)
    }

    /// A boolean specialization constant, false by default.
    pub(in crate::back::spv) fn bool_spec_constant(&mut self, spec_id: u32, name: &str) -> Word {
        let b = self.scalar_ty(Scalar::Bool);
        let id = self.b.spec_constant_false(b);
        self.b.decorate(
            id,
            spirv::Decoration::SpecId,
            [Operand::LiteralBit32(spec_id)],
        );
        self.b.name(id, name);
        id
    }

    /// The significand and exponent of a finite, nonzero magnitude `x` (bits, sign clear); a
    /// denormal is normalized with `FindUMsb`. Any value for other `x`.
    fn significand(&mut self, x: Word) -> Significand {
        let (u, i) = (Scalar::U32, Scalar::I32);
        let it = self.scalar_ty(i);
        let twenty_three = self.uint(23);
        let field = self.iop(Op::ShiftRightLogical, u, x, twenty_three);
        let field = self.op(Op::Bitcast, it, &[field]);
        let fraction_mask = self.uint(0x7f_ffff);
        let fraction = self.iop(Op::BitwiseAnd, u, x, fraction_mask);
        let hidden = self.uint(0x80_0000);
        let normal_m = self.iop(Op::BitwiseOr, u, fraction, hidden);
        // A denormal: shift the leading one of the fraction up to bit 23. (`FindUMsb` of 0 is
        // -1, a shift of 24 that is selected away.)
        let msb = self.ext(inst::FIND_U_MSB, it, &[fraction]);
        let twenty_three_i = self.int(23);
        let shift = self.iop(Op::ISub, i, twenty_three_i, msb);
        let thirty_one = self.int(31);
        let shift = self.ext(glsl::SMIN, it, &[shift, thirty_one]);
        let denormal_m = self.iop(Op::ShiftLeftLogical, u, fraction, shift);
        let one = self.int(1);
        let denormal_e = self.iop(Op::ISub, i, one, shift);
        let zero = self.int(0);
        let is_denormal = self.cmp(Op::IEqual, field, zero);
        Significand {
            m: self.select(u, is_denormal, denormal_m, normal_m),
            e: self.select(i, is_denormal, denormal_e, field),
        }
    }

    /// Whether the true result lies above `mid(x)` (step up) and below `mid(x - 1)` (step
    /// down), for a magnitude `x` (bits) with `0 <= x <= +inf`: never up from `+inf`, never
    /// down from 0.
    fn rounding_steps(
        &mut self,
        op: Operation,
        a: Significand,
        b: Option<Significand>,
        x: Word,
    ) -> (Word, Word) {
        let u = Scalar::U32;
        let one = self.uint(1);
        let below_x = self.iop(Op::ISub, u, x, one);
        let (above, _) = self.compare_with_midpoint(op, a, b, x);
        let (_, below) = self.compare_with_midpoint(op, a, b, below_x);
        let inf_bits = self.uint(INFINITY_BITS);
        let zero = self.uint(0);
        let finite = self.cmp(Op::ULessThan, x, inf_bits);
        let nonzero = self.cmp(Op::INotEqual, x, zero);
        let up = self.cmp(Op::LogicalAnd, above, finite);
        let down = self.cmp(Op::LogicalAnd, below, nonzero);
        (up, down)
    }

    /// `(t > mid(x), t < mid(x))` for the true result `t` of `op` on `a` (and `b`), exactly.
    fn compare_with_midpoint(
        &mut self,
        op: Operation,
        a: Significand,
        b: Option<Significand>,
        x: Word,
    ) -> (Word, Word) {
        let (u, i) = (Scalar::U32, Scalar::I32);
        let it = self.scalar_ty(i);
        let mx = self.significand_of_float(x);
        let ex = mx.e;
        // 2 m_x + 1: the midpoint's significand, one bit longer.
        let one_u = self.uint(1);
        let twice = self.iop(Op::ShiftLeftLogical, u, mx.m, one_u);
        let odd = self.iop(Op::BitwiseOr, u, twice, one_u);
        let (other, s) = match (op, b) {
            (Operation::Div, Some(b)) => {
                // s = ea - eb - ex + 151
                let d = self.iop(Op::ISub, i, a.e, b.e);
                let d = self.iop(Op::ISub, i, d, ex);
                let k = self.int(151);
                (b.m, self.iop(Op::IAdd, i, d, k))
            }
            _ => {
                // s = ea - 2 ex + 152
                let twice_e = self.iop(Op::IAdd, i, ex, ex);
                let d = self.iop(Op::ISub, i, a.e, twice_e);
                let k = self.int(152);
                (odd, self.iop(Op::IAdd, i, d, k))
            }
        };
        let (r_lo, r_hi) = self.wide_op(Op::UMulExtended, odd, other);
        // a.m << s as 64 bits, for 0 <= s <= 40 (shift amounts kept below 32).
        let (zero_i, thirty_one, thirty_two) = (self.int(0), self.int(31), self.int(32));
        let zero_u = self.uint(0);
        let lo_shift = self.ext(glsl::SMIN, it, &[s, thirty_one]);
        let lo_shift = self.ext(glsl::SMAX, it, &[lo_shift, zero_i]);
        let lo = self.iop(Op::ShiftLeftLogical, u, a.m, lo_shift);
        let small = self.cmp(Op::SLessThan, s, thirty_two);
        let l_lo = self.select(u, small, lo, zero_u);
        let one_i = self.int(1);
        let right = self.iop(Op::ISub, i, thirty_two, s);
        let right = self.ext(glsl::SMAX, it, &[right, one_i]);
        let right = self.ext(glsl::SMIN, it, &[right, thirty_one]);
        let hi_small = self.iop(Op::ShiftRightLogical, u, a.m, right);
        let left = self.iop(Op::ISub, i, s, thirty_two);
        let left = self.ext(glsl::SMAX, it, &[left, zero_i]);
        let left = self.ext(glsl::SMIN, it, &[left, thirty_one]);
        let hi_large = self.iop(Op::ShiftLeftLogical, u, a.m, left);
        let is_zero_shift = self.cmp(Op::IEqual, s, zero_i);
        let hi = self.select(u, small, hi_small, hi_large);
        let l_hi = self.select(u, is_zero_shift, zero_u, hi);
        let hi_gt = self.cmp(Op::UGreaterThan, l_hi, r_hi);
        let hi_lt = self.cmp(Op::ULessThan, l_hi, r_hi);
        let hi_eq = self.cmp(Op::IEqual, l_hi, r_hi);
        let lo_gt = self.cmp(Op::UGreaterThan, l_lo, r_lo);
        let lo_lt = self.cmp(Op::ULessThan, l_lo, r_lo);
        let eq_gt = self.cmp(Op::LogicalAnd, hi_eq, lo_gt);
        let eq_lt = self.cmp(Op::LogicalAnd, hi_eq, lo_lt);
        let gt = self.or(hi_gt, eq_gt);
        let lt = self.or(hi_lt, eq_lt);
        // Outside 0..=40 the shift decides alone: below 0 the left side is under 2^23, at
        // most every right side; above 40 it is over 2^63, above every right side.
        let forty = self.int(40);
        let negative = self.cmp(Op::SLessThan, s, zero_i);
        let huge = self.cmp(Op::SGreaterThan, s, forty);
        let not_negative = self.test(Op::LogicalNot, negative);
        let gt = self.cmp(Op::LogicalAnd, gt, not_negative);
        let gt = self.or(gt, huge);
        let not_huge = self.test(Op::LogicalNot, huge);
        let lt = self.cmp(Op::LogicalAnd, lt, not_huge);
        let lt = self.or(lt, negative);
        (gt, lt)
    }

    /// The significand and exponent of the float with bits `x` (`0 <= x < +inf`) in the form
    /// of [`Significand`] but not normalized: a denormal keeps its small significand and the
    /// smallest exponent.
    fn significand_of_float(&mut self, x: Word) -> Significand {
        let (u, i) = (Scalar::U32, Scalar::I32);
        let it = self.scalar_ty(i);
        let twenty_three = self.uint(23);
        let field = self.iop(Op::ShiftRightLogical, u, x, twenty_three);
        let field = self.op(Op::Bitcast, it, &[field]);
        let fraction_mask = self.uint(0x7f_ffff);
        let fraction = self.iop(Op::BitwiseAnd, u, x, fraction_mask);
        let hidden = self.uint(0x80_0000);
        let with_hidden = self.iop(Op::BitwiseOr, u, fraction, hidden);
        let zero = self.int(0);
        let is_denormal = self.cmp(Op::IEqual, field, zero);
        let one = self.int(1);
        Significand {
            m: self.select(u, is_denormal, fraction, with_hidden),
            e: self.select(i, is_denormal, one, field),
        }
    }

    /// The slow path's guess (bits of a magnitude, `0..=+inf`): the operation on the
    /// significands alone (`1 <= a', b' < 2`), its exponent put back in integers, a denormal
    /// result shifted into place.
    fn slow_guess(
        &mut self,
        op: Operation,
        a: Significand,
        b: Option<Significand>,
        forced: Word,
    ) -> Word {
        let (u, i, s) = (Scalar::U32, Scalar::I32, Scalar::F32);
        let ft = self.scalar_ty(s);
        let it = self.scalar_ty(i);
        let fraction_mask = self.uint(0x7f_ffff);
        let one_bits = self.uint(127 << 23);
        let reduced = |e: &mut Self, m: Word| {
            let f = e.iop(Op::BitwiseAnd, u, m, fraction_mask);
            let bits = e.iop(Op::BitwiseOr, u, f, one_bits);
            e.op(Op::Bitcast, ft, &[bits])
        };
        let a1 = reduced(self, a.m);
        // The guess and the exponent to add to its field.
        let (guess, shift) = match (op, b) {
            (Operation::Div, Some(b)) => {
                let b1 = reduced(self, b.m);
                let q = self.fop(Op::FDiv, s, a1, b1);
                let one = self.float_const(s, 1.0);
                let r = self.fop(Op::FDiv, s, one, b1);
                let rough = self.fop(Op::FMul, s, a1, r);
                let guess = self.select(s, forced, rough, q);
                (guess, self.iop(Op::ISub, i, a.e, b.e))
            }
            _ => {
                // a = a' · 2^(ea - 127): an odd power takes a factor 2 into the root.
                let k = self.int(127);
                let unbiased = self.iop(Op::ISub, i, a.e, k);
                let one = self.int(1);
                let parity = self.iop(Op::BitwiseAnd, i, unbiased, one);
                let zero = self.int(0);
                let odd = self.cmp(Op::INotEqual, parity, zero);
                let two = self.float_const(s, 2.0);
                let doubled = self.fop(Op::FMul, s, a1, two);
                let arg = self.select(s, odd, doubled, a1);
                let precise = self.ext(SQRT, ft, &[arg]);
                let inverse = self.ext(INVERSE_SQRT, ft, &[arg]);
                let rough = self.fop(Op::FMul, s, arg, inverse);
                let root = self.select(s, forced, rough, precise);
                let even = self.iop(Op::ISub, i, unbiased, parity);
                let half = self.iop(Op::ShiftRightArithmetic, i, even, one);
                (root, half)
            }
        };
        let bits = self.bits32(guess);
        let twenty_three = self.uint(23);
        let field = self.iop(Op::ShiftRightLogical, u, bits, twenty_three);
        let field = self.op(Op::Bitcast, it, &[field]);
        let field = self.iop(Op::IAdd, i, field, shift);
        let fraction = self.iop(Op::BitwiseAnd, u, bits, fraction_mask);
        let ut = self.scalar_ty(u);
        let field_u = self.op(Op::Bitcast, ut, &[field]);
        let placed = self.iop(Op::ShiftLeftLogical, u, field_u, twenty_three);
        let normal = self.iop(Op::BitwiseOr, u, placed, fraction);
        // A denormal result: the significand shifted right by 1 - field (at most 31).
        let hidden = self.uint(0x80_0000);
        let m = self.iop(Op::BitwiseOr, u, fraction, hidden);
        let one = self.int(1);
        let right = self.iop(Op::ISub, i, one, field);
        let thirty_one = self.int(31);
        let right = self.ext(glsl::SMIN, it, &[right, thirty_one]);
        let denormal = self.iop(Op::ShiftRightLogical, u, m, right);
        let zero = self.int(0);
        let is_denormal = self.cmp(Op::SLessThanEqual, field, zero);
        let q = self.select(u, is_denormal, denormal, normal);
        let max_field = self.int(255);
        let overflow = self.cmp(Op::SGreaterThanEqual, field, max_field);
        let inf_bits = self.uint(INFINITY_BITS);
        self.select(u, overflow, inf_bits, q)
    }

    /// `op` (`OpUMulExtended`, `OpIAddCarry`, `OpISubBorrow`) on two `u32`: its two words, the
    /// low (or the sum) first.
    pub(super) fn wide_op(&mut self, op: Op, a: Word, b: Word) -> (Word, Word) {
        let wide = self.wide_ty();
        let value = self.op(op, wide, &[a, b]);
        self.wide_halves(value)
    }

    /// The two `u32` members of a `struct { u32, u32 }` result.
    pub(super) fn wide_halves(&mut self, value: Word) -> (Word, Word) {
        let u = self.scalar_ty(Scalar::U32);
        let [lo, hi] = [0, 1].map(|k| {
            self.b
                .composite_extract(u, None, value, [k])
                .or_internal(&mut self.internal, Invariant::BlockOpen)
        });
        (lo, hi)
    }

    /// `struct { u32, u32 }` for `OpUMulExtended`.
    pub(super) fn wide_ty(&mut self) -> Word {
        if let Some(t) = self.rounded.wide {
            return t;
        }
        let u = self.scalar_ty(Scalar::U32);
        let fresh = self.b.id();
        let t = self.b.type_struct_id(Some(fresh), [u, u]);
        self.rounded.wide = Some(t);
        t
    }
}
