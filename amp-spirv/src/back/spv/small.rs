//! The small integers (`i8`, `u8`, `i16`, `u16`) in the back end. A value is a 32-bit integer
//! of the type's signedness ([`Scalar::device`]) holding exactly what the host type holds
//! (sign-extended for `i8` and `i16`), so comparisons, `&`, `|`, `^`, `>>` and widening casts
//! are the 32-bit ones; every operation that can leave the range (`+ - * / % <<`, negation,
//! `!`, narrowing casts) is narrowed back to the width, which is Rust's wrapping.
//!
//! In a view or array they are packed, four `i8` / `u8` or two `i16` / `u16` to a 32-bit word
//! of the buffer (element `i` in bits `8 * (i % 4)..` of word `i / 4`), so that every Vulkan
//! device holds them with the host's layout without 8- or 16-bit storage. A load shifts and
//! masks; a store changes its own bits only, with one atomic `xor` on the word (its neighbours'
//! bits, which other threads may be writing at the same time, are `xor`ed with zero).
//! `tile_static` and local arrays hold them as 32-bit values.

use super::{Emitter, OrInternal};
use crate::back::spv::Invariant;
use crate::types::{Scalar, Ty};
use rspirv::spirv::{self, Op, Word};

/// Where a packed element lives: the pointer to its word, and the bit its value starts at.
#[derive(Clone, Copy)]
pub(super) struct PackedElem {
    /// The element's type.
    pub(super) scalar: Scalar,
    /// `8 * (i % 4)` or `16 * (i % 2)`, a `u32`.
    pub(super) shift: Word,
}

impl Emitter<'_> {
    /// `v` of type `ty` narrowed to its width where `ty` is a small integer; any other value as
    /// it is.
    pub(super) fn narrow_if_small(&mut self, v: Word, ty: &Ty) -> Word {
        match ty.scalar() {
            Some(s) if s.is_small_int() => self.narrow(v, s),
            _ => v,
        }
    }

    /// The low `bits` of `v` (a 32-bit integer of `s`'s signedness), zero-extended for an
    /// unsigned `s` and sign-extended for a signed one.
    pub(super) fn narrow(&mut self, v: Word, s: Scalar) -> Word {
        let Some(bits) = s.narrow_bits() else {
            return v;
        };
        let t = self.scalar_ty(s);
        if s.is_signed_int() {
            let up = self.const_u32(32 - bits);
            let high = self.op(Op::ShiftLeftLogical, t, &[v, up]);
            self.op(Op::ShiftRightArithmetic, t, &[high, up])
        } else {
            let mask = self.constant(t, (1u64 << bits) - 1, false);
            self.op(Op::BitwiseAnd, t, &[v, mask])
        }
    }

    /// The pointer to the word holding element `linear` of a packed buffer of `s`, with the
    /// element's place in it recorded for [`Emitter::packed_load`] and
    /// [`Emitter::packed_store`].
    pub(super) fn packed_ptr(
        &mut self,
        s: Scalar,
        linear: Word,
        at: impl FnOnce(&mut Self, Word) -> Word,
    ) -> Word {
        let bits = s
            .narrow_bits()
            .or_internal(&mut self.internal, Invariant::CheckedType);
        let per_word = 32 / bits;
        let u = self.scalar_ty(Scalar::U32);
        let log = self.const_u32(per_word.trailing_zeros());
        let word = self.op(Op::ShiftRightLogical, u, &[linear, log]);
        let lane_mask = self.const_u32(per_word - 1);
        let lane = self.op(Op::BitwiseAnd, u, &[linear, lane_mask]);
        let log_bits = self.const_u32(bits.trailing_zeros());
        let shift = self.op(Op::ShiftLeftLogical, u, &[lane, log_bits]);
        let ptr = at(self, word);
        self.packed.insert(ptr, PackedElem { scalar: s, shift });
        ptr
    }

    /// The packed element at `ptr` (from [`Emitter::packed_ptr`]), if it is one.
    pub(super) fn packed_at(&self, ptr: Word) -> Option<PackedElem> {
        self.packed.get(&ptr).copied()
    }

    /// Loads the packed element at `ptr`: its word shifted down, narrowed. (A buffer of a
    /// signed type is a runtime array of `i32` words.)
    pub(super) fn packed_load(&mut self, elem: PackedElem, ptr: Word) -> Word {
        let u = self.scalar_ty(Scalar::U32);
        let t = self.scalar_ty(elem.scalar);
        let word = self.load(t, ptr);
        let word = self.bitcast_to(u, t, word);
        let down = self.op(Op::ShiftRightLogical, u, &[word, elem.shift]);
        let value = self.bitcast_to(t, u, down);
        self.narrow(value, elem.scalar)
    }

    /// Stores `value` into the packed element at `ptr`: the word's bits of the element are
    /// `xor`ed, atomically, with the difference between the old value and `value`.
    pub(super) fn packed_store(&mut self, elem: PackedElem, ptr: Word, value: Word) {
        let u = self.scalar_ty(Scalar::U32);
        let t = self.scalar_ty(elem.scalar);
        let bits = elem.scalar.narrow_bits().unwrap_or(32);
        let mask = self.const_u32(((1u64 << bits) - 1) as u32);
        let scope = self.const_u32(spirv::Scope::Device as u32);
        let relaxed = self.const_u32(0);
        let old = self.op(Op::AtomicLoad, t, &[ptr, scope, relaxed]);
        let old = self.bitcast_to(u, t, old);
        let old = self.op(Op::ShiftRightLogical, u, &[old, elem.shift]);
        let new = self.bitcast_to(u, t, value);
        let diff = self.op(Op::BitwiseXor, u, &[old, new]);
        let diff = self.op(Op::BitwiseAnd, u, &[diff, mask]);
        let diff = self.op(Op::ShiftLeftLogical, u, &[diff, elem.shift]);
        let diff = self.bitcast_to(t, u, diff);
        self.op(Op::AtomicXor, t, &[ptr, scope, relaxed, diff]);
    }

    /// `v` of type id `from` as type id `to` (the same bits).
    fn bitcast_to(&mut self, to: Word, from: Word, v: Word) -> Word {
        if to == from {
            v
        } else {
            self.op(Op::Bitcast, to, &[v])
        }
    }
}
