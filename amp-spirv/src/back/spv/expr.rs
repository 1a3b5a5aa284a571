//! Expressions: values, operators, casts and atomics, and the elements of locals and values
//! (barriers and fences: `sync.rs`).

use super::bounds::Target;
use super::OrInternal;
use super::{glsl, has_storage, Emitter, Foldable};
use crate::back::plan::{self, ArrayIndex};
use crate::back::spv::Invariant;
use crate::back::ParamSlot;
use crate::ir::*;
use crate::types::{Len, Scalar, Ty};
use rspirv::spirv::{self, Op, StorageClass, Word};

/// How a binary operator's operands are treated: it picks the SPIR-V instruction.
#[derive(Clone, Copy)]
enum OperandKind {
    Float,
    Signed,
    Unsigned,
    Bool,
}

impl Emitter<'_> {
    /// Emits an expression; `None` for `()` values and when control left the block.
    pub(super) fn expr(&mut self, e: &Expr) -> Option<Word> {
        if self.terminated() {
            return None;
        }
        match &e.kind {
            ExprKind::Lit(l) => {
                let s = e.ty.scalar()?;
                Some(self.const_scalar(s, *l))
            }
            ExprKind::Local(id) => {
                let var = self.locals[*id]?;
                let t = self.ty(&e.ty);
                Some(self.load(t, var))
            }
            ExprKind::ScalarParam(id) => {
                let member = match self.layout.params[*id] {
                    ParamSlot::Scalar { member } => member,
                    ParamSlot::Value { first_member, .. } => {
                        return Some(self.push_value(&e.ty, &mut (first_member..)));
                    }
                    _ => return self.broken(Invariant::ValueSlot),
                };
                let raw = self.push_member(member);
                if e.ty == Ty::BOOL {
                    let (b, u) = (self.scalar_ty(Scalar::Bool), self.scalar_ty(Scalar::U32));
                    let zero = self.constant(u, 0, false);
                    Some(self.op(Op::INotEqual, b, &[raw, zero]))
                } else {
                    Some(raw)
                }
            }
            ExprKind::Unary(op, a) => {
                let v = self.expr(a)?;
                let t = self.ty(&e.ty);
                let s = e.ty.component()?;
                let opcode = match (op, s.device()) {
                    (UnOp::Neg, s) if s.is_float() => Op::FNegate,
                    (UnOp::Neg, _) => Op::SNegate,
                    (UnOp::Not, Scalar::Bool) => Op::LogicalNot,
                    (UnOp::Not, _) => Op::Not,
                };
                // A negated float constant is the constant with its sign flipped, so that a
                // `-0.0` is a constant zero to `arith_with_zero` as `0.0` is.
                if let (Op::FNegate, Ty::Scalar(_), Some(&bits)) =
                    (opcode, &e.ty, self.constant_bits.get(&v))
                {
                    let sign = if s == Scalar::F64 {
                        1u64 << 63
                    } else {
                        1 << 31
                    };
                    return Some(self.constant(t, bits ^ sign, s == Scalar::F64));
                }
                let id = self.op(opcode, t, &[v]);
                if opcode == Op::FNegate {
                    self.exact(id);
                }
                Some(self.narrow_if_small(id, &e.ty))
            }
            ExprKind::Binary(op, a, b) => {
                // Normalized operands are `f32`s; the result is clamped back into range.
                let v = self.binary_expr(*op, a, b, &e.ty)?;
                Some(self.clamp_if_normalized(v, &e.ty))
            }
            ExprKind::Logic(op, a, b) => self.logic(*op, a, b),
            ExprKind::Cast(a) => {
                let v = self.expr(a)?;
                if a.ty.is_normalized() || e.ty.is_normalized() {
                    return Some(self.normalized_cast(v, &a.ty, &e.ty));
                }
                let (from, to) = (a.ty.scalar()?, e.ty.scalar()?);
                Some(self.cast(v, from, to))
            }
            ExprKind::Bitcast(a) => {
                let v = self.expr(a)?;
                let ty = self.ty(&e.ty);
                Some(
                    self.b
                        .bitcast(ty, None, v)
                        .or_internal(&mut self.internal, Invariant::CheckedType),
                )
            }
            ExprKind::Element(base, index) => self.element(e, base, index),
            ExprKind::BufferLoad(p, idx) => {
                let target = self.buffer_target(*p, idx)?;
                match target {
                    Target::Checked {
                        param,
                        index,
                        checks,
                    } if e.ty.scalar().is_some() => {
                        let s = e.ty.scalar()?;
                        Some(self.checked_load(param, &index, &checks, s))
                    }
                    target => {
                        let ty = e.ty.clone();
                        let zero = self.ty(&ty);
                        self.access_target(target, Some(zero), |e, ptr| {
                            Some(e.load_buffer_elem(&ty, ptr))
                        })
                    }
                }
            }
            ExprKind::Texture(op, p, operands) => self.texture_op(*op, *p, operands, &e.ty),
            ExprKind::BufferExtent(p) => {
                let parts = self.buffer_extent(*p);
                let t = self.ty(&e.ty);
                Some(
                    self.b
                        .composite_construct(t, None, parts)
                        .or_internal(&mut self.internal, Invariant::BlockOpen),
                )
            }
            ExprKind::ArrayList(list) => {
                let mut parts = Vec::with_capacity(list.len());
                for item in list {
                    parts.push(self.expr(item)?);
                }
                let t = self.ty(&e.ty);
                Some(
                    self.b
                        .composite_construct(t, None, parts)
                        .or_internal(&mut self.internal, Invariant::BlockOpen),
                )
            }
            ExprKind::ArrayRepeat(item, n) => {
                let v = self.expr(item)?;
                let t = self.ty(&e.ty);
                Some(
                    self.b
                        .composite_construct(t, None, vec![v; *n as usize])
                        .or_internal(&mut self.internal, Invariant::BlockOpen),
                )
            }
            ExprKind::Builtin(f, args) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.expr(a)?);
                }
                let s = e.ty.component()?;
                let t = self.ty(&e.ty);
                if let Some(id) = self.geometric(*f, t, &vals) {
                    return Some(id);
                }
                if let Builtin::Int(m) = *f {
                    let receiver = args[0].ty.scalar()?.device();
                    return Some(self.int_method(m, receiver, &vals));
                }
                if *f == Builtin::Abs {
                    let n = match e.ty {
                        Ty::Vector(_, n) => n,
                        _ => 1,
                    };
                    if s.is_float() {
                        return Some(self.abs_bits(s.device(), n, t, vals[0]));
                    }
                    // `i8::MIN.abs()` wraps to itself, as Rust's release build.
                    let v = self.int_abs(n, t, vals[0]);
                    return Some(self.narrow_if_small(v, &e.ty));
                }
                let inst = match (f, s) {
                    (Builtin::Min, s) if s.is_float() => glsl::NMIN,
                    (Builtin::Min, s) if s.is_signed_int() => glsl::SMIN,
                    (Builtin::Min, _) => glsl::UMIN,
                    (Builtin::Max, s) if s.is_float() => glsl::NMAX,
                    (Builtin::Max, s) if s.is_signed_int() => glsl::SMAX,
                    (Builtin::Max, _) => glsl::UMAX,
                    (
                        Builtin::Abs
                        | Builtin::Dot
                        | Builtin::Length
                        | Builtin::Normalize
                        | Builtin::Cross
                        | Builtin::Int(_),
                        _,
                    ) => {
                        return self.broken(Invariant::CheckedType);
                    }
                };
                let v = self.ext(inst, t, &vals);
                Some(self.narrow_if_small(v, &e.ty))
            }
            ExprKind::Math(f, args) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.expr(a)?);
                }
                let s = args[0].ty.scalar()?;
                Some(self.math(*f, s, &vals))
            }
            ExprKind::If(cond, then, els) => self.if_expr(e, cond, then, els.as_deref()),
            ExprKind::Block(b) => self.block(b),
            ExprKind::While(cond, body) => {
                self.while_loop(e.span.start().line, Some(cond), body);
                None
            }
            ExprKind::Loop(body) => {
                self.while_loop(e.span.start().line, None, body);
                None
            }
            ExprKind::For(r) => {
                self.for_loop(e.span.start().line, r);
                None
            }
            ExprKind::OuterConst(k) => Some(self.spec[*k]),
            ExprKind::Atomic(a) => self.atomic(a),
            ExprKind::Barrier(fence) => {
                self.barrier(*fence);
                None
            }
            ExprKind::MemoryFence(fence) => {
                self.memory_fence(*fence);
                None
            }
            ExprKind::Subgroup(op, args) => self.subgroup(*op, args, &e.ty),
            ExprKind::Break => {
                let (merge, cont, more) = self
                    .loops
                    .last()
                    .map(|l| (l.merge, l.cont, l.more))
                    .or_internal(&mut self.internal, Invariant::InsideLoop);
                match more {
                    // A watched loop ends through its header (`loops.rs`).
                    Some(more) => {
                        let stop = self.const_scalar(Scalar::Bool, Lit::Bool(false));
                        self.store(more, stop);
                        self.branch(cont);
                    }
                    None => self.branch(merge),
                }
                None
            }
            ExprKind::Continue => {
                let target = self
                    .loops
                    .last()
                    .map(|l| l.cont)
                    .or_internal(&mut self.internal, Invariant::InsideLoop);
                self.branch(target);
                None
            }
            ExprKind::Return => {
                self.return_from_main();
                None
            }
            ExprKind::Assign(place, value) => {
                let v = self.expr(value)?;
                let target = self.target(place)?;
                let place_ty = self.place_ty(place);
                let buffer = matches!(place, Place::Buffer(..));
                self.access_target(target, None, |e, ptr| {
                    if buffer {
                        e.store_buffer_elem(&place_ty, ptr, v);
                    } else {
                        e.store(ptr, v);
                    }
                    None
                })
            }
            ExprKind::CompoundAssign(op, place, value) => {
                // Rust evaluates the right operand first for primitive compound assignment.
                let r = self.expr(value)?;
                let target = self.target(place)?;
                let ty = self.place_ty(place);
                let t = self.ty(&ty);
                // A normalized place computes in `f32` and stores the clamped result.
                let s = ty.component()?.device();
                let rhs_ty = &value.ty;
                let buffer = matches!(place, Place::Buffer(..));
                let value_kind = self.foldable(value);
                let guard_zero = s.is_float()
                    && matches!(ty, Ty::Scalar(_))
                    && matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div)
                    && value_kind != Foldable::No;
                self.access_target(target, None, |e, ptr| {
                    let cur = if buffer {
                        e.load_buffer_elem(&ty, ptr)
                    } else {
                        e.load(t, ptr)
                    };
                    let guarded = if guard_zero {
                        e.arith_guarding_zero(*op, s, cur, r, false, value_kind)
                    } else {
                        None
                    };
                    let v = guarded.unwrap_or_else(|| e.binary(*op, s, rhs_ty, cur, r, &ty));
                    let v = e.clamp_if_normalized(v, &ty);
                    if buffer {
                        e.store_buffer_elem(&ty, ptr, v);
                    } else {
                        e.store(ptr, v);
                    }
                    None
                })
            }
        }
    }

    /// A binary operator's operands and result, without the clamp of normalized results.
    fn binary_expr(&mut self, op: BinOp, a: &Expr, b: &Expr, result: &Ty) -> Option<Word> {
        let l = self.expr(a)?;
        let r = self.expr(b)?;
        let operand = a.ty.component()?.device();
        let arithmetic = matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div);
        if arithmetic && operand.is_float() {
            let kinds = (self.foldable(a), self.foldable(b));
            if let Ty::Vector(_, n) = *result {
                if kinds != (Foldable::No, Foldable::No) {
                    let sides = [(l, &a.ty, kinds.0), (r, &b.ty, kinds.1)];
                    return Some(self.vector_arith(op, operand, n, sides));
                }
            }
            if let Some(v) = self.float_arith(op, operand, l, r, kinds) {
                return Some(v);
            }
        }
        Some(self.binary(op, operand, &b.ty, l, r, result))
    }

    /// `l op r` with the kernel's meaning: Rust's release build, a small integer result
    /// narrowed to its width (small.rs).
    pub(super) fn binary(
        &mut self,
        op: BinOp,
        operand: Scalar,
        rhs_ty: &Ty,
        l: Word,
        r: Word,
        result: &Ty,
    ) -> Word {
        let v = self.binary_wide(op, operand, rhs_ty, l, r, result);
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem | BinOp::Shl => {
                self.narrow_if_small(v, result)
            }
            _ => v,
        }
    }

    fn binary_wide(
        &mut self,
        op: BinOp,
        operand: Scalar,
        rhs_ty: &Ty,
        l: Word,
        r: Word,
        result: &Ty,
    ) -> Word {
        let t = self.ty(result);
        let float = operand.is_float();
        let signed = operand.is_signed_int();
        let boolean = operand == Scalar::Bool;
        use OperandKind::{Bool, Float, Signed, Unsigned};
        let kind = if float {
            Float
        } else if signed {
            Signed
        } else if boolean {
            Bool
        } else {
            Unsigned
        };
        let opcode = match (op, kind) {
            (BinOp::Add, Float) => Op::FAdd,
            (BinOp::Add, _) => Op::IAdd,
            (BinOp::Sub, Float) => Op::FSub,
            (BinOp::Sub, _) => Op::ISub,
            (BinOp::Mul, Float) => Op::FMul,
            (BinOp::Mul, _) => Op::IMul,
            (BinOp::Div, Float) => Op::FDiv,
            (BinOp::Div, Signed) => Op::SDiv,
            (BinOp::Div, _) => Op::UDiv,
            (BinOp::Rem, Float) => Op::FRem,
            (BinOp::Rem, Signed) => Op::SRem,
            (BinOp::Rem, _) => Op::UMod,
            (BinOp::BitAnd, Bool) => Op::LogicalAnd,
            (BinOp::BitAnd, _) => Op::BitwiseAnd,
            (BinOp::BitOr, Bool) => Op::LogicalOr,
            (BinOp::BitOr, _) => Op::BitwiseOr,
            (BinOp::BitXor, Bool) => Op::LogicalNotEqual,
            (BinOp::BitXor, _) => Op::BitwiseXor,
            (BinOp::Eq, Float) => Op::FOrdEqual,
            (BinOp::Eq, Bool) => Op::LogicalEqual,
            (BinOp::Eq, _) => Op::IEqual,
            // NaN != NaN is true in Rust.
            (BinOp::Ne, Float) => Op::FUnordNotEqual,
            (BinOp::Ne, Bool) => Op::LogicalNotEqual,
            (BinOp::Ne, _) => Op::INotEqual,
            (BinOp::Lt, Float) => Op::FOrdLessThan,
            (BinOp::Lt, Signed) => Op::SLessThan,
            (BinOp::Lt, _) => Op::ULessThan,
            (BinOp::Le, Float) => Op::FOrdLessThanEqual,
            (BinOp::Le, Signed) => Op::SLessThanEqual,
            (BinOp::Le, _) => Op::ULessThanEqual,
            (BinOp::Gt, Float) => Op::FOrdGreaterThan,
            (BinOp::Gt, Signed) => Op::SGreaterThan,
            (BinOp::Gt, _) => Op::UGreaterThan,
            (BinOp::Ge, Float) => Op::FOrdGreaterThanEqual,
            (BinOp::Ge, Signed) => Op::SGreaterThanEqual,
            (BinOp::Ge, _) => Op::UGreaterThanEqual,
            (BinOp::Shl | BinOp::Shr, _) => {
                // Rust's release-mode shifts use the amount modulo the width; SPIR-V leaves
                // larger amounts undefined, so mask explicitly.
                let lt = self.scalar_ty(operand);
                let r = match rhs_ty.scalar() {
                    Some(rs) if self.scalar_ty(rs) != lt => self.op(Op::Bitcast, lt, &[r]),
                    _ => r,
                };
                // The amount modulo the width: 8 or 16 for a small integer.
                let width = result.scalar().and_then(Scalar::narrow_bits).unwrap_or(32);
                let mask = self.constant(lt, u64::from(width - 1), false);
                let amount = self.op(Op::BitwiseAnd, lt, &[r, mask]);
                let opcode = match (op, signed) {
                    (BinOp::Shl, _) => Op::ShiftLeftLogical,
                    (_, true) => Op::ShiftRightArithmetic,
                    _ => Op::ShiftRightLogical,
                };
                return self.op(opcode, t, &[l, amount]);
            }
        };
        if let (Ty::Vector(_, n), BinOp::Div | BinOp::Rem, Signed | Unsigned) = (result, op, kind) {
            return self.componentwise(op, operand, *n, l, r);
        }
        if let (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div, Float, Ty::Scalar(_)) =
            (op, kind, result)
        {
            if let Some(v) = self.arith_with_zero(op, operand, l, r) {
                return v;
            }
        }
        if let (BinOp::Div, Float, Scalar::F32) = (op, kind, operand) {
            return match result {
                Ty::Vector(_, n) => self.componentwise(op, operand, *n, l, r),
                _ => self.div_f32(l, r),
            };
        }
        if let (BinOp::Rem, Float) = (op, kind) {
            return match result {
                Ty::Vector(_, n) => self.componentwise(op, operand, *n, l, r),
                _ => self.float_rem(operand, l, r),
            };
        }
        // A constant divisor other than 0 (and -1 for `i32`) needs no guard.
        let safe_divisor = self
            .constant_bits
            .get(&r)
            .is_some_and(|&d| d != 0 && !(matches!(kind, Signed) && d == u32::MAX as u64));
        if matches!(op, BinOp::Div | BinOp::Rem)
            && matches!(kind, Signed | Unsigned)
            && !safe_divisor
        {
            return self.integer_division(op, kind, t, l, r);
        }
        if opcode == Op::SRem {
            return self.signed_rem(t, l, r);
        }
        let id = self.op(opcode, t, &[l, r]);
        if float && !op.is_comparison() {
            self.exact(id);
        }
        id
    }

    /// Integer `/` and `%` with every case defined (SPIR-V leaves division by zero and
    /// `i32::MIN / -1` undefined, and a GPU cannot panic as Rust does): `x / 0` is all ones (`-1`,
    /// `u32::MAX`), `x % 0` is `x` (RISC-V's choice), and `i32::MIN / -1` wraps to `i32::MIN`
    /// with remainder 0 (Rust's `wrapping_div` / `wrapping_rem`).
    fn integer_division(
        &mut self,
        op: BinOp,
        kind: OperandKind,
        t: Word,
        l: Word,
        r: Word,
    ) -> Word {
        let b = self.scalar_ty(Scalar::Bool);
        let zero = self.constant(t, 0, false);
        let one = self.constant(t, 1, false);
        let by_zero = self.op(Op::IEqual, b, &[r, zero]);
        let mut unsafe_divisor = by_zero;
        if matches!(kind, OperandKind::Signed) {
            let min = self.constant(t, 1 << 31, false);
            let minus_one = self.constant(t, u32::MAX as u64, false);
            let is_min = self.op(Op::IEqual, b, &[l, min]);
            let is_minus_one = self.op(Op::IEqual, b, &[r, minus_one]);
            let overflow = self.op(Op::LogicalAnd, b, &[is_min, is_minus_one]);
            unsafe_divisor = self.op(Op::LogicalOr, b, &[by_zero, overflow]);
        }
        // Divide by 1 where the real divisor is undefined; fix the result up below.
        let divisor = self.op(Op::Select, t, &[unsafe_divisor, one, r]);
        let signed = matches!(kind, OperandKind::Signed);
        let (opcode, when_zero) = match (op, signed) {
            (BinOp::Div, true) => (Op::SDiv, self.constant(t, u32::MAX as u64, false)),
            (BinOp::Div, false) => (Op::UDiv, self.constant(t, u32::MAX as u64, false)),
            (_, true) => (Op::SRem, l),
            (_, false) => (Op::UMod, l),
        };
        // `MIN / 1` is MIN and `MIN % 1` is 0: the wrapping results, as they should be.
        let q = if opcode == Op::SRem {
            self.signed_rem(t, l, divisor)
        } else {
            self.op(opcode, t, &[l, divisor])
        };
        self.op(Op::Select, t, &[by_zero, when_zero, q])
    }

    /// `l % d` for `i32` (`d` neither 0 nor, with `l = MIN`, -1) as `l - (l / d) * d`, Rust's
    /// definition, with `SDiv`. Not `OpSRem`: NVIDIA's driver (580, H200) returns `l` itself
    /// for negative divisors (`1 % -1` gave 1, `i32::MAX % -703012821` gave `i32::MAX`).
    fn signed_rem(&mut self, t: Word, l: Word, d: Word) -> Word {
        let q = self.op(Op::SDiv, t, &[l, d]);
        let p = self.op(Op::IMul, t, &[q, d]);
        self.op(Op::ISub, t, &[l, p])
    }

    pub(super) fn cast(&mut self, v: Word, from: Scalar, to: Scalar) -> Word {
        let (ft, tt) = (self.scalar_ty(from), self.scalar_ty(to));
        // Into a small integer from a wider integer (or one of the other signedness): the
        // low bits, as Rust's `as`.
        let narrowing = from.is_int()
            && to.is_small_int()
            && (from.bits() > to.bits() || (from.bits() == to.bits() && from != to));
        if narrowing {
            let same = if ft == tt {
                v
            } else {
                self.op(Op::Bitcast, tt, &[v])
            };
            return self.narrow(same, to);
        }
        if ft == tt {
            return v;
        }
        match (from, to) {
            (Scalar::Bool, _) => {
                let one = self.const_scalar(to, Lit::Int(1));
                let zero = self.const_scalar(to, Lit::Int(0));
                self.op(Op::Select, tt, &[v, one, zero])
            }
            (f, t) if f.is_int() && t.is_int() => self.op(Op::Bitcast, tt, &[v]),
            (f, t) if f.is_int() && t.is_float() => self.op(
                if f.is_signed_int() {
                    Op::ConvertSToF
                } else {
                    Op::ConvertUToF
                },
                tt,
                &[v],
            ),
            (f, t) if f.is_float() && t.is_float() => self.op(Op::FConvert, tt, &[v]),
            _ => self.saturating_float_to_int(v, from, to),
        }
    }

    /// Rust's `as` from float to integer: truncate, saturate at the bounds, NaN to 0. SPIR-V
    /// leaves out-of-range conversions undefined, so the bounds are checked explicitly.
    fn saturating_float_to_int(&mut self, v: Word, from: Scalar, to: Scalar) -> Word {
        let tt = self.scalar_ty(to);
        let b = self.scalar_ty(Scalar::Bool);
        let signed = to.is_signed_int();
        // The type's range: `[MIN, MAX + 1)` in the float, `MIN` and `MAX` as the 32-bit
        // integer's bits.
        let (min, max) = to
            .int_range()
            .or_internal(&mut self.internal, Invariant::CheckedType);
        let (lo, hi_excl) = (min as f64, max as f64 + 1.0);
        let (min, max) = (u128::from(min as i32 as u32), u128::from(max as u32));
        let converted = self.op(
            if signed {
                Op::ConvertFToS
            } else {
                Op::ConvertFToU
            },
            tt,
            &[v],
        );
        let lo_c = self.const_scalar(from, Lit::Float(lo, lo as f32));
        let hi_c = self.const_scalar(from, Lit::Float(hi_excl, hi_excl as f32));
        let below = self.op(Op::FOrdLessThan, b, &[v, lo_c]);
        let above = self.op(Op::FOrdGreaterThanEqual, b, &[v, hi_c]);
        let nan = self.op(Op::IsNan, b, &[v]);
        let (min_c, max_c, zero) = (
            self.const_scalar(to, Lit::Int(min)),
            self.const_scalar(to, Lit::Int(max)),
            self.const_scalar(to, Lit::Int(0)),
        );
        let r = self.op(Op::Select, tt, &[above, max_c, converted]);
        let r = self.op(Op::Select, tt, &[below, min_c, r]);
        self.op(Op::Select, tt, &[nan, zero, r])
    }

    /// An atomic operation, relaxed, at the scope of the memory it touches: the device for views
    /// and arrays, the tile for `tile_static` memory.
    ///
    /// In a checked kernel an atomic on an out-of-bounds element does nothing and returns 0,
    /// as if the element were a constant 0 (a compare-exchange then succeeds iff `expected` is
    /// 0 and stores 0 into `expected` otherwise, so compare-exchange loops still end).
    fn atomic(&mut self, a: &Atomic) -> Option<Word> {
        let value = match &a.value {
            Some(v) => Some(self.expr(v)?),
            None => None,
        };
        let target = self.target(&a.target)?;
        let s = self.place_ty(&a.target).scalar()?;
        let t = self.scalar_ty(s);
        let scope = match &a.target {
            Place::Buffer(..) => spirv::Scope::Device,
            Place::Local(..) => spirv::Scope::Workgroup,
        };
        let scope = self.const_u32(scope as u32);
        let relaxed = self.const_u32(0);
        let signed = s.is_signed_int();
        let binary = |op| (op, true);
        let (opcode, with_value) = match a.op {
            // The front end allows only add and exchange on `f32`.
            AtomicOp::Add if s == Scalar::F32 => {
                self.uses_atomic_float_add = true;
                binary(Op::AtomicFAddEXT)
            }
            AtomicOp::Add => binary(Op::AtomicIAdd),
            AtomicOp::Sub => binary(Op::AtomicISub),
            AtomicOp::Min => binary(if signed {
                Op::AtomicSMin
            } else {
                Op::AtomicUMin
            }),
            AtomicOp::Max => binary(if signed {
                Op::AtomicSMax
            } else {
                Op::AtomicUMax
            }),
            AtomicOp::And => binary(Op::AtomicAnd),
            AtomicOp::Or => binary(Op::AtomicOr),
            AtomicOp::Xor => binary(Op::AtomicXor),
            AtomicOp::Exchange => binary(Op::AtomicExchange),
            AtomicOp::Inc => (Op::AtomicIIncrement, false),
            AtomicOp::Dec => (Op::AtomicIDecrement, false),
            AtomicOp::CompareExchange => {
                let expected_ptr = match a.expected.as_ref()? {
                    Place::Local(id, idx) => self.local_ptr(*id, idx)?,
                    Place::Buffer(..) => return None, // rejected by the front end
                };
                let expected = self.load(t, expected_ptr);
                let new = value?;
                let result_ty = self.scalar_ty(s);
                let old = self.access_target(target, Some(result_ty), |e, ptr| {
                    Some(e.op(
                        Op::AtomicCompareExchange,
                        t,
                        &[ptr, scope, relaxed, relaxed, new, expected],
                    ))
                })?;
                // C++ AMP: on failure `expected` receives the current value; on success it
                // already holds it.
                self.store(expected_ptr, old);
                let b = self.scalar_ty(Scalar::Bool);
                return Some(self.op(Op::IEqual, b, &[old, expected]));
            }
        };
        let operands = match (with_value, value) {
            (true, Some(v)) => vec![scope, relaxed, v],
            (true, None) => return None,
            (false, _) => vec![scope, relaxed],
        };
        let result_ty = self.scalar_ty(s);
        self.access_target(target, Some(result_ty), |e, ptr| {
            let mut all = vec![ptr];
            all.extend(operands);
            Some(e.op(opcode, t, &all))
        })
    }

    /// A pointer to the local-array element `e`, when `e` is `local[i][j]...`.
    fn local_chain<'e>(e: &'e Expr, indices: &mut Vec<&'e Expr>) -> Option<LocalId> {
        match &e.kind {
            ExprKind::Local(id) => Some(*id),
            ExprKind::Element(base, index) => {
                let id = Self::local_chain(base, indices)?;
                indices.push(index);
                Some(id)
            }
            _ => None,
        }
    }

    /// Evaluates an array index, clamped into bounds: an out-of-bounds index on a local array
    /// would be undefined behaviour on the device, so it reads or writes the last element.
    /// Indices the range analysis proves in range need no clamp.
    fn array_index(&mut self, index: &Expr, len: &Len) -> Option<Word> {
        let i = match self.plan.array_index(index, len) {
            ArrayIndex::Literal(v) => return Some(self.const_u32(v)),
            ArrayIndex::Proven => return self.expr(index),
            ArrayIndex::Clamped => self.expr(index)?,
        };
        let u = self.scalar_ty(Scalar::U32);
        let last = match len {
            Len::Lit(n) => self.const_u32(n - 1),
            Len::Const(..) => {
                let n = self.len(len);
                let one = self.const_u32(1);
                self.op(Op::ISub, u, &[n, one])
            }
        };
        Some(self.ext(glsl::UMIN, u, &[i, last]))
    }

    fn element_ptr(
        &mut self,
        var: Word,
        class: StorageClass,
        mut ty: Ty,
        indices: &[&Expr],
    ) -> Option<(Word, Ty)> {
        let mut ids = Vec::new();
        for index in indices {
            let (elem, len) = match ty {
                Ty::Array(elem, len) => (*elem, len),
                // A vector component (`v.x`) or a struct field: always a literal index.
                Ty::Vector(s, n) => (Ty::Scalar(s), Len::Lit(n)),
                Ty::Struct(def) => {
                    let n = def.fields.len() as u32;
                    match plan::field(&def, index) {
                        Ok((_, ty)) => (ty, Len::Lit(n)),
                        Err(e) => return self.failed(e.into()),
                    }
                }
                Ty::Tuple(items) => {
                    let n = items.len() as u32;
                    match plan::tuple_item(&items, index) {
                        Ok((_, ty)) => (ty, Len::Lit(n)),
                        Err(e) => return self.failed(e.into()),
                    }
                }
                _ => return self.broken(Invariant::CheckedType),
            };
            ids.push(self.array_index(index, &len)?);
            ty = elem;
        }
        if ids.is_empty() {
            return Some((var, ty));
        }
        let t = self.ty(&ty);
        let p = self.ptr(t, class);
        Some((self.access(p, var, &ids), ty))
    }

    fn element(&mut self, e: &Expr, base: &Expr, index: &Expr) -> Option<Word> {
        if !has_storage(&e.ty) {
            // An element of an array of `()` (or of `!`): nothing to load, only effects to run.
            self.expr(base);
            self.expr(index);
            return None;
        }
        let mut indices = Vec::new();
        let t = self.ty(&e.ty);
        if let Some(id) = Self::local_chain(e, &mut indices) {
            let var = self.locals[id]?;
            let ty = self.k.locals[id].ty.clone();
            let class = self.local_class(id);
            let (ptr, _) = self.element_ptr(var, class, ty, &indices)?;
            return Some(self.load(t, ptr));
        }
        let value = self.expr(base)?;
        let len = match &base.ty {
            Ty::Array(_, len) => len.clone(),
            Ty::Vector(_, n) => Len::Lit(*n),
            Ty::Struct(def) => Len::Lit(def.fields.len() as u32),
            Ty::Tuple(items) => Len::Lit(items.len() as u32),
            _ => return self.broken(Invariant::CheckedType),
        };
        let len = &len;
        if let ExprKind::Lit(Lit::Int(k)) = index.kind {
            return Some(
                self.b
                    .composite_extract(t, None, value, [k as u32])
                    .or_internal(&mut self.internal, Invariant::BlockOpen),
            );
        }
        // Dynamic index into a value: spill it to a variable and index that.
        let bt = self.ty(&base.ty);
        let tmp = self.function_var(bt, None);
        self.store(tmp, value);
        let i = self.array_index(index, len)?;
        let p = self.ptr(t, StorageClass::Function);
        let ptr = self.access(p, tmp, &[i]);
        Some(self.load(t, ptr))
    }

    fn place_ty(&mut self, place: &Place) -> Ty {
        match plan::place_ty(self.k, place) {
            Ok(ty) => ty,
            Err(e) => {
                self.failed::<()>(e.into());
                Ty::Never
            }
        }
    }

    /// A pointer to a local (or `tile_static`) variable or one of its elements.
    pub(super) fn local_ptr(&mut self, id: LocalId, idx: &[Expr]) -> Option<Word> {
        let var = self.locals[id]?;
        let ty = self.k.locals[id].ty.clone();
        let class = self.local_class(id);
        let refs: Vec<&Expr> = idx.iter().collect();
        Some(self.element_ptr(var, class, ty, &refs)?.0)
    }
}

impl Emitter<'_> {
    /// Whether the integer `e` is a value only the launch knows: a component of the thread's
    /// index, a scalar argument (push constants), a buffer element, or a view's or texture's
    /// extent. Operations on such values are not (`idx[0] - idx[0]` folds to 0), nor are other
    /// locals (the driver sees through them to their values).
    fn opaque_integer(&self, e: &Expr) -> bool {
        let opaque_local =
            |id: LocalId| id == self.k.index_local || self.opaque_locals.contains(&id);
        match &e.kind {
            ExprKind::Element(base, _) => match base.kind {
                ExprKind::Local(id) => opaque_local(id),
                ExprKind::BufferExtent(_) | ExprKind::Texture(TextureOp::Extent, ..) => true,
                _ => false,
            },
            ExprKind::Local(id) => opaque_local(*id),
            ExprKind::ScalarParam(_) | ExprKind::BufferLoad(..) => true,
            _ => false,
        }
    }

    /// Whether an immutable local initialised with `e` holds only what the launch knows: an
    /// extent, a copy of the thread's index, or an opaque integer.
    pub(super) fn opaque_value(&self, e: &Expr) -> bool {
        matches!(
            e.kind,
            ExprKind::BufferExtent(_) | ExprKind::Texture(TextureOp::Extent, ..)
        ) || matches!(e.kind, ExprKind::Local(id) if id == self.k.index_local)
            || (e.ty.scalar().is_some_and(|s| s.is_int()) && self.opaque_integer(e))
    }

    /// What the driver can know about the value of `e` (through immutable locals too).
    pub(super) fn foldable(&self, e: &Expr) -> Foldable {
        let all_constant = |es: &[Expr]| es.iter().all(|x| self.foldable(x) != Foldable::No);
        match &e.kind {
            // The thread's index, an argument, a loaded element or an extent: no driver can
            // know it at compile time, so the float it converts to is never a known zero.
            ExprKind::Cast(inner)
                if inner.ty.scalar().is_some_and(|s| !s.device().is_float())
                    && self.opaque_integer(inner) =>
            {
                Foldable::No
            }
            ExprKind::Cast(inner) if inner.ty.scalar().is_some_and(|s| !s.device().is_float()) => {
                Foldable::FromInteger
            }
            ExprKind::Lit(_) | ExprKind::OuterConst(_) => Foldable::Constant,
            ExprKind::Local(id) => self
                .foldable_locals
                .get(id)
                .copied()
                .unwrap_or(Foldable::No),
            ExprKind::Unary(_, a) | ExprKind::Cast(a) => match self.foldable(a) {
                Foldable::No => Foldable::No,
                _ => Foldable::Constant,
            },
            ExprKind::Binary(_, a, b)
                if self.foldable(a) != Foldable::No && self.foldable(b) != Foldable::No =>
            {
                Foldable::Constant
            }
            ExprKind::ArrayRepeat(a, _) if self.foldable(a) != Foldable::No => Foldable::Constant,
            ExprKind::Math(_, args) | ExprKind::Builtin(_, args) | ExprKind::ArrayList(args)
                if all_constant(args) =>
            {
                Foldable::Constant
            }
            _ => Foldable::No,
        }
    }
}

impl Emitter<'_> {
    /// A scalar float `+ - * /` where an operand may be a zero the driver folds wrongly
    /// (`None` when neither can be: the plain instruction is right).
    fn float_arith(
        &mut self,
        op: BinOp,
        s: Scalar,
        l: Word,
        r: Word,
        kinds: (Foldable, Foldable),
    ) -> Option<Word> {
        if let Some(v) = self.arith_with_zero(op, s, l, r) {
            return Some(v);
        }
        for (left, kind) in [(true, kinds.0), (false, kinds.1)] {
            if kind != Foldable::No {
                if let Some(v) = self.arith_guarding_zero(op, s, l, r, left, kind) {
                    return Some(v);
                }
            }
        }
        None
    }

    /// A vector float `+ - * /` with an operand the driver may know, component by component
    /// through [`float_arith`](Self::float_arith); a scalar operand applies to every component.
    fn vector_arith(
        &mut self,
        op: BinOp,
        s: Scalar,
        n: u32,
        sides: [(Word, &Ty, Foldable); 2],
    ) -> Word {
        let st = self.scalar_ty(s);
        let parts: Vec<Word> = (0..n)
            .map(|k| {
                let [l, r] = sides.map(|(v, ty, _)| match ty {
                    Ty::Vector(..) => self
                        .b
                        .composite_extract(st, None, v, [k])
                        .or_internal(&mut self.internal, Invariant::BlockOpen),
                    _ => v,
                });
                let kinds = (sides[0].2, sides[1].2);
                self.float_arith(op, s, l, r, kinds).unwrap_or_else(|| {
                    let scalar = Ty::Scalar(s);
                    self.binary(op, s, &scalar, l, r, &scalar)
                })
            })
            .collect();
        let t = self.ty(&Ty::Vector(s, n));
        self.b
            .composite_construct(t, None, parts)
            .or_internal(&mut self.internal, Invariant::BlockOpen)
    }
}
