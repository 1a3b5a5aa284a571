//! A small range analysis on the IR: upper bounds of unsigned index expressions, so the back
//! end can leave out the clamps of array indices and the bounds checks of buffer indices that
//! can never fail.
//!
//! It knows three kinds of facts, all about values below an exclusive bound:
//! - `t.local[d]` is below the tile's dimension `d` (a literal, or the outer constant naming
//!   it);
//! - the variable of `for i in a..n` is below `n` (and of `a..=n` below `n + 1`) whatever the
//!   step, where `n` is a literal, an outer constant, a buffer's `extent()[d]`, a local
//!   known to hold one, or at most one (`min(x, n)`: a chunk's end clamped to an extent);
//! - an immutable local is bounded like its initializer;
//! - the thread's index (`idx[d]` of a simple kernel, `t.global[d]` of a tiled one) is below
//!   the launch domain's dimension `d` ([`Sym::Domain`]), which the back end turns into a
//!   check that the runtime's specialization removes when a view covers the domain.
//!
//! and combines them through `+`, `*`, `/`, `%`, `&`, `>>`, `min` and casts between unsigned
//! types, with literal bounds only (no symbolic arithmetic), except that `(x + c) - c` (`x + c`
//! perhaps held by an immutable local, as a stencil's `i - 1` after `let i = idx[0] + 1;`) is
//! known to be `x`. Locals that are ever assigned are never trusted.

use std::collections::{HashMap, HashSet};

use crate::ir::{
    walk_expr, walk_place, walk_stmt, Atomic, BinOp, Builtin, Expr, ExprKind, Kernel, Lit, LocalId,
    ParamId, Place, Stmt, TileDim, Visitor,
};
use crate::types::{Len, Scalar, Ty};

/// A value the analysis can name: a number, an outer constant, or a buffer's extent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sym {
    /// A literal.
    Lit(u64),
    /// Outer constant number `k` ([`Kernel::consts`]).
    Const(u32),
    /// Dimension `d` of buffer parameter `p`'s extent.
    Extent(ParamId, u32),
    /// Dimension `d` of the launch domain's extent.
    Domain(u32),
}

/// What is known of an expression's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fact {
    /// It equals this.
    Is(Sym),
    /// It is below this.
    Below(Sym),
    /// It is at most this (`min(x, n)`): the end of a range whose variable is below it.
    AtMost(Sym),
}

/// The facts of one kernel (see the module documentation).
#[derive(Debug)]
pub struct Ranges {
    facts: LocalFacts,
}

/// The facts of locals and of `t.local` and the thread's index, from which every expression's
/// fact follows.
#[derive(Debug, Default)]
struct LocalFacts {
    locals: HashMap<LocalId, Fact>,
    /// `t.local` of a tiled kernel, and the bound of each of its components.
    tile_local: Option<(LocalId, Vec<Option<Sym>>)>,
    /// The thread's index (`t.global` in a tiled kernel), unless the body assigns to it.
    index_local: Option<LocalId>,
    /// Immutable locals defined as a value plus a literal (`let i = idx[0] + 1;`): the fact of
    /// that value, and the literal. `i - 1` is that value again (in wrapping arithmetic,
    /// whatever it is), so it keeps the value's fact.
    offsets: HashMap<LocalId, (Fact, u64)>,
}

impl Ranges {
    /// Collects the facts of `k`.
    pub fn of(k: &Kernel) -> Ranges {
        let mut assigned = AssignedLocals::default();
        assigned.visit_block(&k.body);
        let assigned = assigned.0;
        let tile_local = k.tiled.as_ref().and_then(|t| {
            if assigned.contains(&t.local) {
                return None;
            }
            let bounds = t.dims.iter().map(|d| tile_dim(k, d)).collect();
            Some((t.local, bounds))
        });
        let index_local = (!assigned.contains(&k.index_local)).then_some(k.index_local);
        let mut local_facts = LocalFacts {
            locals: HashMap::new(),
            tile_local,
            index_local,
            offsets: HashMap::new(),
        };
        let mut walk = Walk {
            k,
            assigned: &assigned,
            ranges: &mut local_facts,
        };
        walk.visit_block(&k.body);
        Ranges { facts: local_facts }
    }

    /// Whether `index` is always below `len` (so indexing an array of that length with it
    /// needs no clamp).
    pub fn below_len(&self, index: &Expr, len: &Len) -> bool {
        let bound = match len {
            Len::Lit(n) => Sym::Lit(u64::from(*n)),
            Len::Const(k, _) => Sym::Const(*k),
        };
        self.below(index, bound)
    }

    /// What is known of `e`'s value: it follows from the facts of the locals it reads.
    fn fact(&self, e: &Expr) -> Option<Fact> {
        self.facts.fact(e)
    }

    /// Whether `index` is always below `bound`.
    pub fn below(&self, index: &Expr, bound: Sym) -> bool {
        match self.fact(index) {
            Some(Fact::Below(b)) => at_most(b, bound),
            Some(Fact::Is(Sym::Lit(v))) => v
                .checked_add(1)
                .is_some_and(|b| at_most(Sym::Lit(b), bound)),
            _ => false,
        }
    }

    /// The launch-domain dimension `d` that `index` is always below, if any (an index derived
    /// from the thread's own index).
    pub fn below_domain(&self, index: &Expr) -> Option<u32> {
        match self.fact(index)? {
            Fact::Below(Sym::Domain(d)) => Some(d),
            _ => None,
        }
    }
}

impl LocalFacts {
    /// What is known of `e`'s value (unsigned integer expressions only).
    fn fact(&self, e: &Expr) -> Option<Fact> {
        if !is_unsigned(&e.ty) {
            return None;
        }
        match &e.kind {
            ExprKind::Lit(Lit::Int(v)) => u64::try_from(*v).ok().map(|v| Fact::Is(Sym::Lit(v))),
            ExprKind::OuterConst(k) => Some(Fact::Is(Sym::Const(*k as u32))),
            ExprKind::Local(id) => self.locals.get(id).copied(),
            ExprKind::Element(base, index) => self.element_fact(base, index),
            ExprKind::Cast(a) => self.fact(a),
            ExprKind::Binary(op, a, b) => self.binary_fact(*op, a, b),
            ExprKind::Builtin(Builtin::Min, args) if args.len() == 2 => {
                let below = |e| self.literal_below(e);
                match (below(&args[0]), below(&args[1])) {
                    (Some(x), Some(y)) => Some(Fact::Below(Sym::Lit(x.min(y)))),
                    (Some(x), None) | (None, Some(x)) => Some(Fact::Below(Sym::Lit(x))),
                    // `min(x, n)` with a symbolic `n` (a chunk's end clamped to an extent).
                    (None, None) => [&args[0], &args[1]]
                        .iter()
                        .find_map(|a| match self.fact(a) {
                            Some(Fact::Is(s) | Fact::AtMost(s)) => Some(Fact::AtMost(s)),
                            Some(Fact::Below(s)) => Some(Fact::Below(s)),
                            None => None,
                        }),
                }
            }
            ExprKind::Block(b) if b.stmts.is_empty() => self.fact(b.tail.as_deref()?),
            _ => None,
        }
    }

    /// `t.local[d]`, the thread index's `idx[d]` and `buffer.extent()[d]` with a literal `d`.
    fn element_fact(&self, base: &Expr, index: &Expr) -> Option<Fact> {
        let ExprKind::Lit(Lit::Int(d)) = index.kind else {
            return None;
        };
        match &base.kind {
            ExprKind::Local(id) if self.index_local == Some(*id) => {
                Some(Fact::Below(Sym::Domain(u32::try_from(d).ok()?)))
            }
            ExprKind::Local(id) => {
                let (local, bounds) = self.tile_local.as_ref()?;
                if local != id {
                    return None;
                }
                Some(Fact::Below((*bounds.get(d as usize)?)?))
            }
            ExprKind::BufferExtent(p) => Some(Fact::Is(Sym::Extent(*p, d as u32))),
            _ => None,
        }
    }

    fn binary_fact(&self, op: BinOp, a: &Expr, b: &Expr) -> Option<Fact> {
        let lit = |e: &Expr| match self.fact(e) {
            Some(Fact::Is(Sym::Lit(v))) => Some(v),
            _ => None,
        };
        // Only bounds a `u32` can reach: then the operation below cannot wrap.
        let below = |v: u64| (v <= 1 << 32).then_some(Fact::Below(Sym::Lit(v)));
        match op {
            // a < x and b < y: a + b <= x + y - 2 < x + y - 1.
            BinOp::Add => {
                let sum = self.literal_below(a)?.checked_add(self.literal_below(b)?)?;
                below(sum.checked_sub(1)?)
            }
            BinOp::Mul => {
                let (x, y) = (self.literal_below(a)?, self.literal_below(b)?);
                let most = x.checked_sub(1)?.checked_mul(y.checked_sub(1)?)?;
                below(most.checked_add(1)?)
            }
            // `x / 0` is `u32::MAX` on the device, so only a non-zero literal divisor; shifts by
            // a literal below the width.
            BinOp::Div if lit(b).is_some_and(|d| d > 0) => self.no_larger(a),
            BinOp::Shr if lit(b).is_some_and(|s| s < 32) => self.no_larger(a),
            // `x % n` is below n for n > 0 (`x % 0` is `x`). A constant or extent of 0 makes an
            // array or buffer of that length empty, where no index is in range anyway.
            BinOp::Rem => match self.fact(b)? {
                Fact::Is(s @ (Sym::Lit(1..) | Sym::Const(_) | Sym::Extent(..))) => {
                    Some(Fact::Below(s))
                }
                _ => None,
            },
            BinOp::BitAnd => below(lit(a).or_else(|| lit(b))?.checked_add(1)?),
            // `(x + c) - c` is `x`.
            BinOp::Sub => {
                let c = lit(b)?;
                match &a.kind {
                    ExprKind::Local(id) => match self.offsets.get(id) {
                        Some(&(fact, offset)) if offset == c => Some(fact),
                        _ => None,
                    },
                    _ => self
                        .offset_of(a)
                        .filter(|&(_, offset)| offset == c)
                        .map(|(f, _)| f),
                }
            }
            _ => None,
        }
    }

    /// `e` as `x + c` with a literal `c` (in either order): the fact of `x`, and `c`.
    fn offset_of(&self, e: &Expr) -> Option<(Fact, u64)> {
        let ExprKind::Binary(BinOp::Add, a, b) = &e.kind else {
            return None;
        };
        let lit = |e: &Expr| match self.fact(e) {
            Some(Fact::Is(Sym::Lit(v))) => Some(v),
            _ => None,
        };
        match (lit(b), lit(a)) {
            (Some(c), _) => Some((self.fact(a)?, c)),
            (None, Some(c)) => Some((self.fact(b)?, c)),
            (None, None) => None,
        }
    }

    /// A bound of a value no larger than `a` (a quotient or right shift of it).
    fn no_larger(&self, a: &Expr) -> Option<Fact> {
        match self.fact(a)? {
            Fact::Below(s) => Some(Fact::Below(s)),
            Fact::Is(Sym::Lit(v)) => Some(Fact::Below(Sym::Lit(v.checked_add(1)?))),
            Fact::Is(s) | Fact::AtMost(s) => Some(Fact::AtMost(s)),
        }
    }

    /// An exclusive literal bound of `e`, when there is one.
    fn literal_below(&self, e: &Expr) -> Option<u64> {
        match self.fact(e)? {
            Fact::Below(Sym::Lit(n)) => Some(n),
            Fact::Is(Sym::Lit(v)) | Fact::AtMost(Sym::Lit(v)) => v.checked_add(1),
            _ => None,
        }
    }
}

/// Whether every value below `a` is below `b`.
fn at_most(a: Sym, b: Sym) -> bool {
    match (a, b) {
        (Sym::Lit(x), Sym::Lit(y)) => x <= y,
        (x, y) => x == y,
    }
}

fn is_unsigned(ty: &Ty) -> bool {
    matches!(ty, Ty::Scalar(Scalar::U32 | Scalar::Usize))
}

/// The bound of a tile dimension: its literal, or the outer constant of that name.
fn tile_dim(k: &Kernel, d: &TileDim) -> Option<Sym> {
    match d {
        TileDim::Lit(n) => Some(Sym::Lit(u64::from(*n))),
        TileDim::Named(ident) => k
            .consts
            .iter()
            .position(|c| c.ident == *ident)
            .map(|i| Sym::Const(i as u32)),
    }
}

/// The in-order walk that records facts of locals as their definitions are reached (a local's
/// `let` comes before its uses).
struct Walk<'a> {
    k: &'a Kernel,
    assigned: &'a HashSet<LocalId>,
    ranges: &'a mut LocalFacts,
}

impl Walk<'_> {
    fn trusted(&self, id: LocalId) -> bool {
        !self.assigned.contains(&id) && is_unsigned(&self.k.locals[id].ty)
    }
}

impl<'a> Visitor<'a> for Walk<'_> {
    fn visit_stmt(&mut self, s: &'a Stmt) {
        walk_stmt(self, s);
        if let Stmt::Let(id, Some(init)) = s {
            if self.trusted(*id) {
                if let Some(f) = self.ranges.fact(init) {
                    self.ranges.locals.insert(*id, f);
                }
                if let Some(offset) = self.ranges.offset_of(init) {
                    self.ranges.offsets.insert(*id, offset);
                }
            }
        }
    }

    fn visit_expr(&mut self, e: &'a Expr) {
        match &e.kind {
            ExprKind::For(r) => {
                self.visit_expr(&r.start);
                self.visit_expr(&r.end);
                if self.trusted(r.var) {
                    let bound = match self.ranges.fact(&r.end) {
                        // `i < n`, or `i <= n` for `a..=n`; `i < min(x, n) <= n`.
                        Some(Fact::Is(s) | Fact::AtMost(s)) if !r.inclusive => Some(Fact::Below(s)),
                        Some(Fact::Is(Sym::Lit(v))) => {
                            v.checked_add(1).map(|b| Fact::Below(Sym::Lit(b)))
                        }
                        Some(Fact::Below(s)) if !r.inclusive => Some(Fact::Below(s)),
                        Some(Fact::Below(Sym::Lit(v))) => Some(Fact::Below(Sym::Lit(v))),
                        _ => None,
                    };
                    if let Some(b) = bound {
                        self.ranges.locals.insert(r.var, b);
                    }
                }
                self.visit_block(&r.body);
            }
            ExprKind::If(..) | ExprKind::Block(_) | ExprKind::Loop(_) | ExprKind::While(..) => {
                walk_expr(self, e)
            }
            // Only the `let`s of blocks reached through statements and control flow are
            // tracked (a `let` in a block inside an operand, or in a `step_by`, is not): its
            // local's uses keep their clamps.
            _ => {}
        }
    }
}

/// Every local that is assigned (or used as an atomic's target or compare-exchange expected
/// value) anywhere in the body.
#[derive(Default)]
struct AssignedLocals(HashSet<LocalId>);

impl AssignedLocals {
    fn place(&mut self, p: &Place) {
        if let Place::Local(id, _) = p {
            self.0.insert(*id);
        }
    }
}

impl<'a> Visitor<'a> for AssignedLocals {
    fn visit_expr(&mut self, e: &'a Expr) {
        match &e.kind {
            ExprKind::Assign(p, _) | ExprKind::CompoundAssign(_, p, _) => self.place(p),
            ExprKind::Atomic(a) => {
                let Atomic {
                    target,
                    value,
                    expected,
                    ..
                } = &**a;
                self.place(target);
                if let Some(x) = expected {
                    self.place(x);
                }
                // The expected place's indices are not walked: only the local matters there.
                walk_place(self, target);
                if let Some(v) = value {
                    self.visit_expr(v);
                }
                return;
            }
            ExprKind::For(r) => {
                // The hidden counter and flag are assigned by the loop itself.
                self.0.insert(r.counter);
                self.0.insert(r.done);
            }
            _ => {}
        }
        walk_expr(self, e);
    }
}
