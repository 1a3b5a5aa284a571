//! The tile-level loops of a tiled kernel (loops that contain a barrier, and the loops
//! `batch.rs` hoisted): run once per tile with their conditions and bounds evaluated for the
//! lead thread, their bodies cut into work-item loops; a short hoisted loop is *jammed*,
//! several of its iterations run by one work-item loop.

use super::tile::stmt_has_barrier;
use super::{label, local, numbered, unsupported, Emitter, LoopLabel, RangeFlavour, Res};
use crate::diag::Span;
use crate::ir::*;
use crate::types::{Scalar, Ty};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

/// Iterations of a hoisted loop one work-item loop runs ([`Emitter::jammed_for`]).
const JAM: u32 = 4;

/// The largest loop body (in expression nodes) that is jammed: a matrix product's or a
/// stencil's multiply-add is about 20.
const JAM_NODES: usize = 96;

impl Emitter<'_> {
    /// A tile-level `while` (`cond`) or `loop`: its condition evaluated for the lead thread,
    /// its `break`s and `continue`s (taken in work-item loops) through its flag `b<id>`.
    pub(super) fn tile_loop(&mut self, cond: Option<&Expr>, body: &Block) -> Res<TokenStream> {
        let at = self.at;
        let id = self.new_label();
        let (b, ll, cl) = (numbered("b", id), label("l", id), label("c", id));
        let test = match cond {
            Some(c) => {
                let c = self.lead(c)?;
                quote_spanned!(at=> if !#c { break #ll; })
            }
            None => TokenStream::new(),
        };
        self.loops.push(LoopLabel {
            id,
            body_block: true,
            tile: true,
        });
        let body = self.tile_block(body);
        self.loops.pop();
        let body = body?;
        Ok(quote_spanned!(at=> let mut #b: u8 = 0; #ll: loop { #test #b = 0; #cl: #body }))
    }

    /// A tile-level range `for`: as [`Emitter::for_loop`], with its counters plain locals of
    /// the tile function and its bounds evaluated for the lead thread.
    pub(super) fn tile_for(&mut self, r: &RangeLoop, span: Span) -> Res<TokenStream> {
        if self.k.locals[r.var].mutable {
            return unsupported(
                "a mutable loop variable of a `for` loop containing a barrier",
                span,
            );
        }
        let Some(s) = self.k.locals[r.counter].ty.scalar() else {
            return unsupported("a range loop over a non-scalar", span);
        };
        let st = self.st()?;
        for id in [r.counter, r.done, r.var] {
            st.fixed.insert(id);
            st.tile_scalars.insert(id);
        }
        // Assigned at tile level only, so the same in every thread of a work-item loop; at
        // most the range's end (`guard.rs`) when the range ascends.
        st.facts.uniform.extend([r.counter, r.var]);
        if r.step.is_none() {
            st.facts
                .loop_ends
                .insert(r.var, ((*r.end).clone(), r.inclusive));
        }
        if let Some(body) = self.jam_body(r, s) {
            self.scope_lets(&body)?;
            return self.jammed_for(r, s, span, &body);
        }
        self.range_loop(r, s, span, loop_names(r), RangeFlavour::Tile)
    }

    /// The body of hoisted loop `r` (`batch.rs`) without its closing boundary, when
    /// [`JAM`] of its iterations may run in one work-item loop: an ascending `u32`/`usize`
    /// range with step 1, a body of barrier-free statements that neither return nor assign a
    /// tile-uniform local. No barrier of the kernel orders the iterations of such a loop, so
    /// each thread running several before the next thread starts is one of the orders the
    /// kernel allows, and each thread still runs its own iterations in order.
    fn jam_body(&self, r: &RangeLoop, s: Scalar) -> Option<Vec<Stmt>> {
        let plain = r.step.is_none() && !r.inclusive && matches!(s, Scalar::U32 | Scalar::Usize);
        if !plain || !self.hoisted.contains(&r.var) || r.body.tail.is_some() {
            return None;
        }
        let (last, body) = r.body.stmts.split_last()?;
        let boundary = matches!(last, Stmt::Expr(e) if matches!(e.kind, ExprKind::Barrier(_)));
        let st = self.tile.as_ref()?;
        let simple = |x: &Stmt| {
            !stmt_has_barrier(x)
                && !super::tile_locals::assigns_uniform(x, &st.uniform)
                && !matches!(x, Stmt::Let(id, _) if st.remat.contains(id))
                && match x {
                    Stmt::Let(_, Some(e)) | Stmt::Expr(e) => !has_return(e),
                    Stmt::Let(_, None) => true,
                }
        };
        // A literal range too short to jam, or a body too large to copy JAM times (code size
        // and build time: device functions are inlined into it), runs one by one.
        let literal = |e: &Expr| match e.kind {
            ExprKind::Lit(Lit::Int(v)) => Some(v),
            _ => None,
        };
        if let (Some(a), Some(b)) = (literal(&r.start), literal(&r.end)) {
            if b.saturating_sub(a) < u128::from(JAM) {
                return None;
            }
        }
        let mut nodes = 0usize;
        for x in body {
            if let Stmt::Let(_, Some(e)) | Stmt::Expr(e) = x {
                any_expr(e, |_| {
                    nodes += 1;
                    Probe::Descend
                });
            }
        }
        (boundary && !body.is_empty() && nodes <= JAM_NODES && body.iter().all(simple))
            .then(|| body.to_vec())
    }

    /// Records the locals the statements of a jammed body declare ([`TileState::scoped`]).
    fn scope_lets(&mut self, body: &[Stmt]) -> Res<()> {
        let st = self.st()?;
        for x in body {
            if let Stmt::Let(id, _) = x {
                st.scoped.insert(*id);
            }
        }
        Ok(())
    }

    /// Hoisted loop `r` with [`JAM`] iterations per work-item loop (unroll and jam): each
    /// thread runs `var = counter + j; body` for `j` in `0..JAM`, so a value it carries from
    /// one iteration to the next (a running sum in its frame) stays in a register across
    /// them; the iterations left over run one per work-item loop, as before.
    fn jammed_for(
        &mut self,
        r: &RangeLoop,
        s: Scalar,
        span: Span,
        body: &[Stmt],
    ) -> Res<TokenStream> {
        let at = self.at;
        let t = self.scalar(s, span)?;
        let counter_ty = self.k.locals[r.counter].ty.clone();
        let expr = |kind: ExprKind, ty: &Ty| Expr {
            kind,
            ty: ty.clone(),
            span,
        };
        let mut stmts = Vec::new();
        for j in 0..JAM {
            let value = expr(
                ExprKind::Binary(
                    BinOp::Add,
                    Box::new(expr(ExprKind::Local(r.counter), &counter_ty)),
                    Box::new(expr(ExprKind::Lit(Lit::Int(u128::from(j))), &counter_ty)),
                ),
                &counter_ty,
            );
            let assign = ExprKind::Assign(Place::Local(r.var, Vec::new()), Box::new(value));
            stmts.push(Stmt::Expr(expr(assign, &Ty::Unit)));
            stmts.extend(body.iter().cloned());
        }
        let (start, end) = (self.lead(&r.start)?, self.lead(&r.end)?);
        // `var` takes JAM values in the work-item loop: no guard of it may assume one, but
        // a guard may take it as the counter plus a step up to JAM - 1 (`guard.rs`).
        let st = self.st()?;
        st.facts.uniform.remove(&r.var);
        let counter = expr(ExprKind::Local(r.counter), &counter_ty);
        st.facts.jammed.insert(r.var, (counter, JAM - 1));
        let refs: Vec<&Stmt> = stmts.iter().collect();
        let jammed = self.region(&refs, None);
        let st = self.st()?;
        st.facts.jammed.remove(&r.var);
        st.facts.uniform.insert(r.var);
        let jammed = jammed?;
        // The rest: the ordinary loop, from where the jammed one stopped.
        let mut rest = r.clone();
        *rest.start = expr(ExprKind::Local(r.counter), &counter_ty);
        let tail = self.range_loop(&rest, s, span, loop_names(r), RangeFlavour::Tile)?;
        let (c, id) = (local(r.counter), self.new_label());
        let (j, jl, jam) = (
            numbered("j", id),
            label("j", id),
            proc_macro2::Literal::u32_unsuffixed(JAM),
        );
        Ok(quote_spanned!(at=>
            {
                #c = #start; let #j: #t = #end;
                #jl: loop {
                    if !(#c < #j && #j.wrapping_sub(#c) >= #jam) { break #jl; }
                    #jammed #c = #c.wrapping_add(#jam);
                }
            }
            #tail
        ))
    }
}

/// The names of a tile-level range loop's counter, `done` flag and variable: plain locals of
/// the tile function.
fn loop_names(r: &RangeLoop) -> (TokenStream, TokenStream, TokenStream) {
    let (c, d, v) = (local(r.counter), local(r.done), local(r.var));
    (quote!(#c), quote!(#d), quote!(#v))
}
