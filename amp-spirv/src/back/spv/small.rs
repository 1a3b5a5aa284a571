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
//!
//! A second module of the same kernel (`emit`'s `narrow_storage`) declares those buffers as
//! arrays of 8- and 16-bit integers instead, loaded with a widening conversion and stored with
//! a narrowing one, for devices with 8- and 16-bit storage, where a store is a plain store.
//!
//! A `bool` element is stored as the host's `bool` is, a byte 0 or 1 ([`Scalar::stored`]): it
//! goes through the `u8` paths, compared with 0 after a load and selected from 1 and 0 before
//! a store, so a kernel never writes another byte into it.

use super::{Emitter, OrInternal};
use crate::back::spv::Invariant;
use crate::types::{Elem, Scalar, Ty};
use rspirv::spirv::{self, Op, Word};

/// A small-integer buffer element behind a pointer: in a packed word, or on its own.
#[derive(Clone, Copy)]
pub(super) struct SmallElem {
    /// The element's type.
    pub(super) scalar: Scalar,
    /// Packed: the bit its value starts at in the word the pointer points to, `8 * (i % 4)` or
    /// `16 * (i % 2)` (a `u32`). `None`: the pointer is to the 8- or 16-bit element itself
    /// (narrow storage).
    pub(super) shift: Option<Word>,
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
    /// element's place in it recorded for [`Emitter::load_small`] and
    /// [`Emitter::store_small`].
    pub(super) fn packed_ptr(
        &mut self,
        s: Scalar,
        linear: Word,
        at: impl FnOnce(&mut Self, Word) -> Word,
    ) -> Word {
        let bits = s
            .stored()
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
        self.small_elems.insert(
            ptr,
            SmallElem {
                scalar: s,
                shift: Some(shift),
            },
        );
        ptr
    }

    /// `ptr`, a pointer to an 8- or 16-bit element of type `s` (narrow storage), recorded for
    /// [`Emitter::load_small`] and [`Emitter::store_small`].
    pub(super) fn narrow_ptr(&mut self, s: Scalar, ptr: Word) -> Word {
        self.small_elems.insert(
            ptr,
            SmallElem {
                scalar: s,
                shift: None,
            },
        );
        ptr
    }

    /// The 8- or 16-bit SPIR-V integer type of a small-integer buffer element in narrow
    /// storage, with the capability (and, for 8 bits, the extension: core only from SPIR-V
    /// 1.5) it needs; `None` for other elements or packed storage.
    pub(super) fn narrow_elem_ty(&mut self, elem: &Elem) -> Option<Word> {
        let Elem::Scalar(s) = *elem else {
            return None;
        };
        let s = s.stored();
        let bits = s.narrow_bits().filter(|_| self.narrow_storage)?;
        let capability = if bits == 8 {
            spirv::Capability::StorageBuffer8BitAccess
        } else {
            spirv::Capability::StorageBuffer16BitAccess
        };
        if !self.capabilities.contains(&capability) {
            self.capabilities.push(capability);
            if bits == 8 {
                self.b.extension("SPV_KHR_8bit_storage");
            }
        }
        Some(self.b.type_int(bits, u32::from(s.is_signed_int())))
    }

    /// The small-integer element at `ptr` (from [`Emitter::packed_ptr`] or
    /// [`Emitter::narrow_ptr`]), if it is one.
    pub(super) fn small_elem_at(&self, ptr: Word) -> Option<SmallElem> {
        self.small_elems.get(&ptr).copied()
    }

    /// Loads the small element at `ptr`: its 8- or 16-bit element widened, or its word
    /// shifted down and narrowed. (A buffer of a signed type is a runtime array of `i32`
    /// words.) A `bool` is its byte compared with 0.
    pub(super) fn load_small(&mut self, elem: SmallElem, ptr: Word) -> Word {
        let stored = elem.scalar.stored();
        let t = self.scalar_ty(stored);
        let value = if let Some(shift) = elem.shift {
            let u = self.scalar_ty(Scalar::U32);
            let word = self.load(t, ptr);
            let word = self.bitcast_to(u, t, word);
            let down = self.op(Op::ShiftRightLogical, u, &[word, shift]);
            let value = self.bitcast_to(t, u, down);
            self.narrow(value, stored)
        } else {
            let narrow = self
                .narrow_elem_ty(&Elem::Scalar(stored))
                .or_internal(&mut self.internal, Invariant::CheckedType);
            let v = self.load(narrow, ptr);
            self.op(Self::widening(stored), t, &[v])
        };
        if elem.scalar == Scalar::Bool {
            let b = self.scalar_ty(Scalar::Bool);
            let zero = self.const_u32(0);
            return self.op(Op::INotEqual, b, &[value, zero]);
        }
        value
    }

    /// Stores `value` into the small element at `ptr`: a narrowing store into narrow storage,
    /// or in a packed word, the word's bits of the element `xor`ed, atomically, with the
    /// difference between the old value and `value`. A `bool` is stored as 1 or 0.
    pub(super) fn store_small(&mut self, elem: SmallElem, ptr: Word, value: Word) {
        let stored = elem.scalar.stored();
        let t = self.scalar_ty(stored);
        let value = if elem.scalar == Scalar::Bool {
            let (one, zero) = (self.const_u32(1), self.const_u32(0));
            self.op(Op::Select, t, &[value, one, zero])
        } else {
            value
        };
        let Some(shift) = elem.shift else {
            let narrow = self
                .narrow_elem_ty(&Elem::Scalar(stored))
                .or_internal(&mut self.internal, Invariant::CheckedType);
            let v = self.op(Self::widening(stored), narrow, &[value]);
            self.store(ptr, v);
            return;
        };
        let u = self.scalar_ty(Scalar::U32);
        let bits = stored.narrow_bits().unwrap_or(32);
        let mask = self.const_u32(((1u64 << bits) - 1) as u32);
        let scope = self.const_u32(spirv::Scope::Device as u32);
        let relaxed = self.const_u32(0);
        let old = self.op(Op::AtomicLoad, t, &[ptr, scope, relaxed]);
        let old = self.bitcast_to(u, t, old);
        let old = self.op(Op::ShiftRightLogical, u, &[old, shift]);
        let new = self.bitcast_to(u, t, value);
        let diff = self.op(Op::BitwiseXor, u, &[old, new]);
        let diff = self.op(Op::BitwiseAnd, u, &[diff, mask]);
        let diff = self.op(Op::ShiftLeftLogical, u, &[diff, shift]);
        let diff = self.bitcast_to(t, u, diff);
        self.op(Op::AtomicXor, t, &[ptr, scope, relaxed, diff]);
    }

    /// The conversion between a small integer's 32-bit value and its 8- or 16-bit storage:
    /// sign-extending (and truncating) for the signed types, zero-extending for the others.
    fn widening(s: Scalar) -> Op {
        if s.is_signed_int() {
            Op::SConvert
        } else {
            Op::UConvert
        }
    }

    /// `v` of type id `from` as type id `to` (the same bits).
    pub(super) fn bitcast_to(&mut self, to: Word, from: Word, v: Word) -> Word {
        if to == from {
            v
        } else {
            self.op(Op::Bitcast, to, &[v])
        }
    }
}
