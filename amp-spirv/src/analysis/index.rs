//! Index expressions: their keys (to compare two indices), whether they may differ between
//! threads, and whether a write's indices give every thread its own element.

use super::Walker;
use crate::ir::*;
use crate::types::Ty;
use proc_macro2::LineColumn;

/// Whether a key has one value for the whole launch: literals, constants, scalar parameters and
/// extents, combined by operators.
pub(super) fn key_invariant(k: &IndexKey) -> bool {
    match k {
        IndexKey::Int(_)
        | IndexKey::Bool(_)
        | IndexKey::Float(..)
        | IndexKey::Param(_)
        | IndexKey::Const(_)
        | IndexKey::Extent(_) => true,
        IndexKey::Binary(_, a, b) => key_invariant(a) && key_invariant(b),
        IndexKey::Unary(_, a) | IndexKey::Cast(a, _) => key_invariant(a),
        // `v.extent()[d]`.
        IndexKey::Element(a, d) => matches!(**a, IndexKey::Extent(_)) && key_invariant(d),
        IndexKey::Local(_) | IndexKey::Opaque(_) | IndexKey::Atomic => false,
    }
}

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

/// A blocked index component, `own * n + rest`.
struct BlockParts<'k> {
    /// The dimension of the thread's own component.
    dim: u32,
    /// The thread's own component (maybe shifted).
    own: &'k IndexKey,
    /// `n`, launch-wide.
    n: &'k IndexKey,
    /// What is added to `own * n`, if anything.
    rest: Option<&'k IndexKey>,
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
        list.iter().map(|e| self.component_key(e)).collect()
    }

    /// The key of index component `e`, with the enclosing conditions' equalities applied: a
    /// component that is a launch-wide value an `if own == value` compared with the thread's
    /// own component is that own component (the two are equal wherever the access runs).
    fn component_key(&self, e: &Expr) -> IndexKey {
        let key = self.key(e);
        match self.own_pins.iter().rev().find(|(_, value)| *value == key) {
            Some((own, _)) => own.clone(),
            None => key,
        }
    }

    /// The dimension `d` when `e` is the thread's own index component `d`, possibly shifted by
    /// a value fixed for the whole launch (`idx[0]`, `t.global[1] + 1`, `row` bound to
    /// `idx[0] + k`, `k` a scalar parameter). Judged on the key, so immutable locals are
    /// transparent.
    fn own_component(&self, e: &Expr) -> Option<u32> {
        let key = self.component_key(e);
        self.own_key(&key)
            .map(|(d, _)| d)
            .or_else(|| self.own_xor(&key).map(|(d, _)| d))
    }

    /// A key that is an own component (unshifted) xor-ed with a launch-wide value
    /// (`i ^ j`, the partner in a butterfly or bitonic step): a bijection of the component, so
    /// still the thread's own. Returns the dimension and the own component's key.
    pub(super) fn own_xor<'k>(&self, key: &'k IndexKey) -> Option<(u32, &'k IndexKey)> {
        let IndexKey::Binary(BinOp::BitXor, a, b) = key else {
            return None;
        };
        let own = |x: &'k IndexKey, c: &IndexKey| {
            let (d, terms) = self.own_key(x)?;
            (terms.is_empty() && key_invariant(c)).then_some((d, x))
        };
        own(a, b).or_else(|| own(b, a))
    }

    /// [`own_component`](Self::own_component) of a key, with the shift's terms (each added, or
    /// subtracted when `false`).
    pub(super) fn own_key(&self, key: &IndexKey) -> Option<(u32, Vec<(bool, IndexKey)>)> {
        let own = match &self.k.tiled {
            Some(t) => t.global,
            None => self.k.index_local,
        };
        match key {
            IndexKey::Element(b, i) => match (&**b, &**i) {
                (IndexKey::Local(id), IndexKey::Int(d)) if *id == own => {
                    Some((*d as u32, Vec::new()))
                }
                _ => None,
            },
            IndexKey::Cast(a, _) => self.own_key(a),
            IndexKey::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
                if let Some((d, mut terms)) = self.own_key(a) {
                    if !key_invariant(b) {
                        return None;
                    }
                    terms.push((*op == BinOp::Add, (**b).clone()));
                    return Some((d, terms));
                }
                if *op == BinOp::Add {
                    if let Some((d, mut terms)) = self.own_key(b) {
                        if key_invariant(a) {
                            terms.push((true, (**a).clone()));
                            return Some((d, terms));
                        }
                    }
                }
                None
            }
            _ => None,
        }
    }

    /// Pushes the conjuncts of `cond` (split at `&&`) onto the guards.
    pub(super) fn conjuncts(&mut self, cond: &Expr) {
        for c in conjuncts(cond) {
            let key = self.key(c);
            self.guards.push(key);
        }
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

    /// Whether the write indices give every thread its own element: each component an own
    /// index component (shifted by a launch-wide value) or a launch-wide value, every dimension
    /// of the domain carried by at least one (transposes, shifts and diagonals included).
    pub(super) fn unique_per_thread(&self, idx: &[Expr]) -> bool {
        self.unique_components(idx, false)
    }

    /// [`unique_per_thread`](Self::unique_per_thread), with blocked components counting as
    /// the thread's own where `blocked`.
    fn unique_components(&self, idx: &[Expr], blocked: bool) -> bool {
        let rank = self.k.rank as usize;
        // Which of each dimension's tile and lane coordinates a component tells apart (an own
        // component both; outside tiled kernels the own index is both).
        let (mut tiles, mut lanes) = (vec![false; rank], vec![false; rank]);
        for e in idx {
            let key = self.component_key(e);
            let own = self
                .own_component(e)
                .or_else(|| blocked.then(|| self.blocked_component(&key)).flatten());
            if let Some(d) = own {
                // A dimension carried by several components still tells threads apart.
                tiles[d as usize] = true;
                lanes[d as usize] = true;
                continue;
            }
            if let Some(radix) = blocked.then(|| self.radix_component(&key)).flatten() {
                for (d, lane) in radix {
                    match lane {
                        true => lanes[d as usize] = true,
                        false => tiles[d as usize] = true,
                    }
                }
                continue;
            }
            // Any other component, the same for every thread or not, keeps the map injective
            // where the others already tell the threads apart.
        }
        tiles.iter().chain(&lanes).all(|&s| s)
    }

    /// [`unique_per_thread`](Self::unique_per_thread) with blocked components as well: an own
    /// component times a launch-wide `n`, plus a value below `n` (`out[idx[0] * K + k]` inside
    /// `for k in 0..K`, or a literal below a literal `n`), thread `i` owning elements
    /// `i * n ..< (i + 1) * n`; or a mixed-radix component (`radix.rs`). In 32-bit indices
    /// `i * n` may wrap onto another thread's elements, so this holds only as long as no index
    /// wraps (see `Access::blocked`).
    pub(super) fn unique_per_thread_blocked(&self, idx: &[Expr]) -> bool {
        self.unique_components(idx, true)
    }

    /// Whether a write at `idx` is at the thread's own element (`Access::unique`), and whether
    /// only as a blocked index (`Access::blocked`).
    pub(super) fn write_ownership(&self, idx: &[Expr]) -> (bool, bool) {
        let unique = self.unique_per_thread(idx) || self.unique_per_tile(idx);
        let blocked = !unique && self.unique_per_thread_blocked(idx);
        (unique || blocked, blocked)
    }

    /// The dimension `d` when `key` is `own * n + r` (in either order of the sum and of the
    /// product) with `own` the thread's own component `d` (maybe shifted), `n` launch-wide and
    /// `r` below `n`: a literal below a literal `n`, or the variable of an enclosing
    /// `for r in 0..n`; or `own * n` alone with `n` a literal of at least 1.
    fn blocked_component(&self, key: &IndexKey) -> Option<u32> {
        let block = self.block_parts(key)?;
        let below = match (block.rest, block.n) {
            // `own * n` alone: element 0 of the block, which is one where `n` is at least 1.
            (None, IndexKey::Int(n)) => *n > 0,
            (Some(IndexKey::Int(r)), IndexKey::Int(n)) => r < n,
            (Some(IndexKey::Local(v)), n) => {
                self.runs.iter().any(|(run, end)| run == v && end == n)
            }
            _ => false,
        };
        below.then_some(block.dim)
    }

    /// `own * n + r`, or `own * n` alone, taken apart (`n` launch-wide; nothing said of `r`).
    fn block_parts<'k>(&self, key: &'k IndexKey) -> Option<BlockParts<'k>> {
        let parts = |scaled: &'k IndexKey, rest: Option<&'k IndexKey>| {
            let IndexKey::Binary(BinOp::Mul, x, y) = scaled else {
                return None;
            };
            let (dim, own, n) = match (self.own_key(x), self.own_key(y)) {
                (Some((d, _)), None) => (d, &**x, &**y),
                (None, Some((d, _))) => (d, &**y, &**x),
                _ => return None,
            };
            key_invariant(n).then_some(BlockParts { dim, own, n, rest })
        };
        match key {
            IndexKey::Binary(BinOp::Add, a, b) => parts(a, Some(b)).or_else(|| parts(b, Some(a))),
            _ => parts(key, None),
        }
    }

    /// The block of a blocked component, `own * n` (see [`block_parts`](Self::block_parts)):
    /// the own component's key and `n`'s.
    pub(super) fn block_of<'k>(&self, key: &'k IndexKey) -> Option<(&'k IndexKey, &'k IndexKey)> {
        self.block_parts(key).map(|b| (b.own, b.n))
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

    /// The equalities `own == c` of a condition (its conjuncts joined by `&&`), `own` a
    /// component of the thread's own index (maybe shifted) and `c` launch-wide: the same in
    /// every thread and every iteration of any loop (a loop variable would let another
    /// thread pass in another iteration).
    pub(super) fn own_pins_of(&self, cond: &Expr) -> Vec<(IndexKey, IndexKey)> {
        equalities(cond)
            .into_iter()
            .map(|(x, y)| (self.key(x), self.key(y)))
            .filter(|(own, value)| key_invariant(value) && self.own_key(own).is_some())
            .collect()
    }

    /// `t.local[d] == c` conditions (joined by `&&`) pin components of `t.local`.
    pub(super) fn pins_of(&self, cond: &Expr) -> Vec<u32> {
        let Some(t) = &self.k.tiled else {
            return Vec::new();
        };
        equalities(cond)
            .into_iter()
            .filter(|(_, y)| !self.may_vary(y))
            .filter_map(|(x, _)| {
                // `t.local[k]`, or a local bound to it.
                let key = self.key(x);
                (0..self.k.rank).find(|&k| key == IndexKey::component(t.local, k))
            })
            .collect()
    }
}
