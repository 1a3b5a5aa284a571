//! Buffer element addresses: a view's extent, offset and strides from the push-constant block,
//! folded by the layout facts where the runtime specializes them away.

use super::Emitter;
use super::OrInternal;
use crate::back::spv::Invariant;
use crate::back::ParamSlot;
use crate::ir::*;
use crate::types::{Elem, Scalar};
use rspirv::spirv::{Op, Word};

impl Emitter<'_> {
    /// Buffer `p`'s extent, one `u32` per dimension, from the push-constant block: the
    /// domain's own member where the layout facts say the two are equal, so that both are one
    /// value to the driver.
    pub(super) fn buffer_extent(&mut self, p: ParamId) -> Vec<Word> {
        let first_member = self.buffer_first_member(p);
        let ParamKind::Buffer { rank, .. } = self.k.params[p].kind else {
            return self.broken(Invariant::BufferDeclared);
        };
        let u = self.scalar_ty(Scalar::U32);
        (0..rank)
            .map(|d| {
                let own = self.push_member(first_member + d);
                if rank != self.k.rank {
                    return own;
                }
                let equal = self.layout_fact(p, crate::layout_fact::EQUALS_DOMAIN_DIM0 << d);
                let domain = self.push_member(d);
                self.op(Op::Select, u, &[equal, domain, own])
            })
            .collect()
    }

    fn buffer_first_member(&mut self, p: ParamId) -> u32 {
        match self.layout.params[p] {
            ParamSlot::Buffer { first_member, .. } => first_member,
            _ => self.broken(Invariant::BufferDeclared),
        }
    }

    /// Pointer to a buffer element: the view's offset plus each index times its stride (the
    /// last dimension's stride is 1), all from the push-constant block.
    pub(super) fn buffer_element_ptr(&mut self, p: ParamId, index: &[Word]) -> Word {
        let (linear, _) = self.buffer_linear(p, index);
        self.buffer_ptr_at(p, linear)
    }

    /// The element number of `index` in buffer `p` (the view's offset plus each component times
    /// its stride), and the view's offset alone.
    pub(super) fn buffer_linear(&mut self, p: ParamId, index: &[Word]) -> (Word, Word) {
        let rank = index.len();
        let u = self.scalar_ty(Scalar::U32);
        let mut linear = index[rank - 1];
        let strides = self.buffer_strides(p, rank as u32);
        for (&component, stride) in index.iter().zip(strides) {
            let scaled = self.op(Op::IMul, u, &[component, stride]);
            linear = self.op(Op::IAdd, u, &[scaled, linear]);
        }
        let offset = self.buffer_offset(p);
        (self.op(Op::IAdd, u, &[linear, offset]), offset)
    }

    /// The element strides of rank-`rank` buffer `p`'s dimensions but the last (whose stride is
    /// 1), from the push constants, or row-major from its extent when the facts say the view
    /// is dense.
    pub(super) fn buffer_strides(&mut self, p: ParamId, rank: u32) -> Vec<Word> {
        if rank < 2 {
            return Vec::new();
        }
        let first_member = self.buffer_first_member(p);
        let u = self.scalar_ty(Scalar::U32);
        let extent = self.buffer_extent(p);
        let last = rank as usize - 1;
        (0..last)
            .map(|d| {
                let pushed = self.push_member(
                    first_member + amp_abi::buffer_layout::strides_word(rank) + d as u32,
                );
                let mut dense = extent[last];
                for &e in extent[d + 1..last].iter().rev() {
                    dense = self.op(Op::IMul, u, &[e, dense]);
                }
                let is_dense = self.layout_fact(p, crate::layout_fact::DENSE);
                self.op(Op::Select, u, &[is_dense, dense, pushed])
            })
            .collect()
    }

    /// The element offset of buffer `p`'s view: 0 when the pipeline is specialized for a view
    /// that starts at the buffer's first element, else read from the push constants.
    pub(super) fn buffer_offset(&mut self, p: ParamId) -> Word {
        let rank = match self.k.params[p].kind {
            ParamKind::Buffer { rank, .. } => rank,
            _ => return self.broken(Invariant::BufferDeclared),
        };
        let first_member = self.buffer_first_member(p);
        let pushed = self.push_member(first_member + amp_abi::buffer_layout::offset_word(rank));
        let zero_offset = self.layout_fact(p, crate::layout_fact::ZERO_OFFSET);
        let u = self.scalar_ty(Scalar::U32);
        let zero = self.const_u32(0);
        self.op(Op::Select, u, &[zero_offset, zero, pushed])
    }

    /// Pointer to element number `linear` of buffer `p`.
    /// Packed elements (the small integers) have the pointer to their word, which
    /// `load_buffer_elem` and `store_buffer_elem` know.
    pub(super) fn buffer_ptr_at(&mut self, p: ParamId, linear: Word) -> Word {
        let zero = self.const_u32(0);
        let (var, elem_ptr) = self.buffers[p]
            .as_ref()
            .map(|b| (b.var, b.elem_ptr))
            .or_internal(&mut self.internal, Invariant::BufferDeclared);
        match self.k.params[p].kind {
            ParamKind::Buffer {
                elem: Elem::Scalar(s),
                ..
            } if s.is_narrow_elem() && self.narrow_storage => {
                let ptr = self.access(elem_ptr, var, &[zero, linear]);
                self.narrow_ptr(s, ptr)
            }
            ParamKind::Buffer {
                elem: Elem::Scalar(s),
                ..
            } if s.is_narrow_elem() => {
                self.packed_ptr(s, linear, |e, word| e.access(elem_ptr, var, &[zero, word]))
            }
            _ => self.access(elem_ptr, var, &[zero, linear]),
        }
    }
}
