//! A batch's work-item loop narrowed to the lanes an `if` lets through: a kernel written over
//! the whole grid with its work under `if i >= 1 && i < n - 1 && ..` (a stencil's interior,
//! as PolyBench writes them) runs, per batch, only the lanes of the last dimension whose
//! component passes, after the other dimensions' comparisons passed once for the batch. The
//! lanes then run the `if`'s block without the test, so the loop has no branch per lane and
//! its guard (`guard.rs`) knows the lanes' range.

use super::guard::{bound, At, Part};
use super::tile::is_uniform_index;
use super::{conjunction, numbered, Emitter, Res};
use crate::ir::*;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// A batch's work-item loop narrowed to the lanes an `if` lets through
/// ([`Emitter::batch_interior`]).
pub(super) struct Interior<'b> {
    /// Comparisons of the batch's dimensions before the last two (one thread wide), tested
    /// once.
    pub(super) batch: Vec<TokenStream>,
    /// The least values (`u64`) of the dimension before the last (a block of rows in a batch
    /// without frames: `pass/batch.rs`, one row in another).
    pub(super) row_lows: Vec<TokenStream>,
    /// Its first values past the end (`u64`).
    pub(super) row_highs: Vec<TokenStream>,
    /// The last dimension's least values (`u64`).
    pub(super) lows: Vec<TokenStream>,
    /// Its first values past the end (`u64`).
    pub(super) highs: Vec<TokenStream>,
    /// The `if`'s block.
    pub(super) then: &'b Block,
}

impl Emitter<'_> {
    /// In a batch, when the region `stmts` + `tail` is one `if` (no `else`) whose condition is
    /// a conjunction of comparisons between a component of the thread's global index and a
    /// value the same in every thread (`i >= 1 && i < n - 1 && k + 1 < m` is not one: only a
    /// component alone): the comparisons of the batch's dimensions before the last two, one
    /// thread wide, as values to test once (`batch`), and the least (`lows`, `row_lows`) and
    /// first excluded (`highs`, `row_highs`) values in `u64` of the last dimension and the one
    /// before it. The work-item loop then runs the rows and lanes between them, and the `if`'s
    /// block without it: the same threads run the same code in the same order. `Err` for a
    /// failure to emit a value.
    pub(super) fn batch_interior<'b>(
        &mut self,
        stmts: &[&'b Stmt],
        tail: Option<&'b Expr>,
    ) -> Res<Option<Interior<'b>>> {
        let e = match (stmts, tail) {
            ([Stmt::Expr(e)], None) | ([], Some(e)) => e,
            _ => return Ok(None),
        };
        let ExprKind::If(cond, then, None) = &e.kind else {
            return Ok(None);
        };
        let Some(st) = self.tile.as_ref() else {
            return Ok(None);
        };
        let rank = self.k.rank as usize;
        // The component `d` of the thread's global index, alone.
        let global = |x: &Expr| {
            bound(x, &st.facts, At::WorkItemLoop).and_then(|b| match b.single_part() {
                Some(Part::Global(d)) => Some(*d),
                _ => None,
            })
        };
        // Each comparison: the component, the value, and the comparison as `component op
        // value`.
        let mut found = Vec::new();
        for c in conjuncts(cond) {
            let ExprKind::Binary(op, a, b) = &c.kind else {
                return Ok(None);
            };
            let flipped = match op {
                BinOp::Lt => BinOp::Gt,
                BinOp::Le => BinOp::Ge,
                BinOp::Gt => BinOp::Lt,
                BinOp::Ge => BinOp::Le,
                _ => return Ok(None),
            };
            let uniform = |x: &Expr| is_uniform_index(st, x);
            match (global(a), global(b)) {
                (Some(d), None) if uniform(b) => found.push((d, *op, &**b)),
                (None, Some(d)) if uniform(a) => found.push((d, flipped, &**a)),
                _ => return Ok(None),
            }
        }
        if !found.iter().any(|(d, _, _)| d + 1 == rank) {
            return Ok(None);
        }
        let (mut batch, mut lows, mut highs) = (Vec::new(), Vec::new(), Vec::new());
        let (mut row_lows, mut row_highs) = (Vec::new(), Vec::new());
        for (d, op, value) in found {
            let v = self.expr(value)?;
            let v = quote!((#v as u64));
            if d + 2 < rank {
                // One thread wide: the component is the batch's origin.
                let o = numbered("o", d);
                let o = quote!((#o as u64));
                batch.push(match op {
                    BinOp::Lt => quote!((#o < #v)),
                    BinOp::Le => quote!((#o <= #v)),
                    BinOp::Gt => quote!((#o > #v)),
                    _ => quote!((#o >= #v)),
                });
                continue;
            }
            let (lows, highs) = match d + 1 == rank {
                true => (&mut lows, &mut highs),
                false => (&mut row_lows, &mut row_highs),
            };
            match op {
                BinOp::Lt => highs.push(v),
                BinOp::Le => highs.push(quote!((#v + 1))),
                BinOp::Gt => lows.push(quote!((#v + 1))),
                _ => lows.push(v),
            }
        }
        Ok(Some(Interior {
            batch,
            row_lows,
            row_highs,
            lows,
            highs,
            then,
        }))
    }
}

impl Interior<'_> {
    /// The work-item `loops` (whose last dimension runs `lanes.0..lanes.1`, and the one before
    /// it `rows.0..rows.1`, the names given) behind the bounds they name: the lanes of the last
    /// dimension and the rows of the one before it (a block of rows in a batch without
    /// frames) that pass, each bound in `u64` (no wrapping), as a lane (row) of this batch,
    /// clamped to the batch; run when the batch's other comparisons pass and neither range
    /// is empty.
    pub(super) fn narrowed_loops(
        &self,
        rank: usize,
        lanes: (&Ident, &Ident),
        rows: (&Ident, &Ident),
        loops: TokenStream,
    ) -> TokenStream {
        let range = |d: usize, lows: &[TokenStream], highs: &[TokenStream]| {
            let (o, dn) = (numbered("o", d), numbered("d", d));
            (
                quote!({
                    let mut lo: u64 = 0;
                    #( lo = lo.max((#lows).saturating_sub(#o as u64)); )*
                    lo.min(#dn as u64) as u32
                }),
                quote!({
                    let mut hi: u64 = #dn as u64;
                    #( hi = hi.min((#highs).saturating_sub(#o as u64)); )*
                    hi as u32
                }),
            )
        };
        let mut s = TokenStream::new();
        let mut tests = self.batch.clone();
        let (lw, hw) = lanes;
        let (lo, hi) = range(rank - 1, &self.lows, &self.highs);
        s.extend(quote!(let #lw: u32 = #lo; let #hw: u32 = #hi;));
        tests.push(quote!((#lw < #hw)));
        if rank >= 2 {
            let (lr, hr) = rows;
            let (lo, hi) = range(rank - 2, &self.row_lows, &self.row_highs);
            s.extend(quote!(let #lr: u32 = #lo; let #hr: u32 = #hi;));
            tests.push(quote!((#lr < #hr)));
        }
        let tested = conjunction(&tests);
        s.extend(quote!(if #tested { #loops }));
        s
    }
}
