//! Short vectors and structs in the back end: their buffer layout, and the vector operations
//! that need more than the scalar lowering.
//!
//! In a storage buffer a short vector is an `OpTypeArray` of its scalars (`ArrayStride` = the
//! scalar's size), so a `Float3` element takes 12 bytes, exactly as the host's `#[repr(C)]`
//! type; std430's `vec3` would take 16. Loads convert that array to an `OpTypeVector` and
//! stores convert back, so everything else works on real vectors. A struct in a buffer is an
//! `OpTypeStruct` of its fields' buffer types with the C offsets
//! ([`structs`](crate::structs)); in the kernel it is a struct of the fields' kernel types.

use super::OrInternal;
use super::*;
use crate::back::spv::Invariant;
use crate::types::Elem;

/// `GLSL.std.450` instruction numbers of the geometric functions.
mod geometric {
    pub const LENGTH: u32 = 66;
    pub const CROSS: u32 = 68;
    pub const NORMALIZE: u32 = 69;
}

impl Emitter<'_> {
    /// The type of one buffer element as laid out in memory.
    pub(super) fn storage_elem_ty(&mut self, elem: &Elem) -> Word {
        if let Some(id) = self.narrow_elem_ty(elem) {
            return id;
        }
        // A `bool` is stored as a `u8` (a SPIR-V `bool` has no storage form): packed in words.
        let ty = match *elem {
            Elem::Scalar(s) => Ty::Scalar(s.stored()),
            _ => elem.ty(),
        };
        if Self::direct_vector(&ty) {
            return self.ty(&ty.device());
        }
        self.storage_ty(&ty)
    }

    /// Whether buffer elements of type `ty` are stored as the SPIR-V vector itself: 2- and
    /// 4-component vectors, whose std430 alignment is their size, so an array of them has the
    /// host's packed layout. Drivers load those whole (lavapipe ran a blur over `Unorm4`
    /// elements in 1.47x a GLSL `vec4` shader's instructions when each component was a load of
    /// its own). 3-component vectors (12 bytes, aligned to 16 as `vec3`) and vectors inside
    /// structs stay arrays of scalars.
    fn direct_vector(ty: &Ty) -> bool {
        matches!(ty, Ty::Vector(_, 2 | 4))
    }

    /// The in-memory type of a value of kernel type `ty` in a buffer: scalars as they are,
    /// vectors as arrays of their scalars, structs with explicit member offsets.
    fn storage_ty(&mut self, ty: &Ty) -> Word {
        if !matches!(ty, Ty::Vector(..) | Ty::Struct(_)) {
            return self.ty(ty);
        }
        if let Some(&id) = self.storage_types.get(ty) {
            return id;
        }
        let device = ty.device();
        if device != *ty {
            // A `Unorm4` is laid out as a `Float4`.
            let id = self.storage_ty(&device);
            self.storage_types.insert(ty.clone(), id);
            return id;
        }
        // Types of their own (not deduplicated with a local `[f32; 3]` or a local struct):
        // only these carry an explicit layout.
        let id = self.b.id();
        match ty {
            Ty::Vector(s, n) => {
                let scalar = self.scalar_ty(*s);
                let len = self.const_u32(*n);
                self.b.type_array_id(Some(id), scalar, len);
                let stride = Ty::Scalar(*s)
                    .packed_bytes()
                    .or_internal(&mut self.internal, Invariant::Sized);
                self.b.decorate(
                    id,
                    spirv::Decoration::ArrayStride,
                    [Operand::LiteralBit32(stride)],
                );
            }
            Ty::Struct(def) => {
                let members: Vec<Word> =
                    def.fields.iter().map(|f| self.storage_ty(&f.ty)).collect();
                self.b.type_struct_id(Some(id), members);
                for (k, f) in def.fields.iter().enumerate() {
                    self.b.member_decorate(
                        id,
                        k as u32,
                        spirv::Decoration::Offset,
                        [Operand::LiteralBit32(f.offset)],
                    );
                }
            }
            _ => self.broken::<()>(Invariant::StorageType),
        }
        self.storage_types.insert(ty.clone(), id);
        id
    }

    /// The kernel type of a struct: its fields' kernel types, no explicit layout.
    pub(super) fn struct_ty(&mut self, def: &StructDef) -> Word {
        let members: Vec<Word> = def.fields.iter().map(|f| self.ty(&f.ty)).collect();
        let fresh = self.b.id();
        self.b.type_struct_id(Some(fresh), members)
    }

    /// The byte size of one buffer element (the runtime array's `ArrayStride`).
    pub(super) fn storage_elem_bytes(&mut self, elem: &Elem) -> u32 {
        if let Elem::Scalar(s) = elem {
            if self.narrow_storage && s.is_narrow_elem() {
                return s.stored().bits() / 8;
            }
        }
        elem.ty()
            .packed_bytes()
            .or_internal(&mut self.internal, Invariant::Sized)
    }

    /// Loads a buffer element of kernel type `ty` from `ptr`.
    pub(super) fn load_buffer_elem(&mut self, ty: &Ty, ptr: Word) -> Word {
        if let Some(small) = self.small_elem_at(ptr) {
            return self.load_small(small, ptr);
        }
        if Self::direct_vector(ty) {
            let t = self.ty(&ty.device());
            return self.load(t, ptr);
        }
        let stored = self.storage_ty(ty);
        let raw = self.load(stored, ptr);
        self.storage_to_value(ty, raw)
    }

    /// Stores `value` of kernel type `ty` into the buffer element at `ptr`.
    pub(super) fn store_buffer_elem(&mut self, ty: &Ty, ptr: Word, value: Word) {
        if let Some(small) = self.small_elem_at(ptr) {
            self.store_small(small, ptr, value);
            return;
        }
        if Self::direct_vector(ty) {
            self.store(ptr, value);
            return;
        }
        let raw = self.value_to_storage(ty, value);
        self.store(ptr, raw);
    }

    /// The members of a vector or struct type, as (kernel type, member index).
    fn members(ty: &Ty) -> Vec<Ty> {
        match ty {
            Ty::Vector(s, n) => vec![Ty::Scalar(*s); *n as usize],
            Ty::Struct(def) => def.fields.iter().map(|f| f.ty.clone()).collect(),
            _ => Vec::new(),
        }
    }

    /// Converts a value as laid out in a buffer to the kernel's type, member by member.
    fn storage_to_value(&mut self, ty: &Ty, raw: Word) -> Word {
        if !matches!(ty, Ty::Vector(..) | Ty::Struct(_)) {
            return raw;
        }
        let parts: Vec<Word> = Self::members(ty)
            .iter()
            .enumerate()
            .map(|(k, m)| {
                let stored = self.storage_ty(m);
                let part = self
                    .b
                    .composite_extract(stored, None, raw, [k as u32])
                    .or_internal(&mut self.internal, Invariant::BlockOpen);
                self.storage_to_value(m, part)
            })
            .collect();
        let t = self.ty(ty);
        self.b
            .composite_construct(t, None, parts)
            .or_internal(&mut self.internal, Invariant::BlockOpen)
    }

    /// Converts a kernel value to its layout in a buffer, member by member.
    fn value_to_storage(&mut self, ty: &Ty, value: Word) -> Word {
        if !matches!(ty, Ty::Vector(..) | Ty::Struct(_)) {
            return value;
        }
        let parts: Vec<Word> = Self::members(ty)
            .iter()
            .enumerate()
            .map(|(k, m)| {
                let t = self.ty(m);
                let part = self
                    .b
                    .composite_extract(t, None, value, [k as u32])
                    .or_internal(&mut self.internal, Invariant::BlockOpen);
                self.value_to_storage(m, part)
            })
            .collect();
        let stored = self.storage_ty(ty);
        self.b
            .composite_construct(stored, None, parts)
            .or_internal(&mut self.internal, Invariant::BlockOpen)
    }

    /// `dot`, `length`, `normalize`, `cross` of float vectors; `None` for other built-ins.
    pub(super) fn geometric(&mut self, f: Builtin, result: Word, args: &[Word]) -> Option<Word> {
        let id = match f {
            Builtin::Dot => self.op(Op::Dot, result, args),
            Builtin::Length => self.ext(geometric::LENGTH, result, args),
            Builtin::Normalize => self.ext(geometric::NORMALIZE, result, args),
            Builtin::Cross => self.ext(geometric::CROSS, result, args),
            Builtin::Min | Builtin::Max | Builtin::Abs | Builtin::Int(_) => return None,
        };
        Some(id)
    }

    /// An element-wise operator on integer vectors that needs the scalar lowering's guards
    /// (`/` and `%`): applied to each component, then reassembled.
    pub(super) fn componentwise(&mut self, op: BinOp, s: Scalar, n: u32, l: Word, r: Word) -> Word {
        let scalar = Ty::Scalar(s);
        let st = self.ty(&scalar);
        let parts: Vec<Word> = (0..n)
            .map(|k| {
                let a = self
                    .b
                    .composite_extract(st, None, l, [k])
                    .or_internal(&mut self.internal, Invariant::BlockOpen);
                let b = self
                    .b
                    .composite_extract(st, None, r, [k])
                    .or_internal(&mut self.internal, Invariant::BlockOpen);
                self.binary(op, s, &scalar, a, b, &scalar)
            })
            .collect();
        let t = self.ty(&Ty::Vector(s, n));
        self.b
            .composite_construct(t, None, parts)
            .or_internal(&mut self.internal, Invariant::BlockOpen)
    }
}
