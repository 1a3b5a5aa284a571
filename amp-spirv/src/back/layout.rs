//! The launch-parameter layout: where the domain extent, each buffer's extent and each scalar
//! argument live in the push-constant block, and which binding each buffer gets.

use crate::ir::{Kernel, ParamKind};
use crate::types::{Scalar, Ty};

/// One member of the push-constant block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    /// Its type on the device (`bool` travels as `u32`).
    pub ty: Scalar,
    /// Byte offset in the block.
    pub offset: u32,
}

/// Where one parameter's data goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamSlot {
    /// A storage buffer at `binding`. From `first_member` on: its extent (`rank` `u32`s), the
    /// element offset of its first element in the buffer (one `u32`), and the element strides
    /// of dimensions `0..rank-1` (`rank - 1` `u32`s; the last dimension's stride is 1). Views
    /// of whole buffers have offset 0 and row-major strides; sections and projections do not.
    Buffer {
        /// Binding in descriptor set 0.
        binding: u32,
        /// Index of the first extent member.
        first_member: u32,
        /// Byte offset of the extent.
        extent_offset: u32,
    },
    /// A texture at `binding` (after every buffer's): its extent (`rank` `u32`s) in the
    /// members from `first_member` on, at byte `extent_offset`.
    Texture {
        /// Binding in descriptor set 0.
        binding: u32,
        /// Index of the first extent member.
        first_member: u32,
        /// Byte offset of the extent.
        extent_offset: u32,
    },
    /// A sampler at `binding` (after every buffer's).
    Sampler {
        /// Binding in descriptor set 0.
        binding: u32,
    },
    /// A scalar in push-constant member `member`.
    Scalar {
        /// Member index.
        member: u32,
    },
    /// A short vector or struct by value: its scalars (in `leaves` order) in the members from
    /// `first_member` on, at the value's `#[repr(C)]` offsets from `offset`.
    Value {
        /// Index of the member of its first scalar.
        first_member: u32,
        /// Byte offset of the value (aligned as the host type).
        offset: u32,
    },
}

/// The scalars of a value of type `ty` at byte `base`, in declaration order (components of a
/// vector, fields of a struct, recursively), with their `#[repr(C)]` byte offsets.
pub fn leaves(ty: &Ty, base: u32, out: &mut Vec<(Scalar, u32)>) {
    match ty {
        Ty::Scalar(s) => out.push((*s, base)),
        Ty::Vector(s, n) => {
            let size = Ty::Scalar(*s).packed_bytes().unwrap_or(4);
            out.extend((0..*n).map(|k| (*s, base + k * size)));
        }
        Ty::Struct(def) => {
            for f in &def.fields {
                leaves(&f.ty, base + f.offset, out);
            }
        }
        other => unreachable!("by-value parameters are scalars, vectors or structs, not {other}"),
    }
}

/// The push-constant layout of a kernel.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The block's members in order of offset.
    pub members: Vec<Member>,
    /// One slot per parameter after the index.
    pub params: Vec<ParamSlot>,
    /// Size of the block in bytes.
    pub size: u32,
}

impl Layout {
    /// Lays out a kernel: the domain extent first, then buffer extents, then scalars.
    pub fn of(kernel: &Kernel) -> Layout {
        let mut members = Vec::new();
        let mut offset: u32 = 0;
        // Appends a scalar member at its natural alignment; returns its index.
        fn push(ty: Scalar, offset: &mut u32, members: &mut Vec<Member>) -> u32 {
            let size = if ty == Scalar::F64 { 8 } else { 4 };
            *offset = offset.div_ceil(size) * size;
            members.push(Member {
                ty: if ty == Scalar::Bool { Scalar::U32 } else { ty },
                offset: *offset,
            });
            *offset += size;
            members.len() as u32 - 1
        }
        for _ in 0..kernel.rank {
            push(Scalar::U32, &mut offset, &mut members);
        }
        let mut params = Vec::new();
        let mut binding = 0;
        for p in &kernel.params {
            if let ParamKind::Buffer { rank, .. } = p.kind {
                let first_member = members.len() as u32;
                for _ in 0..amp_abi::buffer_layout::words(rank) {
                    push(Scalar::U32, &mut offset, &mut members);
                }
                params.push(ParamSlot::Buffer {
                    binding,
                    first_member,
                    extent_offset: members[first_member as usize].offset,
                });
                binding += 1;
            } else {
                params.push(ParamSlot::Scalar { member: 0 });
            }
        }
        // Textures and samplers take the bindings after the buffers', in parameter order.
        for (i, p) in kernel.params.iter().enumerate() {
            match p.kind {
                ParamKind::Texture { rank, .. } => {
                    let first_member = members.len() as u32;
                    for _ in 0..rank {
                        push(Scalar::U32, &mut offset, &mut members);
                    }
                    params[i] = ParamSlot::Texture {
                        binding,
                        first_member,
                        extent_offset: members[first_member as usize].offset,
                    };
                    binding += 1;
                }
                ParamKind::Sampler => {
                    params[i] = ParamSlot::Sampler { binding };
                    binding += 1;
                }
                _ => {}
            }
        }
        // Scalars and composite values in declaration order, each at its natural alignment
        // (a composite at its host type's), so a composite's bytes are its host bytes.
        for (i, p) in kernel.params.iter().enumerate() {
            match &p.kind {
                &ParamKind::Scalar(s) => {
                    params[i] = ParamSlot::Scalar {
                        member: push(s, &mut offset, &mut members),
                    };
                }
                ParamKind::Value(elem) => {
                    let ty = elem.ty();
                    let (size, align) = ty.size_align();
                    let base = offset.div_ceil(align) * align;
                    let mut scalars = Vec::new();
                    leaves(&ty, base, &mut scalars);
                    let first_member = members.len() as u32;
                    members.extend(scalars.iter().map(|&(ty, offset)| Member { ty, offset }));
                    offset = base + size;
                    params[i] = ParamSlot::Value {
                        first_member,
                        offset: base,
                    };
                }
                ParamKind::Buffer { .. } | ParamKind::Texture { .. } | ParamKind::Sampler => {}
            }
        }
        let size = offset.div_ceil(4) * 4;
        Layout {
            members,
            params,
            size,
        }
    }

    /// Byte offset of scalar parameter `i`, or of buffer parameter `i`'s extent.
    pub fn param_offset(&self, i: usize) -> u32 {
        match self.params[i] {
            ParamSlot::Buffer { extent_offset, .. } | ParamSlot::Texture { extent_offset, .. } => {
                extent_offset
            }
            ParamSlot::Sampler { .. } => 0,
            ParamSlot::Scalar { member } => self.members[member as usize].offset,
            ParamSlot::Value { offset, .. } => offset,
        }
    }
}
