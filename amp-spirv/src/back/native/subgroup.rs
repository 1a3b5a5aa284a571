//! Subgroups on the native accelerator: the tile's threads in row-major local-index order,
//! cut into subgroups of `<rt>::SUBGROUP_SIZE` lanes (the last one partial when the tile's
//! thread count is not a multiple).
//!
//! `size()`, `lane()`, `index()` and `count()` are arithmetic on the thread's local index.
//! An operation that combines lanes needs every lane's operand before any lane's result, so
//! it runs between two work-item loops, like a barrier:
//!
//! 1. [`crate::pass::collectives::hoisted`] rewrites the kernel so that each such operation is a statement of its own,
//!    `let r = op(a, b);` on fresh locals, with its operands computed just before (rule
//!    `subgroup-uniformity` placed every operation where this keeps the statement's meaning);
//! 2. the tile emitter treats those statements as tile-level code (`pass::uniform::has_barrier`),
//!    so the operands of every thread are in their frames when [`Emitter::collective`] runs:
//!    one loop per subgroup that reads the operands and writes every lane's result into the
//!    result's frame.
//!
//! Results are docs/kernel-language.md's: lanes combined in lane order; integer arithmetic
//! wrapping; float `min`/`max` from their identity, passing over NaN (`f32::min`); a lane
//! operand or mask taken modulo the subgroup size; a lane past the partial last subgroup's
//! end reads the type's zero.

use super::invariant::Invariant;

use super::{index_lit, unsupported, Emitter, Res};
use crate::diag::Span;
use crate::ir::*;
use crate::types::{Scalar, Ty};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

impl Emitter<'_> {
    /// The thread's row-major index in its tile, a `u32` expression.
    fn linear_local(&mut self, span: Span) -> Res<TokenStream> {
        let Some(tiled) = self.k.tiled.as_ref() else {
            return unsupported("a subgroup outside a tiled kernel", span);
        };
        let l = self.local(tiled.local);
        let mut linear = quote!(#l[0]);
        for d in 1..self.k.rank as usize {
            let (dn, dl) = (super::numbered("d", d), index_lit(d));
            linear = quote!(#linear.wrapping_mul(#dn).wrapping_add(#l[#dl]));
        }
        Ok(linear)
    }

    /// `size()`, `lane()`, `index()` or `count()`: facts of the thread's position.
    pub(super) fn subgroup_fact(&mut self, op: SubgroupOp, span: Span) -> Res<TokenStream> {
        let (rt, at) = (self.rt.clone(), self.at);
        let size = quote_spanned!(at=> #rt::SUBGROUP_SIZE);
        Ok(match op {
            SubgroupOp::Size => size,
            SubgroupOp::Lane => {
                let l = self.linear_local(span)?;
                quote_spanned!(at=> (#l % #size))
            }
            SubgroupOp::Index => {
                let l = self.linear_local(span)?;
                quote_spanned!(at=> (#l / #size))
            }
            SubgroupOp::Count => quote_spanned!(at=> ((nt as u32).div_ceil(#size))),
            _ => return super::broken(Invariant::HoistedSubgroup, span),
        })
    }

    /// `let r = op(operands);` at tile level: every lane's result into `r`, from the operands
    /// every thread of the tile has computed (see the module docs).
    pub(super) fn collective(
        &mut self,
        r: LocalId,
        op: SubgroupOp,
        operands: &[Expr],
        e: &Expr,
    ) -> Res<TokenStream> {
        let (span, at, rt) = (e.span, self.at, self.rt.clone());
        let mut ids = Vec::new();
        for o in operands {
            match o.kind {
                ExprKind::Local(id) => ids.push(id),
                _ => return super::broken(Invariant::HoistedSubgroup, o.span),
            }
        }
        // A context of its own whose every local lives in the threads' frames (as a lead
        // evaluation's): the operands were written by a work-item loop, the result is read
        // by the next.
        let st = self.st()?;
        st.contexts += 1;
        let ctx = st.contexts;
        st.ctx = Some(ctx);
        st.lead_ctx.insert(ctx);
        let result = st.name(r);
        let value = ids.first().map(|&id| st.name(id));
        let second = ids.get(1).map(|&id| st.name(id));
        st.ctx = None;
        let value_ty = operands.first().map(|o| o.ty.clone()).unwrap_or(Ty::BOOL);
        let zero = self.zero(&value_ty, span)?;
        let read = |lane: TokenStream, v: &Option<TokenStream>| -> TokenStream {
            quote_spanned!(at=> { let lane: usize = #lane; #v })
        };
        let per_lane = match op {
            SubgroupOp::Elect => quote_spanned!(at=>
                for lane in base..end { #result = lane == base; }
            ),
            SubgroupOp::All | SubgroupOp::Any | SubgroupOp::CountTrue => {
                let (init, step) = match op {
                    SubgroupOp::All => (quote!(true), quote!(acc &= #value;)),
                    SubgroupOp::Any => (quote!(false), quote!(acc |= #value;)),
                    _ => (quote!(0u32), quote!(acc += #value as u32;)),
                };
                quote_spanned!(at=>
                    let mut acc = #init;
                    for lane in base..end { #step }
                    for lane in base..end { #result = acc; }
                )
            }
            SubgroupOp::ExclusiveCountTrue => quote_spanned!(at=>
                let mut acc = 0u32;
                for lane in base..end { let v = #value; #result = acc; acc += v as u32; }
            ),
            SubgroupOp::Ballot => quote_spanned!(at=>
                let mut bits = [0u32; 4];
                for lane in base..end {
                    if #value { let i = lane - base; bits[i / 32] |= 1u32 << (i % 32); }
                }
                for lane in base..end { #result = bits; }
            ),
            SubgroupOp::BroadcastFirst => {
                let first = read(quote!(base), &value);
                quote_spanned!(at=>
                    let v = #first;
                    for lane in base..end { #result = v; }
                )
            }
            SubgroupOp::Broadcast | SubgroupOp::Shuffle | SubgroupOp::ShuffleXor => {
                let own = match op {
                    SubgroupOp::ShuffleXor => quote!(((lane - base) as u32) ^),
                    _ => quote!(),
                };
                let src = read(quote!(src), &value);
                quote_spanned!(at=>
                    for lane in base..end {
                        let src = base + ((#own (#second & (#rt::SUBGROUP_SIZE - 1))) as usize);
                        #result = if src < end { #src } else { #zero };
                    }
                )
            }
            SubgroupOp::Reduce(g) | SubgroupOp::InclusiveScan(g) | SubgroupOp::ExclusiveScan(g) => {
                let s = value_ty.scalar().unwrap_or(Scalar::I32);
                let (identity, combine) = self.combining(g, s, span)?;
                let float_add = g == GroupOp::Add && s.is_float();
                match op {
                    // A float sum from the first lane's value (see `combining`), that lane
                    // peeled so the loop has no test of `first`.
                    SubgroupOp::Reduce(_) if float_add => {
                        let first = read(quote!(base), &value);
                        quote_spanned!(at=>
                            let mut acc = #first;
                            for lane in base + 1..end { acc = acc + #value; }
                            for lane in base..end { #result = acc; }
                        )
                    }
                    SubgroupOp::Reduce(_) => quote_spanned!(at=>
                        let mut acc = #identity;
                        let mut first = true;
                        for lane in base..end { let v = #value; acc = #combine; first = false; }
                        for lane in base..end { #result = acc; }
                    ),
                    SubgroupOp::InclusiveScan(_) => quote_spanned!(at=>
                        let mut acc = #identity;
                        let mut first = true;
                        for lane in base..end {
                            let v = #value; acc = #combine; first = false; #result = acc;
                        }
                    ),
                    _ => quote_spanned!(at=>
                        let mut acc = #identity;
                        let mut first = true;
                        for lane in base..end {
                            let v = #value; #result = acc; acc = #combine; first = false;
                        }
                    ),
                }
            }
            SubgroupOp::Size | SubgroupOp::Lane | SubgroupOp::Index | SubgroupOp::Count => {
                return super::broken(Invariant::HoistedSubgroup, span)
            }
        };
        Ok(quote_spanned!(at=> {
            let size = #rt::SUBGROUP_SIZE as usize;
            let mut base: usize = 0;
            while base < nt {
                let end = ::core::cmp::min(base + size, nt);
                #[allow(unused_variables, unused_assignments)]
                { #per_lane }
                base += size;
            }
        }))
    }

    /// The identity of `g` on `s` and the expression combining `acc` with `v` (`first`: no
    /// lane combined yet).
    ///
    /// A float sum starts from the first lane's value rather than from `0.0`, so that a sum
    /// of `-0.0`s stays `-0.0` (an exclusive scan's lane 0 still gets the identity, `+0.0`).
    fn combining(&self, g: GroupOp, s: Scalar, span: Span) -> Res<(TokenStream, TokenStream)> {
        let at = self.at;
        let t = match s {
            Scalar::I32 => quote!(i32),
            Scalar::U32 => quote!(u32),
            Scalar::F32 => quote!(f32),
            Scalar::F64 => quote!(f64),
            Scalar::Bool => quote!(bool),
            _ => return unsupported(format!("a subgroup operation on `{}`", s.name()), span),
        };
        let float = s.is_float();
        let boolean = s == Scalar::Bool;
        Ok(match g {
            GroupOp::Add if float => (
                quote_spanned!(at=> 0.0 as #t),
                quote_spanned!(at=> if first { v } else { acc + v }),
            ),
            GroupOp::Add => (
                quote_spanned!(at=> 0 as #t),
                quote_spanned!(at=> acc.wrapping_add(v)),
            ),
            GroupOp::Min if float => (
                quote_spanned!(at=> #t::INFINITY),
                quote_spanned!(at=> acc.min(v)),
            ),
            GroupOp::Max if float => (
                quote_spanned!(at=> #t::NEG_INFINITY),
                quote_spanned!(at=> acc.max(v)),
            ),
            GroupOp::Min => (
                quote_spanned!(at=> #t::MAX),
                quote_spanned!(at=> ::core::cmp::min(acc, v)),
            ),
            GroupOp::Max => (
                quote_spanned!(at=> #t::MIN),
                quote_spanned!(at=> ::core::cmp::max(acc, v)),
            ),
            GroupOp::And if boolean => (quote!(true), quote_spanned!(at=> acc & v)),
            GroupOp::And => (quote!(!(0 as #t)), quote_spanned!(at=> acc & v)),
            GroupOp::Or if boolean => (quote!(false), quote_spanned!(at=> acc | v)),
            GroupOp::Xor if boolean => (quote!(false), quote_spanned!(at=> acc ^ v)),
            GroupOp::Or => (quote!(0 as #t), quote_spanned!(at=> acc | v)),
            GroupOp::Xor => (quote!(0 as #t), quote_spanned!(at=> acc ^ v)),
        })
    }
}
