//! Bounds checks decided once for many threads: *guards*, and their comparisons.
//!
//! A check `i < extent` of a tile's (or a batch's) code is often decided by one comparison for
//! every thread: `i` is the same in every thread (a tile-level loop counter, a tile-uniform
//! local, a scalar parameter), or such a value plus the thread's `t.local[d]` or
//! `t.global[d]`, whose largest value in the tile is known. Comparing the largest value the
//! index can take with the extent then proves the check for all of them. Two places use this:
//!
//! - **The tile function** ([`Emitter::entry_guards`](super::Emitter)): where the largest
//!   value is known when the tile starts (it is built from the tile's position, parameters,
//!   view extents, and the ranges of tile-level `for` loops whose bounds are such values),
//!   the tile function is generated twice: without those checks, and as before. A wrapper
//!   compares the largest values and calls one of them. A batched matrix product's
//!   `b[[k, col]]` is checked this way once per batch instead of once per multiply-add, and
//!   the unchecked twin keeps its accumulators in vector registers: one loop with a checked
//!   twin beside it in the same function would keep them in memory.
//! - **A work-item loop** (`TileState::guards`): the rest, whose largest value is known once
//!   the loop starts (a tile-uniform local such as a tiled product's `i`), are compared before
//!   that loop, which is generated twice the same way.
//!
//! When a guard fails the checked code runs as before, so results and out-of-bounds reports
//! never change. A guard is conservative: it asks for the largest index any thread of the tile
//! could use there, even when some threads do not reach the access (a failing guard only
//! means the checked code runs). Sums are taken in `u64`: when the sum of the largest values
//! is below the extent, no 32-bit addition in the kernel wrapped, so every thread's index is
//! at most that sum. This is loop versioning, done where the facts are known (the kernel's
//! uniformity), not left to LLVM's alias analysis.

use super::{index_lit, numbered, Emitter, Res};
use crate::ir::*;
use crate::types::{Scalar, Ty};
use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};
use std::collections::{HashMap, HashSet};

/// A part of an index component whose largest value in a tile the guard names directly.
#[derive(Clone, Debug)]
pub(super) enum Part {
    /// The thread's `t.local[d]`: at most `dims[d] - 1`.
    Local(usize),
    /// The thread's `t.global[d]`: at most `origin[d] + dims[d] - 1`.
    Global(usize),
    /// `t.tile_origin[d]`.
    Origin(usize),
    /// `t.tile[d]`.
    Tile(usize),
    /// `t.tile_extent[d]`.
    Dims(usize),
    /// The variable of a tile-level `for` loop: at most its range's end (less one when the
    /// range is exclusive), an expression the tile's start knows.
    LoopMax(Box<Expr>, bool),
    /// The step of a jammed loop's iteration within its work-item loop: 0 up to this value
    /// (its variable is the loop's counter plus the step).
    Step(u32),
}

/// An index component as the sum of its [`Part`]s and `terms`, less the sum of `neg_parts`
/// and `neg_terms`: each term the same in every thread and free of side effects (the
/// additions and subtractions wrap at 32 bits in the kernel). With subtractions, the guard
/// also asks that the smallest value of the first sum reach the largest of the second: the
/// index is then the same number in 32 bits as in whole numbers, whatever wrapped on the way
/// (`m - t.local[0]`, where a narrowed work-item loop runs lanes up to `m`).
pub(super) struct Bound {
    pub parts: Vec<Part>,
    pub terms: Vec<Expr>,
    pub neg_parts: Vec<Part>,
    pub neg_terms: Vec<Expr>,
}

impl Bound {
    /// The part the index component is, when it is that part alone (`t.local[0]`, a
    /// thread's `idx[d]`).
    pub(super) fn single_part(&self) -> Option<&Part> {
        match &self.parts[..] {
            [part]
                if self.terms.is_empty()
                    && self.neg_parts.is_empty()
                    && self.neg_terms.is_empty() =>
            {
                Some(part)
            }
            _ => None,
        }
    }

    /// `self + other`, or `self - other` where `minus`.
    fn plus(mut self, other: Bound, minus: bool) -> Bound {
        let (parts, terms, neg_parts, neg_terms) = match minus {
            false => (other.parts, other.terms, other.neg_parts, other.neg_terms),
            true => (other.neg_parts, other.neg_terms, other.parts, other.terms),
        };
        self.parts.extend(parts);
        self.terms.extend(terms);
        self.neg_parts.extend(neg_parts);
        self.neg_terms.extend(neg_terms);
        self
    }
}

/// What [`bound`] needs to know about a tiled kernel's locals.
pub(super) struct LaneFacts {
    /// `t.local`, `t.global`, `t.tile_origin`, `t.tile`, `t.tile_extent`.
    pub local: LocalId,
    pub global: LocalId,
    pub origin: LocalId,
    pub tile: LocalId,
    pub dims: LocalId,
    /// Locals that hold the same value in every thread of a tile for a whole work-item loop:
    /// tile-uniform locals, tile-level loop variables.
    pub uniform: HashSet<LocalId>,
    /// Immutable locals defined from the thread's index, with their definitions.
    pub remat: HashMap<LocalId, Expr>,
    /// The variables of tile-level ascending range loops: their range's end, and whether it
    /// is inclusive.
    pub loop_ends: HashMap<LocalId, (Expr, bool)>,
    /// The locals a work-item loop's own statements may define for its guards: immutable
    /// index scalars whose one site is a `let` with a value
    /// ([`lets_once`](super::tile_locals::lets_once)).
    pub lets_once: HashSet<LocalId>,
    /// While a work-item loop is emitted: those of its `let`s whose values are fixed for the
    /// whole loop (made of the thread's index, tile-uniform and rematerialized locals, and
    /// earlier such `let`s), with their definitions. A guard before the loop evaluates them as
    /// each thread will (`let y = m - tx + 1;` under `if tx <= m`); a `let` of another loop
    /// is not here, since the tile-uniform values it read may have changed since.
    pub region: HashMap<LocalId, Expr>,
    /// While a jammed loop's work-item loop is emitted (`tile_loops.rs`): its variable, the
    /// counter it starts from (tile-uniform), and the last step it adds to it. The variable
    /// takes several values in that loop, each `counter + j` for `j` up to the step, and the
    /// jam runs only while the counter plus its steps stay below the loop's end (no wrap).
    pub jammed: HashMap<LocalId, (Expr, u32)>,
}

/// Where a guard is evaluated.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum At {
    /// At the start of the tile function: only values fixed for the whole tile.
    Entry,
    /// Before a work-item loop: tile-uniform locals and loop variables too.
    WorkItemLoop,
}

/// Whether `t` is an index scalar (`u32` or `usize`): what guards compute in.
pub(super) fn is_index_scalar(t: &Ty) -> bool {
    matches!(t, Ty::Scalar(Scalar::U32 | Scalar::Usize))
}

/// `e` as a [`Bound`] a guard at `at` can evaluate, or `None` (its check stays where it is).
pub(super) fn bound(e: &Expr, facts: &LaneFacts, at: At) -> Option<Bound> {
    if !is_index_scalar(&e.ty) {
        return None;
    }
    let part = |p: Part| {
        Some(Bound {
            parts: vec![p],
            terms: Vec::new(),
            neg_parts: Vec::new(),
            neg_terms: Vec::new(),
        })
    };
    let term = |x: &Expr| {
        let ok = |l: LocalId| at == At::WorkItemLoop && facts.uniform.contains(&l);
        crate::pass::uniform::uniform_expr(x, &ok).then(|| Bound {
            parts: Vec::new(),
            terms: vec![x.clone()],
            neg_parts: Vec::new(),
            neg_terms: Vec::new(),
        })
    };
    match &e.kind {
        ExprKind::Binary(BinOp::Add, a, b) => {
            Some(bound(a, facts, at)?.plus(bound(b, facts, at)?, false))
        }
        // A difference of values the same in every thread stays one term.
        ExprKind::Binary(BinOp::Sub, a, b) => {
            term(e).or_else(|| Some(bound(a, facts, at)?.plus(bound(b, facts, at)?, true)))
        }
        ExprKind::Element(base, index) => {
            let (ExprKind::Local(id), ExprKind::Lit(Lit::Int(d))) = (&base.kind, &index.kind)
            else {
                return term(e);
            };
            let d = *d as usize;
            match *id {
                id if id == facts.local => part(Part::Local(d)),
                id if id == facts.global => part(Part::Global(d)),
                id if id == facts.origin => part(Part::Origin(d)),
                id if id == facts.tile => part(Part::Tile(d)),
                id if id == facts.dims => part(Part::Dims(d)),
                _ => term(e),
            }
        }
        ExprKind::Local(id) if facts.remat.contains_key(id) => bound(&facts.remat[id], facts, at),
        ExprKind::Local(id) if at == At::WorkItemLoop && facts.region.contains_key(id) => {
            bound(&facts.region[id], facts, at)
        }
        ExprKind::Local(id) if at == At::WorkItemLoop && facts.jammed.contains_key(id) => {
            let (counter, last) = &facts.jammed[id];
            Some(term(counter)?.plus(part(Part::Step(*last))?, false))
        }
        ExprKind::Local(id) if at == At::Entry && facts.loop_ends.contains_key(id) => {
            let (end, inclusive) = &facts.loop_ends[id];
            let fixed = crate::pass::uniform::uniform_expr(end, &|_| false);
            (fixed && is_index_scalar(&end.ty))
                .then(|| part(Part::LoopMax(Box::new(end.clone()), *inclusive)))?
        }
        ExprKind::Cast(a) if is_index_scalar(&a.ty) => bound(a, facts, at),
        _ => term(e),
    }
}

/// What a guard knows of the lanes a work-item loop runs: the largest `t.local[0]` of a
/// narrowed loop, and for a batch's loop narrowed to lanes `lo..hi` (names, `lo < hi`) of its
/// last dimension, that dimension and the names.
pub(super) struct Lanes {
    lane0_max: Option<TokenStream>,
    last: Option<(usize, Ident, Ident)>,
}

impl Lanes {
    /// The smallest and the largest value of `part` (`u64` expressions) when it is the
    /// narrowed last dimension's lane or global component.
    fn narrowed(&self, part: &Part) -> Option<(TokenStream, TokenStream)> {
        let (dim, lo, hi) = self.last.as_ref()?;
        let base = match part {
            Part::Local(l) if l == dim => quote!(0u64),
            Part::Global(l) if l == dim => {
                let o = numbered("o", *l);
                quote!((#o as u64))
            }
            _ => return None,
        };
        Some((
            quote!((#base + #lo as u64)),
            quote!((#base + (#hi - 1) as u64)),
        ))
    }
}

impl Emitter<'_> {
    /// Whether a guard (`guard.rs`) takes over the comparison `i < limit` (`limit` a `u64`
    /// expression the guard can evaluate): see [`guard_check`](Self::guard_check).
    pub(super) fn guard_below(&mut self, i: &Expr, limit: &TokenStream) -> Res<bool> {
        let at = self.at;
        let Some(st) = self.tile.as_ref() else {
            return Ok(false);
        };
        let at_entry = self.entry_guards.is_some();
        let found = match at_entry.then(|| bound(i, &st.facts, At::Entry)).flatten() {
            Some(b) => Some((b, At::Entry)),
            None if st.guards.is_some() => {
                bound(i, &st.facts, At::WorkItemLoop).map(|b| (b, At::WorkItemLoop))
            }
            None => None,
        };
        let Some((b, place)) = found else {
            return Ok(false);
        };
        // Before a narrowed work-item loop: what the guard knows of the lanes it runs.
        let last = self.k.rank as usize - 1;
        let lanes = match (place, self.tile.as_ref()) {
            (At::WorkItemLoop, Some(st)) => Lanes {
                lane0_max: st.lane_limit.clone(),
                last: st.last_lanes.clone().map(|(lo, hi)| (last, lo, hi)),
            },
            _ => Lanes {
                lane0_max: None,
                last: None,
            },
        };
        let (max, min) = self.sums(&b.parts, &b.terms, &lanes)?;
        let (neg_max, neg_min) = self.sums(&b.neg_parts, &b.neg_terms, &lanes)?;
        let guard = match b.neg_parts.is_empty() && b.neg_terms.is_empty() {
            true => quote_spanned!(at=> (#(#max)+* < #limit)),
            // The smallest value is at least 0 (so no wrap changed the index), the largest
            // below the limit; `&&` keeps the subtraction from running below 0.
            false => quote_spanned!(at=> (
                (#(#min)+*) >= (#(#neg_max)+*) && (#(#max)+*) - (#(#neg_min)+*) < #limit
            )),
        };
        let list = match place {
            At::Entry => self.entry_guards.as_mut(),
            At::WorkItemLoop => self.tile.as_mut().and_then(|st| st.guards.as_mut()),
        };
        if let Some(list) = list {
            // The same comparison twice is made once.
            let text = guard.to_string();
            if !list.iter().any(|g| g.to_string() == text) {
                list.push(guard);
            }
        }
        Ok(true)
    }

    /// The terms (`u64` expressions, from `0u64`) of the largest and of the smallest value of
    /// `parts` plus `terms` in the tile (`lanes` as for [`part_max`](Self::part_max)).
    fn sums(
        &mut self,
        parts: &[Part],
        terms: &[Expr],
        lanes: &Lanes,
    ) -> Res<(Vec<TokenStream>, Vec<TokenStream>)> {
        let at = self.at;
        let (mut max, mut min) = (
            vec![quote_spanned!(at=> 0u64)],
            vec![quote_spanned!(at=> 0u64)],
        );
        for part in parts {
            max.push(self.part_max(part, lanes)?);
            min.push(self.part_min(part, lanes));
        }
        for term in terms {
            let v = self.as_u32(term)?;
            max.push(quote_spanned!(at=> ((#v) as u64)));
            min.push(quote_spanned!(at=> ((#v) as u64)));
        }
        Ok((max, min))
    }

    /// The largest value of a guard's part in the tile (`lanes`: what the guard knows of a
    /// narrowed work-item loop's lanes), a `u64` expression.
    fn part_max(&mut self, part: &Part, lanes: &Lanes) -> Res<TokenStream> {
        let at = self.at;
        if let Some((_, max)) = lanes.narrowed(part) {
            return Ok(max);
        }
        Ok(match (part, &lanes.lane0_max) {
            (Part::Local(0), Some(max)) => max.clone(),
            (Part::Local(l), _) => {
                let d = numbered("d", l);
                quote_spanned!(at=> ((#d - 1) as u64))
            }
            (Part::Global(l), _) => {
                let (o, d) = (numbered("o", l), numbered("d", l));
                quote_spanned!(at=> (#o as u64 + (#d - 1) as u64))
            }
            (Part::Origin(l), _) => {
                let o = numbered("o", l);
                quote_spanned!(at=> (#o as u64))
            }
            (Part::Tile(l), _) => {
                let l = index_lit(*l);
                quote_spanned!(at=> (tile[#l] as u64))
            }
            (Part::Dims(l), _) => {
                let d = numbered("d", l);
                quote_spanned!(at=> (#d as u64))
            }
            (Part::Step(last), _) => quote_spanned!(at=> (#last as u64)),
            (Part::LoopMax(end, inclusive), _) => {
                let end = self.as_u32(end)?;
                match inclusive {
                    true => quote_spanned!(at=> ((#end) as u64)),
                    false => quote_spanned!(at=> ((#end) as u64).saturating_sub(1)),
                }
            }
        })
    }

    /// The smallest value of a guard's part in the tile, as far as the guard knows it (a
    /// lane's index and a loop's variable from 0, a narrowed batch's last lanes from their
    /// first), a `u64` expression.
    fn part_min(&self, part: &Part, lanes: &Lanes) -> TokenStream {
        let at = self.at;
        if let Some((min, _)) = lanes.narrowed(part) {
            return min;
        }
        match part {
            Part::Local(_) | Part::LoopMax(..) | Part::Step(_) => quote_spanned!(at=> 0u64),
            Part::Global(l) | Part::Origin(l) => {
                let o = numbered("o", l);
                quote_spanned!(at=> (#o as u64))
            }
            Part::Tile(l) => {
                let l = index_lit(*l);
                quote_spanned!(at=> (tile[#l] as u64))
            }
            Part::Dims(l) => {
                let d = numbered("d", l);
                quote_spanned!(at=> (#d as u64))
            }
        }
    }
}
