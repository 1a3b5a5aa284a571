//! Races and dependences through buffers: write conflicts and flow dependences, judged from the
//! accesses the walk collected. (Races on `tile_static` memory are found during the walk.)

use super::index::IndexKey;
use super::{Lint, Walker};
use crate::diag::Span;
use crate::ir::*;

/// A write or read of a buffer, for the dependence checks.
pub(super) struct Access {
    /// The buffer.
    pub(super) param: ParamId,
    /// The keys of its indices.
    pub(super) key: Vec<IndexKey>,
    /// The access in the source.
    pub(super) span: Span,
    /// Whether the index is proven to be a different element for every thread (judged for
    /// writes only).
    pub(super) unique: bool,
    /// For a write: `unique` only as long as no index computation wraps its 32 bits, a
    /// blocked index (`out[idx[0] * K + k]`, [`Walker::unique_per_thread_blocked`]), which is
    /// enough not to warn of a conflict, but not to access the view without atomics natively.
    /// For a read: its indices are blocked that way, each in the thread's own block.
    pub(super) blocked: bool,
    /// For reads: the buffer was written earlier and a barrier fencing global memory came
    /// since, so the threads of a tile see each other's writes (communication through global
    /// memory within a tile).
    pub(super) after_barrier: bool,
    /// An atomic operation: never a conflict or a dependence.
    pub(super) atomic: bool,
    /// The conditions it happens under (conjuncts of the enclosing `if`s, as keys).
    pub(super) guards: Vec<IndexKey>,
}

/// Whether `a` and `b` are the two own components `x` and `y` ordered by one of `guards`
/// (`x > y`, `y <= x`, ..).
fn ordered(guards: &[IndexKey], x: &IndexKey, y: &IndexKey) -> bool {
    guards.iter().any(|g| match g {
        IndexKey::Binary(BinOp::Gt | BinOp::Ge | BinOp::Lt | BinOp::Le, a, b) => {
            (**a == *x && **b == *y) || (**a == *y && **b == *x)
        }
        _ => false,
    })
}

/// Whether `guards` rule out `own == value` (`own > value`, `value < own`, `own != value`, ..).
fn excludes(guards: &[IndexKey], own: &IndexKey, value: &IndexKey) -> bool {
    guards.iter().any(|g| match g {
        IndexKey::Binary(BinOp::Gt | BinOp::Lt | BinOp::Ne, a, b) => {
            (**a == *own && **b == *value) || (**a == *value && **b == *own)
        }
        _ => false,
    })
}

impl Walker<'_> {
    /// Whether two threads can never meet at an element through writes at keys `a` and `b`
    /// (both unique per thread): every dimension of the domain is carried, unshifted-alike,
    /// by one component the two keys share, or the keys are each other's transpose under a
    /// guard that orders the two components (thread `(x, y)` with `y >= x` writes `[x, y]`
    /// and `[y, x]`; thread `(y, x)` fails the guard).
    fn apart(&self, a: &Access, b: &Access) -> bool {
        if a.key == b.key || self.same_blocks(a, b) {
            return true;
        }
        let rank = self.k.rank as usize;
        let mut carried = vec![false; rank];
        for (x, y) in a.key.iter().zip(&b.key) {
            if x == y {
                if let Some((d, _)) = self.own_key(x) {
                    carried[d as usize] = true;
                }
            }
        }
        if a.key.len() == b.key.len() && carried.iter().all(|&c| c) {
            return true;
        }
        if self.xor_partners(a, b) || self.xor_partners(b, a) {
            return true;
        }
        if let ([x0, x1], [y0, y1]) = (&a.key[..], &b.key[..]) {
            let own = |k: &IndexKey| self.own_key(k).is_some_and(|(_, t)| t.is_empty());
            if x0 == y1 && x1 == y0 && own(x0) && own(x1) {
                return ordered(&a.guards, x0, x1) && ordered(&b.guards, x0, x1);
            }
        }
        false
    }

    /// Whether `a` and `b`, each at the thread's own elements (`unique` writes, or a read
    /// whose indices were found blocked), stay in the same thread's elements: component by
    /// component the same key, or blocked components of the same block (`own * n + r` and
    /// `own * n + s`, each below `n` where it happens). Two threads' accesses then meet in no
    /// element: every dimension a component carries is the same thread's.
    fn same_blocks(&self, a: &Access, b: &Access) -> bool {
        let own = |x: &Access| x.unique || x.blocked;
        own(a)
            && own(b)
            && a.key.len() == b.key.len()
            && a.key.iter().zip(&b.key).all(|(x, y)| {
                x == y
                    || self
                        .block_of(x)
                        .is_some_and(|bx| self.block_of(y) == Some(bx))
            })
    }

    /// Whether `a` and `b` write the two elements of a butterfly pair: their keys agree but
    /// in one component, the thread's own `x` in `a` and `x ^ c` in `b` (`c` launch-wide),
    /// and both happen only under a guard that orders `x` and `x ^ c`. Threads `x` and
    /// `x ^ c` share the pair, and the guard lets exactly one of them write it (a bitonic
    /// sort's compare-exchange step).
    fn xor_partners(&self, a: &Access, b: &Access) -> bool {
        if a.key.len() != b.key.len() {
            return false;
        }
        let differ: Vec<(&IndexKey, &IndexKey)> =
            a.key.iter().zip(&b.key).filter(|(x, y)| x != y).collect();
        let [(x, y)] = differ[..] else { return false };
        self.own_xor(y).is_some_and(|(_, own)| own == x)
            && ordered(&a.guards, x, y)
            && ordered(&b.guards, x, y)
    }

    /// Whether a read at `r` never meets a write at `w` of another thread: `r` is one of the
    /// thread's own written elements (the same key, or the butterfly partner of the write
    /// under the same ordering guard), or a component of `r` is a launch-wide value no write can
    /// have there (the write's component is the own index shifted by that value plus a
    /// positive literal, or the unshifted own index under a guard that rules the value out).
    fn read_apart(&self, r: &Access, w: &Access) -> bool {
        if r.key == w.key || self.xor_partners(r, w) || self.xor_partners(w, r) {
            return true;
        }
        if r.blocked && self.same_blocks(r, w) {
            return true;
        }
        r.key.len() == w.key.len()
            && r.key.iter().zip(&w.key).any(|(rk, wk)| {
                if !super::index::key_invariant(rk) {
                    return false;
                }
                // Two different literals (`v[[i, 0]]` read, `v[[i, 1]]` written).
                if let (IndexKey::Int(a), IndexKey::Int(b)) = (rk, wk) {
                    return a != b;
                }
                let Some((_, terms)) = self.own_key(wk) else {
                    return false;
                };
                let beyond = terms.iter().all(|(plus, _)| *plus)
                    && terms.iter().any(|(_, t)| t == rk)
                    && terms
                        .iter()
                        .any(|(_, t)| matches!(t, IndexKey::Int(c) if *c > 0));
                let guarded = terms.is_empty() && excludes(&w.guards, wk, rk);
                beyond || guarded
            })
    }

    /// Whether no element of buffer `p` can be accessed by two threads at once with one of
    /// them writing, from the accesses of the last walk: no plain access beside an atomic one,
    /// every write unique per thread and apart from the others, every read apart from every
    /// write (a read after a barrier too: the barrier orders a tile, not the tiles).
    pub(super) fn private_elements(&self, p: ParamId) -> bool {
        let writes: Vec<&Access> = self.writes.iter().filter(|a| a.param == p).collect();
        if writes.is_empty() {
            return true;
        }
        let reads: Vec<&Access> = self.reads.iter().filter(|a| a.param == p).collect();
        let atomic = writes.iter().chain(&reads).filter(|a| a.atomic).count();
        if atomic == writes.len() + reads.len() {
            return true;
        }
        if atomic > 0 || writes.iter().any(|w| !w.unique || w.blocked) {
            return false;
        }
        writes
            .iter()
            .all(|a| writes.iter().all(|b| self.apart(a, b)))
            && reads
                .iter()
                // Not even after a barrier: the element read may be another tile's, which runs
                // on another OS thread natively.
                .all(|r| writes.iter().all(|w| self.read_apart(r, w)))
    }

    /// Whether `p` was written earlier in this walk and a barrier fencing global memory came
    /// since.
    pub(super) fn written_before(&self, p: ParamId) -> bool {
        self.writes.iter().any(|w| w.param == p) && !self.dirty_buffers.contains(&p)
    }

    /// Write conflicts and flow dependences, from the accesses of the last walk.
    pub(super) fn dependences(&mut self) {
        let mut warnings = Vec::new();
        for (n, w) in self.writes.iter().enumerate() {
            if w.atomic {
                continue;
            }
            let name = &self.k.params[w.param].name;
            if !w.unique {
                warnings.push((
                    Lint::WriteConflict,
                    w.span,
                    format!("`{name}` is written at an index that is not proven unique per thread: several threads may write the same element, and the last one wins (an output dependence)"),
                    "write each thread's result to its own element (index with the thread's index), or combine the values with an atomic or a tile reduction".to_string(),
                ));
                continue;
            }
            let clash = self.writes[..n]
                .iter()
                .any(|e| e.param == w.param && !e.atomic && e.unique && !self.apart(e, w));
            if clash {
                warnings.push((
                    Lint::WriteConflict,
                    w.span,
                    format!("`{name}` is written here at another index than before in the same thread: one thread's element here can be another thread's element there, and the last one wins (an output dependence)"),
                    "write one element per thread per view, or guard the two writes so that the threads' elements cannot meet (`if j >= i` for a transpose pair)".to_string(),
                ));
            }
        }
        for r in &self.reads {
            if r.after_barrier || r.atomic {
                continue;
            }
            let own: Vec<&Access> = self
                .writes
                .iter()
                .filter(|w| w.param == r.param && w.unique && !w.atomic)
                .collect();
            if own.is_empty() {
                continue;
            }
            if !own.iter().all(|w| self.read_apart(r, w)) {
                let name = &self.k.params[r.param].name;
                warnings.push((
                    Lint::FlowDependence,
                    r.span,
                    format!("`{name}` is read here at another thread's element while every thread writes its own: the value read depends on the order the threads run (a flow or anti dependence)"),
                    "read from one view and write to another (double buffering), or split the work into two kernels".to_string(),
                ));
            }
        }
        self.writes.clear();
        self.reads.clear();
        for (lint, span, message, help) in warnings {
            self.warn(lint, span, message, help);
        }
    }
}
