//! Small helpers on one float type: constants, arithmetic marked `NoContraction`, exact
//! products, polynomials, and the bits of a float.

use super::inst;
use crate::back::spv::Emitter;
use crate::back::spv::Invariant;
use crate::back::spv::OrInternal;
use crate::ir::Lit;
use crate::types::Scalar;
use rspirv::spirv::{Op, Word};

impl Emitter<'_> {
    pub(in crate::back::spv) fn float_const(&mut self, s: Scalar, v: f64) -> Word {
        self.const_scalar(s, Lit::Float(v, v as f32))
    }

    pub(super) fn d(&mut self, v: f64) -> Word {
        self.float_const(Scalar::F64, v)
    }

    /// A float operation, kept as written (`NoContraction`).
    pub(super) fn fop(&mut self, op: Op, s: Scalar, a: Word, b: Word) -> Word {
        let t = self.scalar_ty(s);
        let id = self.op(op, t, &[a, b]);
        self.exact(id);
        id
    }

    pub(super) fn add(&mut self, a: Word, b: Word) -> Word {
        self.fop(Op::FAdd, Scalar::F64, a, b)
    }

    pub(super) fn sub(&mut self, a: Word, b: Word) -> Word {
        self.fop(Op::FSub, Scalar::F64, a, b)
    }

    pub(super) fn mul(&mut self, a: Word, b: Word) -> Word {
        self.fop(Op::FMul, Scalar::F64, a, b)
    }

    pub(super) fn div(&mut self, a: Word, b: Word) -> Word {
        self.fop(Op::FDiv, Scalar::F64, a, b)
    }

    pub(super) fn neg(&mut self, s: Scalar, a: Word) -> Word {
        let t = self.scalar_ty(s);
        let id = self.op(Op::FNegate, t, &[a]);
        self.exact(id);
        id
    }

    pub(super) fn fma(&mut self, a: Word, b: Word, c: Word) -> Word {
        let t = self.scalar_ty(Scalar::F64);
        self.ext(inst::FMA, t, &[a, b, c])
    }

    pub(super) fn glsl1(&mut self, s: Scalar, inst: u32, a: Word) -> Word {
        let t = self.scalar_ty(s);
        self.ext(inst, t, &[a])
    }

    pub(super) fn cmp(&mut self, op: Op, a: Word, b: Word) -> Word {
        let b_ty = self.scalar_ty(Scalar::Bool);
        self.op(op, b_ty, &[a, b])
    }

    pub(super) fn test(&mut self, op: Op, a: Word) -> Word {
        let b_ty = self.scalar_ty(Scalar::Bool);
        self.op(op, b_ty, &[a])
    }

    pub(super) fn or(&mut self, a: Word, b: Word) -> Word {
        self.cmp(Op::LogicalOr, a, b)
    }

    pub(in crate::back::spv) fn select(&mut self, s: Scalar, cond: Word, a: Word, b: Word) -> Word {
        let t = self.scalar_ty(s);
        self.op(Op::Select, t, &[cond, a, b])
    }

    pub(super) fn iop(&mut self, op: Op, s: Scalar, a: Word, b: Word) -> Word {
        let t = self.scalar_ty(s);
        self.op(op, t, &[a, b])
    }

    pub(super) fn int(&mut self, v: i32) -> Word {
        self.const_scalar(Scalar::I32, Lit::Int(v as u32 as u128))
    }

    pub(super) fn uint(&mut self, v: u32) -> Word {
        self.const_scalar(Scalar::U32, Lit::Int(v as u128))
    }

    /// Dekker's exact product: `(p, e)` with `p = a * b` rounded and `p + e == a * b` exactly
    /// (Veltkamp's split into 26-bit halves). Vulkan does not promise that `Fma` is fused
    /// (its precision is that of a multiply and an add), so `fma(a, b, -p)` cannot be used.
    pub(super) fn two_prod(&mut self, a: Word, b: Word) -> (Word, Word) {
        self.two_prod_of(Scalar::F64, a, b)
    }

    pub(super) fn two_prod_of(&mut self, s: Scalar, a: Word, b: Word) -> (Word, Word) {
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
    pub(super) fn horner(&mut self, x: Word, c: &[f64]) -> Word {
        let Some((last, rest)) = c.split_last() else {
            return None.or_internal(&mut self.internal, Invariant::Polynomial);
        };
        let mut acc = self.d(*last);
        for &k in rest.iter().rev() {
            let k = self.d(k);
            acc = self.fma(acc, x, k);
        }
        acc
    }

    /// The two 32-bit words of an `f64` (`[low, high]`), without the `Int64` capability.
    pub(super) fn words(&mut self, x: Word) -> (Word, Word) {
        let u = self.scalar_ty(Scalar::U32);
        let v2 = self.b.type_vector(u, 2);
        let v = self.op(Op::Bitcast, v2, &[x]);
        let lo = self
            .b
            .composite_extract(u, None, v, [0])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        let hi = self
            .b
            .composite_extract(u, None, v, [1])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        (lo, hi)
    }

    pub(super) fn f64_of_words(&mut self, lo: Word, hi: Word) -> Word {
        let u = self.scalar_ty(Scalar::U32);
        let v2 = self.b.type_vector(u, 2);
        let v = self
            .b
            .composite_construct(v2, None, [lo, hi])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        let t = self.scalar_ty(Scalar::F64);
        self.op(Op::Bitcast, t, &[v])
    }

    /// The bits of an `f32` as a `u32`.
    pub(super) fn bits32(&mut self, x: Word) -> Word {
        let u = self.scalar_ty(Scalar::U32);
        self.op(Op::Bitcast, u, &[x])
    }

    /// The 32-bit word of `x` that holds its sign (the high word of an `f64`).
    fn high_word(&mut self, s: Scalar, x: Word) -> Word {
        if s == Scalar::F64 {
            self.words(x).1
        } else {
            self.bits32(x)
        }
    }

    /// The 32-bit word of `x` that holds the last bit of its significand (the low word of an
    /// `f64`).
    pub(super) fn low_word(&mut self, s: Scalar, x: Word) -> Word {
        if s == Scalar::F64 {
            self.words(x).0
        } else {
            self.bits32(x)
        }
    }

    /// Whether the sign bit is set (true for `-0.0`).
    pub(super) fn sign_bit(&mut self, s: Scalar, x: Word) -> Word {
        let high = self.high_word(s, x);
        let sign = self.uint(0x8000_0000);
        let bit = self.iop(Op::BitwiseAnd, Scalar::U32, high, sign);
        let zero = self.uint(0);
        self.cmp(Op::INotEqual, bit, zero)
    }

    /// Whether `x` is `+0.0` or `-0.0`, tested on its bits: llvmpipe compiles with
    /// no-signed-zeros assumptions, under which a float comparison `x == 0.0` lets LLVM replace
    /// `x` by `+0.0` where the test holds; an integer test gives it no such licence.
    pub(in crate::back::spv) fn is_zero_bits(&mut self, s: Scalar, x: Word) -> Word {
        let magnitude = self.uint(0x7fff_ffff);
        let bits = if s == Scalar::F64 {
            let (lo, hi) = self.words(x);
            let hi = self.iop(Op::BitwiseAnd, Scalar::U32, hi, magnitude);
            self.iop(Op::BitwiseOr, Scalar::U32, lo, hi)
        } else {
            let b = self.bits32(x);
            self.iop(Op::BitwiseAnd, Scalar::U32, b, magnitude)
        };
        let zero = self.uint(0);
        self.cmp(Op::IEqual, bits, zero)
    }

    /// `|x|` for a float scalar or vector of `n` components (`n = 1` for a scalar) of type
    /// `t`, by clearing the sign bits: exact for every `x`. Not `GLSL.std.450`'s `FAbs`, which
    /// Mesa's NIR drops where its range analysis proves the operand non-negative, counting
    /// `-0.0` as such (the differential tester met `abs(sqrt(-0.0) * c)` giving `-0.0`).
    pub(in crate::back::spv) fn abs_bits(&mut self, s: Scalar, n: u32, t: Word, x: Word) -> Word {
        // Words of 32 bits per component: the sign is in the last word of each (little endian).
        let per = if s == Scalar::F64 { 2 } else { 1 };
        let u = self.scalar_ty(Scalar::U32);
        let all = self.uint(0xffff_ffff);
        let magnitude = self.uint(0x7fff_ffff);
        let words = n * per;
        let (ut, mask) = if words == 1 {
            (u, magnitude)
        } else {
            let ut = self.b.type_vector(u, words);
            let mask: Vec<Word> = (0..words)
                .map(|i| if i % per == per - 1 { magnitude } else { all })
                .collect();
            (ut, self.b.constant_composite(ut, mask))
        };
        let bits = self.op(Op::Bitcast, ut, &[x]);
        let cleared = self.op(Op::BitwiseAnd, ut, &[bits, mask]);
        self.op(Op::Bitcast, t, &[cleared])
    }

    /// `|x|` with the sign bit of `y`.
    pub(super) fn copysign_bits(&mut self, s: Scalar, x: Word, y: Word) -> Word {
        let t = self.scalar_ty(s);
        let ax = self.abs_bits(s, 1, t, x);
        let negative = self.sign_bit(s, y);
        let nx = self.neg(s, ax);
        self.select(s, negative, nx, ax)
    }

    /// `2^k` for an `i32` `k` in the normal range of `s`, from its bits.
    pub(super) fn pow2(&mut self, s: Scalar, k: Word) -> Word {
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
}
