//! Index expressions: their keys (to compare two indices), whether they may differ between
//! threads, and whether a write's indices give every thread its own element.

use super::Walker;
use crate::ir::*;
use crate::types::Ty;
use proc_macro2::LineColumn;

/// The structure of an index expression, to compare indices: two expressions with equal keys
/// have equal values in a thread. An immutable local stands for its initializer's key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum IndexKey {
    /// An integer literal.
    Int(u128),
    /// A `bool` literal.
    Bool(bool),
    /// A float literal, by the bits of its `f64` and `f32` values.
    Float(u64, u32),
    /// A local (not aliased to a known value).
    Local(LocalId),
    /// A by-value parameter.
    Param(ParamId),
    /// An outer constant.
    Const(usize),
    /// `base[index]`.
    Element(Box<IndexKey>, Box<IndexKey>),
    /// A binary operator.
    Binary(BinOp, Box<IndexKey>, Box<IndexKey>),
    /// A unary operator.
    Unary(UnOp, Box<IndexKey>),
    /// A cast to the type.
    Cast(Box<IndexKey>, Ty),
    /// A buffer's extent.
    Extent(ParamId),
    /// Anything else, known only by where it starts in the source.
    Opaque(LineColumn),
    /// The slot of an atomic on `tile_static` memory: equal to no index.
    Atomic,
}

impl IndexKey {
    /// `local[d]`.
    pub(super) fn component(local: LocalId, d: u32) -> IndexKey {
        IndexKey::Element(
            Box::new(IndexKey::Local(local)),
            Box::new(IndexKey::Int(u128::from(d))),
        )
    }
}

impl Walker<'_> {
    /// The key of an index expression, to compare indices.
    pub(super) fn key(&self, e: &Expr) -> IndexKey {
        let key = |e| Box::new(self.key(e));
        match &e.kind {
            ExprKind::Lit(Lit::Int(v)) => IndexKey::Int(*v),
            ExprKind::Lit(Lit::Bool(v)) => IndexKey::Bool(*v),
            ExprKind::Lit(Lit::Float(v, v32)) => IndexKey::Float(v.to_bits(), v32.to_bits()),
            ExprKind::Local(id) => self.alias.get(id).cloned().unwrap_or(IndexKey::Local(*id)),
            ExprKind::ScalarParam(p) => IndexKey::Param(*p),
            ExprKind::OuterConst(c) => IndexKey::Const(*c),
            ExprKind::Element(b, i) => IndexKey::Element(key(b), key(i)),
            ExprKind::Binary(op, a, b) => IndexKey::Binary(*op, key(a), key(b)),
            ExprKind::Unary(op, a) => IndexKey::Unary(*op, key(a)),
            ExprKind::Cast(a) => IndexKey::Cast(key(a), e.ty.clone()),
            ExprKind::BufferExtent(p) => IndexKey::Extent(*p),
            _ => IndexKey::Opaque(e.span.start.start()),
        }
    }

    pub(super) fn keys(&self, list: &[Expr]) -> Vec<IndexKey> {
        list.iter().map(|e| self.key(e)).collect()
    }

    /// The dimension `d` when `e` is the thread's own index component `d`, possibly shifted by
    /// a uniform amount (`idx[0]`, `t.global[1] + 1`, `row` bound to `idx[0]`).
    fn own_component(&mut self, e: &Expr) -> Option<u32> {
        let own = match &self.k.tiled {
            Some(t) => t.global,
            None => self.k.index_local,
        };
        match &e.kind {
            ExprKind::Element(b, i) => match (&b.kind, &i.kind) {
                // `idx[k]`, or `g[k]` after `let g = t.global;`.
                (ExprKind::Local(id), ExprKind::Lit(Lit::Int(k)))
                    if *id == own || self.alias.get(id) == Some(&IndexKey::Local(own)) =>
                {
                    Some(*k as u32)
                }
                _ => None,
            },
            ExprKind::Local(id) => {
                let key = self.alias.get(id)?;
                (0..self.k.rank).find(|&d| *key == IndexKey::component(own, d))
            }
            // The shift must be one value for the whole launch, not only the same for every
            // thread at one time: `idx[0] + k` with `k` a loop's variable is thread 0's
            // element `1` at `k == 1` and thread 1's at `k == 0`.
            ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => {
                if let Some(d) = self.own_component(a) {
                    return self.launch_invariant(b).then_some(d);
                }
                if let (ExprKind::Binary(BinOp::Add, ..), Some(d)) =
                    (&e.kind, self.own_component(b))
                {
                    return self.launch_invariant(a).then_some(d);
                }
                None
            }
            ExprKind::Cast(a) => self.own_component(a),
            _ => None,
        }
    }

    /// Whether an expression has one value for the whole launch: literals, constants, scalar
    /// parameters, extents, and immutable locals bound to them, combined by operators.
    fn launch_invariant(&self, e: &Expr) -> bool {
        fn key_invariant(k: &IndexKey) -> bool {
            match k {
                IndexKey::Int(_)
                | IndexKey::Bool(_)
                | IndexKey::Float(..)
                | IndexKey::Param(_)
                | IndexKey::Const(_)
                | IndexKey::Extent(_) => true,
                IndexKey::Binary(_, a, b) => key_invariant(a) && key_invariant(b),
                IndexKey::Unary(_, a) | IndexKey::Cast(a, _) => key_invariant(a),
                IndexKey::Local(_)
                | IndexKey::Element(..)
                | IndexKey::Opaque(_)
                | IndexKey::Atomic => false,
            }
        }
        !any_expr(e, |e| match &e.kind {
            ExprKind::Local(id) => match self.alias.get(id) {
                Some(key) if key_invariant(key) => Probe::Prune,
                _ => Probe::Hit,
            },
            ExprKind::Lit(_)
            | ExprKind::OuterConst(_)
            | ExprKind::ScalarParam(_)
            | ExprKind::BufferExtent(_)
            | ExprKind::Unary(..)
            | ExprKind::Cast(_)
            | ExprKind::Binary(..) => Probe::Descend,
            _ => Probe::Hit,
        })
    }

    /// Whether an expression (without side effects) may differ between threads, from what the
    /// walk knows so far; used by the index checks (the walk itself tracks memory, too). Any
    /// expression other than a pure computation on locals and uniform values counts as varying.
    fn may_vary(&self, e: &Expr) -> bool {
        any_expr(e, |e| match &e.kind {
            ExprKind::Local(id) if self.varying[*id] => Probe::Hit,
            ExprKind::Lit(_)
            | ExprKind::OuterConst(_)
            | ExprKind::ScalarParam(_)
            | ExprKind::BufferExtent(_)
            | ExprKind::Local(_)
            | ExprKind::Unary(..)
            | ExprKind::Cast(_)
            | ExprKind::Bitcast(_)
            | ExprKind::Binary(..)
            | ExprKind::Logic(..)
            | ExprKind::Element(..)
            | ExprKind::Builtin(..)
            | ExprKind::Math(..) => Probe::Descend,
            _ => Probe::Hit,
        })
    }

    /// Whether the write indices are one own index component each, every dimension once: a
    /// different element for every thread (transposes and uniform shifts included).
    pub(super) fn unique_per_thread(&mut self, idx: &[Expr]) -> bool {
        let mut seen = vec![false; self.k.rank as usize];
        for e in idx {
            match self.own_component(e) {
                Some(d) if !seen[d as usize] => seen[d as usize] = true,
                // A component the same for every thread keeps the map injective.
                None if !self.may_vary(e) => {}
                _ => return false,
            }
        }
        seen.iter().all(|&s| s)
    }

    /// Whether the write is `v[t.tile]` by one thread of the tile (all of `t.local` pinned).
    pub(super) fn unique_per_tile(&self, idx: &[Expr]) -> bool {
        let Some(t) = &self.k.tiled else { return false };
        let rank = self.k.rank;
        idx.len() as u32 == rank
            && idx
                .iter()
                .enumerate()
                .all(|(d, e)| self.key(e) == IndexKey::component(t.tile, d as u32))
            && (0..rank).all(|d| self.pins.contains(&d))
    }

    /// `t.local[d] == c` conditions (joined by `&&`) pin components of `t.local`.
    pub(super) fn pins_of(&self, cond: &Expr, out: &mut Vec<u32>) {
        let Some(t) = &self.k.tiled else { return };
        match &cond.kind {
            ExprKind::Logic(LogicOp::And, a, b) => {
                self.pins_of(a, out);
                self.pins_of(b, out);
            }
            ExprKind::Binary(BinOp::Eq, a, b) => {
                for (x, y) in [(a, b), (b, a)] {
                    if self.may_vary(y) {
                        continue;
                    }
                    // `t.local[k]`, or a local bound to it.
                    let key = self.key(x);
                    if let Some(k) =
                        (0..self.k.rank).find(|&k| key == IndexKey::component(t.local, k))
                    {
                        out.push(k);
                    }
                }
            }
            _ => {}
        }
    }
}
