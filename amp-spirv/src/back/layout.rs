//! The launch-parameter layout: where the domain extent, each buffer's extent and each scalar
//! argument live in the push-constant block, and which binding each buffer gets.

use crate::ir::{Kernel, ParamKind};
use crate::types::Scalar;

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
    /// A scalar in push-constant member `member`.
    Scalar {
        /// Member index.
        member: u32,
    },
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
        let mut push = |ty: Scalar, members: &mut Vec<Member>| {
            let size = if ty == Scalar::F64 { 8 } else { 4 };
            offset = offset.div_ceil(size) * size;
            members.push(Member {
                ty: if ty == Scalar::Bool { Scalar::U32 } else { ty },
                offset,
            });
            offset += size;
            members.len() as u32 - 1
        };
        for _ in 0..kernel.rank {
            push(Scalar::U32, &mut members);
        }
        let mut params = Vec::new();
        let mut binding = 0;
        for p in &kernel.params {
            if let ParamKind::Buffer { rank, .. } = p.kind {
                let first_member = members.len() as u32;
                // extent, offset, strides of all but the last dimension
                for _ in 0..2 * rank {
                    push(Scalar::U32, &mut members);
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
        for (i, p) in kernel.params.iter().enumerate() {
            if let ParamKind::Scalar(s) = p.kind {
                params[i] = ParamSlot::Scalar {
                    member: push(s, &mut members),
                };
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
            ParamSlot::Buffer { extent_offset, .. } => extent_offset,
            ParamSlot::Scalar { member } => self.members[member as usize].offset,
        }
    }
}
