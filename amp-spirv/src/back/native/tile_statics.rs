//! The `tile_static` arrays of a tile call that need no zero fill: every thread of the tile
//! writes its own element before any thread reads one (a reduction's or a transpose's
//! `sh[l] = a[t.global];` before its first barrier).
//!
//! A tile call's `tile_static` memory is zero when the call starts (C++ AMP leaves it
//! undefined), so that no stale value of another tile can be read. A kernel that fills the
//! array from its threads first overwrites every zero before anything reads it: the fill
//! only writes the array twice (a fifth of a tile reduction's time natively). Such an array
//! is then reached through a pointer only (`tile_frames.rs`), never as a slice of the
//! buffer's old contents.

use crate::ir::*;
use crate::types::{Len, Scalar, Ty};
use std::collections::{HashMap, HashSet};

/// The `tile_static` arrays of `k` (tiled as `tiled`) that every thread writes before any
/// thread reads them: the first statement of the kernel body that names the array is
/// `a[l0]..[ln] = v;` where each `l<d>` is the thread's `t.local[d]` (directly, through
/// casts between index types, or through immutable `let`s of the body before it), the
/// array's lengths are the tile's, its elements are numbers (any bit pattern a value), and
/// `v` names no such array. No statement before it, nor `v`, has a barrier or a `return`: the
/// write is in the tile's first work-item loop, which runs every thread.
pub(super) fn overwritten_first(k: &Kernel, tiled: &Tiled) -> HashSet<LocalId> {
    let mut open: HashSet<LocalId> = (0..k.locals.len())
        .filter(|&id| k.locals[id].storage == Storage::TileStatic)
        .collect();
    let mut found = HashSet::new();
    let mut lets: HashMap<LocalId, &Expr> = HashMap::new();
    for st in &k.body.stmts {
        if open.is_empty() {
            break;
        }
        if let Stmt::Expr(Expr {
            kind: ExprKind::Assign(Place::Local(id, idx), value),
            ..
        }) = st
        {
            if open.contains(id)
                && each_own_element(k, tiled, *id, idx, &lets)
                && !has_barrier_or_return(value)
                && !open.iter().any(|&s| names(value, s))
            {
                open.remove(id);
                found.insert(*id);
                continue;
            }
        }
        // What this statement names is read (or written some other way) first.
        open.retain(|&s| !stmt_names(st, s));
        let ends = match st {
            Stmt::Let(_, Some(e)) | Stmt::Expr(e) => has_barrier_or_return(e),
            Stmt::Let(_, None) => false,
        };
        if ends {
            break;
        }
        if let Stmt::Let(id, Some(init)) = st {
            if !k.locals[*id].mutable {
                lets.insert(*id, init);
            }
        }
    }
    found
}

fn has_barrier_or_return(e: &Expr) -> bool {
    crate::pass::uniform::has_barrier(e) || has_return(e)
}

/// Whether `a[idx[0]]..[idx[n]]` is, in each thread, the element of its local index, and the
/// array has one for each thread of the tile, of a number type.
fn each_own_element(
    k: &Kernel,
    tiled: &Tiled,
    id: LocalId,
    idx: &[Expr],
    lets: &HashMap<LocalId, &Expr>,
) -> bool {
    if idx.len() != tiled.dims.len() {
        return false;
    }
    let mut ty = &k.locals[id].ty;
    for (d, i) in idx.iter().enumerate() {
        let Ty::Array(elem, len) = ty else {
            return false;
        };
        let same_len = match (len, &tiled.dims[d]) {
            (Len::Lit(n), TileDim::Lit(m)) => n == m,
            (Len::Const(c, _), TileDim::Named(ident)) => {
                k.consts.get(*c as usize).is_some_and(|c| c.ident == *ident)
            }
            _ => false,
        };
        if !same_len || local_component(tiled, i, lets) != Some(d) {
            return false;
        }
        ty = elem;
    }
    matches!(ty, Ty::Scalar(s) if *s != Scalar::Bool)
}

/// The component `d` of the thread's `t.local` that `e` is.
fn local_component(tiled: &Tiled, e: &Expr, lets: &HashMap<LocalId, &Expr>) -> Option<usize> {
    let index = |t: &Ty| matches!(t, Ty::Scalar(Scalar::U32 | Scalar::Usize));
    match &e.kind {
        ExprKind::Element(base, d) => match (&base.kind, &d.kind) {
            (ExprKind::Local(l), ExprKind::Lit(Lit::Int(d))) if *l == tiled.local => {
                Some(*d as usize)
            }
            _ => None,
        },
        ExprKind::Cast(a) if index(&a.ty) && index(&e.ty) => local_component(tiled, a, lets),
        ExprKind::Local(l) => local_component(tiled, lets.get(l)?, lets),
        _ => None,
    }
}

/// Whether statement `st` names local `id` (its declaration without a value does not).
fn stmt_names(st: &Stmt, id: LocalId) -> bool {
    match st {
        Stmt::Let(l, Some(e)) => *l == id || names(e, id),
        Stmt::Let(_, None) => false,
        Stmt::Expr(e) => names(e, id),
    }
}

/// Whether `e` names local `id` (reads it, or assigns it or an element of it).
fn names(e: &Expr, id: LocalId) -> bool {
    struct Search {
        id: LocalId,
        hit: bool,
    }
    impl<'a> Visitor<'a> for Search {
        fn visit_expr(&mut self, e: &'a Expr) {
            if matches!(e.kind, ExprKind::Local(l) if l == self.id) {
                self.hit = true;
            }
            if !self.hit {
                walk_expr(self, e);
            }
        }
        fn visit_place(&mut self, p: &'a Place) {
            if matches!(p, Place::Local(l, _) if *l == self.id) {
                self.hit = true;
            }
            if !self.hit {
                walk_place(self, p);
            }
        }
    }
    let mut s = Search { id, hit: false };
    s.visit_expr(e);
    s.hit
}
