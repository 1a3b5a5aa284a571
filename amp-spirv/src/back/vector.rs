//! Short vectors in the back end: their buffer layout and the operations that need more than
//! the scalar lowering.
//!
//! In a storage buffer a short vector is an `OpTypeArray` of its scalars (`ArrayStride` = the
//! scalar's size), so a `Float3` element takes 12 bytes, exactly as the host's `#[repr(C)]`
//! type; std430's `vec3` would take 16. Loads convert that array to an `OpTypeVector` and
//! stores convert back, so everything else works on real vectors.

use super::*;
use crate::types::Elem;

/// `GLSL.std.450` instruction numbers of the geometric functions.
mod geometric {
    pub const LENGTH: u32 = 66;
    pub const CROSS: u32 = 68;
    pub const NORMALIZE: u32 = 69;
}

impl Emitter<'_> {
    /// The type of one buffer element as laid out in memory.
    pub(super) fn storage_elem_ty(&mut self, elem: Elem) -> Word {
        let Elem::Vector(s, n) = elem else {
            return self.ty(&elem.ty());
        };
        if let Some(&id) = self.storage_types.get(&elem) {
            return id;
        }
        let scalar = self.scalar_ty(s);
        let len = self.const_u32(n);
        // A type of its own (not deduplicated with a local `[f32; 3]`): only this one carries
        // an explicit layout.
        let id = self.b.id();
        self.b.type_array_id(Some(id), scalar, len);
        let stride = Ty::Scalar(s).packed_bytes().expect("a scalar");
        self.b.decorate(
            id,
            spirv::Decoration::ArrayStride,
            [Operand::LiteralBit32(stride)],
        );
        self.storage_types.insert(elem, id);
        id
    }

    /// The byte size of one buffer element (the runtime array's `ArrayStride`).
    pub(super) fn storage_elem_bytes(elem: Elem) -> u32 {
        elem.ty()
            .packed_bytes()
            .expect("buffer elements are scalars or vectors")
    }

    /// Loads a buffer element of kernel type `ty` from `ptr`.
    pub(super) fn load_buffer_elem(&mut self, ty: &Ty, ptr: Word) -> Word {
        let &Ty::Vector(s, n) = ty else {
            let t = self.ty(ty);
            return self.load(t, ptr);
        };
        let stored = self.storage_elem_ty(Elem::Vector(s, n));
        let raw = self.load(stored, ptr);
        let scalar = self.scalar_ty(s);
        let parts: Vec<Word> = (0..n)
            .map(|k| {
                self.b
                    .composite_extract(scalar, None, raw, [k])
                    .expect("open")
            })
            .collect();
        let t = self.ty(ty);
        self.b.composite_construct(t, None, parts).expect("open")
    }

    /// Stores `value` of kernel type `ty` into the buffer element at `ptr`.
    pub(super) fn store_buffer_elem(&mut self, ty: &Ty, ptr: Word, value: Word) {
        let &Ty::Vector(s, n) = ty else {
            self.store(ptr, value);
            return;
        };
        let scalar = self.scalar_ty(s);
        let parts: Vec<Word> = (0..n)
            .map(|k| {
                self.b
                    .composite_extract(scalar, None, value, [k])
                    .expect("open")
            })
            .collect();
        let stored = self.storage_elem_ty(Elem::Vector(s, n));
        let raw = self
            .b
            .composite_construct(stored, None, parts)
            .expect("open");
        self.store(ptr, raw);
    }

    /// `dot`, `length`, `normalize`, `cross` of float vectors; `None` for other built-ins.
    pub(super) fn geometric(&mut self, f: Builtin, result: Word, args: &[Word]) -> Option<Word> {
        let id = match f {
            Builtin::Dot => self.op(Op::Dot, result, args),
            Builtin::Length => self.ext(geometric::LENGTH, result, args),
            Builtin::Normalize => self.ext(geometric::NORMALIZE, result, args),
            Builtin::Cross => self.ext(geometric::CROSS, result, args),
            Builtin::Min | Builtin::Max | Builtin::Abs => return None,
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
                let a = self.b.composite_extract(st, None, l, [k]).expect("open");
                let b = self.b.composite_extract(st, None, r, [k]).expect("open");
                self.binary(op, s, &scalar, a, b, &scalar)
            })
            .collect();
        let t = self.ty(&Ty::Vector(s, n));
        self.b.composite_construct(t, None, parts).expect("open")
    }
}
