//! Walking the IR: one traversal of every block, statement, expression and place, shared by
//! the passes.
//!
//! A pass implements [`Visitor`] (or [`VisitorMut`] to rewrite in place) and overrides only the
//! nodes it cares about; the default methods call the matching `walk_*` function, which visits
//! the children in the order the device evaluates them. An override that still wants the
//! children calls `walk_*` itself, before or after its own work.

use super::{Atomic, BinOp, Block, Expr, ExprKind, LogicOp, Place, Stmt};

/// A read-only pass over the IR. Every method defaults to visiting the node's children.
pub trait Visitor<'a>: Sized {
    /// Visits a block: its statements, then its tail.
    fn visit_block(&mut self, block: &'a Block) {
        walk_block(self, block);
    }

    /// Visits a statement: a `let`'s initializer, or the expression.
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        walk_stmt(self, stmt);
    }

    /// Visits an expression and its operands.
    fn visit_expr(&mut self, expr: &'a Expr) {
        walk_expr(self, expr);
    }

    /// Visits a place's index expressions.
    fn visit_place(&mut self, place: &'a Place) {
        walk_place(self, place);
    }
}

/// A pass that may rewrite the IR in place. Every method defaults to visiting the node's
/// children, in the same order as [`Visitor`].
pub trait VisitorMut: Sized {
    /// Visits a block: its statements, then its tail.
    fn visit_block_mut(&mut self, block: &mut Block) {
        walk_block_mut(self, block);
    }

    /// Visits a statement: a `let`'s initializer, or the expression.
    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        walk_stmt_mut(self, stmt);
    }

    /// Visits an expression and its operands.
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        walk_expr_mut(self, expr);
    }

    /// Visits a place's index expressions.
    fn visit_place_mut(&mut self, place: &mut Place) {
        walk_place_mut(self, place);
    }
}

/// The `walk_*` functions of one visitor trait, written once for both: `&'a` references and
/// [`Visitor`]'s methods, or `&mut` references and [`VisitorMut`]'s, so that the two walks
/// cannot disagree on the children or their order.
macro_rules! walk_functions {
    (
        [$($lt:lifetime)?] [$($mutability:ident)?] $bound:path,
        $walk_block:ident, $walk_stmt:ident, $walk_place:ident, $walk_expr:ident,
        $visit_block:ident, $visit_stmt:ident, $visit_place:ident, $visit_expr:ident
    ) => {
        /// The statements of `block` in order, then its tail.
        pub fn $walk_block<$($lt,)? V: $bound>(v: &mut V, block: &$($lt)? $($mutability)? Block) {
            for stmt in &$($mutability)? block.stmts {
                v.$visit_stmt(stmt);
            }
            if let Some(tail) = &$($mutability)? block.tail {
                v.$visit_expr(tail);
            }
        }

        /// The expression of `stmt`, if it has one.
        pub fn $walk_stmt<$($lt,)? V: $bound>(v: &mut V, stmt: &$($lt)? $($mutability)? Stmt) {
            match stmt {
                Stmt::Let(_, Some(init)) | Stmt::Expr(init) => v.$visit_expr(init),
                Stmt::Let(_, None) => {}
            }
        }

        /// The index expressions of `place`.
        pub fn $walk_place<$($lt,)? V: $bound>(v: &mut V, place: &$($lt)? $($mutability)? Place) {
            let (Place::Local(_, idx) | Place::Buffer(_, idx)) = place;
            for i in idx {
                v.$visit_expr(i);
            }
        }

        /// The operands of `expr`, in evaluation order: an assignment's value before its
        /// place, an atomic's value before its target and expected places, a loop's bounds
        /// before its body.
        pub fn $walk_expr<$($lt,)? V: $bound>(v: &mut V, expr: &$($lt)? $($mutability)? Expr) {
            match &$($mutability)? expr.kind {
                ExprKind::Unary(_, a)
                | ExprKind::Cast(a)
                | ExprKind::Bitcast(a)
                | ExprKind::ArrayRepeat(a, _) => {
                    v.$visit_expr(a)
                }
                ExprKind::Binary(_, a, b) | ExprKind::Logic(_, a, b) | ExprKind::Element(a, b) => {
                    v.$visit_expr(a);
                    v.$visit_expr(b);
                }
                ExprKind::BufferLoad(_, list)
                | ExprKind::Texture(_, _, list)
                | ExprKind::ArrayList(list)
                | ExprKind::Builtin(_, list)
                | ExprKind::Subgroup(_, list)
                | ExprKind::Math(_, list) => {
                    for x in list {
                        v.$visit_expr(x);
                    }
                }
                ExprKind::Atomic(atomic) => {
                    let Atomic {
                        target,
                        value,
                        expected,
                        ..
                    } = &$($mutability)? **atomic;
                    if let Some(value) = value {
                        v.$visit_expr(value);
                    }
                    v.$visit_place(target);
                    if let Some(expected) = expected {
                        v.$visit_place(expected);
                    }
                }
                ExprKind::If(cond, then, els) => {
                    v.$visit_expr(cond);
                    v.$visit_block(then);
                    if let Some(els) = els {
                        v.$visit_expr(els);
                    }
                }
                ExprKind::Block(b) | ExprKind::Loop(b) => v.$visit_block(b),
                ExprKind::While(cond, body) => {
                    v.$visit_expr(cond);
                    v.$visit_block(body);
                }
                ExprKind::For(range) => {
                    v.$visit_expr(&$($mutability)? range.start);
                    v.$visit_expr(&$($mutability)? range.end);
                    if let Some(step) = &$($mutability)? range.step {
                        v.$visit_expr(step);
                    }
                    v.$visit_block(&$($mutability)? range.body);
                }
                ExprKind::Assign(place, value) | ExprKind::CompoundAssign(_, place, value) => {
                    v.$visit_expr(value);
                    v.$visit_place(place);
                }
                ExprKind::Lit(_)
                | ExprKind::Local(_)
                | ExprKind::ScalarParam(_)
                | ExprKind::BufferExtent(_)
                | ExprKind::OuterConst(_)
                | ExprKind::Barrier(_)
                | ExprKind::MemoryFence(_)
                | ExprKind::Break
                | ExprKind::Continue
                | ExprKind::Return => {}
            }
        }
    };
}

walk_functions!(
    ['a] [] Visitor<'a>,
    walk_block, walk_stmt, walk_place, walk_expr,
    visit_block, visit_stmt, visit_place, visit_expr
);
walk_functions!(
    [] [mut] VisitorMut,
    walk_block_mut, walk_stmt_mut, walk_place_mut, walk_expr_mut,
    visit_block_mut, visit_stmt_mut, visit_place_mut, visit_expr_mut
);

/// What the test of [`any_expr`] says of one expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// This is an expression sought: the search ends with `true`.
    Hit,
    /// Not this one; search its operands (and their blocks) too.
    Descend,
    /// Neither this one nor anything inside it.
    Prune,
}

/// Whether `expr` or an expression inside it passes `test`, searching in the order of
/// [`walk_expr`] and stopping at the first [`Probe::Hit`]. The test sees each expression before
/// its operands and decides whether they are searched at all, so that a query can stop at the
/// expression kinds it does not look through.
pub fn any_expr<'a>(expr: &'a Expr, test: impl FnMut(&'a Expr) -> Probe) -> bool {
    struct Search<F> {
        test: F,
        hit: bool,
    }
    impl<'a, F: FnMut(&'a Expr) -> Probe> Visitor<'a> for Search<F> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if self.hit {
                return;
            }
            match (self.test)(expr) {
                Probe::Hit => self.hit = true,
                Probe::Descend => walk_expr(self, expr),
                Probe::Prune => {}
            }
        }
    }
    let mut search = Search { test, hit: false };
    search.visit_expr(expr);
    search.hit
}

/// The conjuncts of `cond`: its operands split at `&&`, left to right.
pub fn conjuncts(cond: &Expr) -> Vec<&Expr> {
    fn split<'e>(c: &'e Expr, out: &mut Vec<&'e Expr>) {
        match &c.kind {
            ExprKind::Logic(LogicOp::And, a, b) => {
                split(a, out);
                split(b, out);
            }
            _ => out.push(c),
        }
    }
    let mut out = Vec::new();
    split(cond, &mut out);
    out
}

/// The equalities among the conjuncts of `cond`, each both ways round: `(a, b)` and then
/// `(b, a)` for a conjunct `a == b`.
pub fn equalities(cond: &Expr) -> Vec<(&Expr, &Expr)> {
    conjuncts(cond)
        .into_iter()
        .filter_map(|c| match &c.kind {
            ExprKind::Binary(BinOp::Eq, a, b) => Some([(&**a, &**b), (&**b, &**a)]),
            _ => None,
        })
        .flatten()
        .collect()
}

/// Whether a statement or the tail of `b` (not looking into nested blocks other than through
/// `test`) passes `test`.
pub fn block_has(b: &Block, test: impl Fn(&Expr) -> bool) -> bool {
    b.stmts.iter().any(|s| match s {
        Stmt::Let(_, Some(e)) | Stmt::Expr(e) => test(e),
        Stmt::Let(_, None) => false,
    }) || b.tail.as_deref().is_some_and(test)
}

/// Whether `e` has a `return` anywhere inside it.
pub fn has_return(e: &Expr) -> bool {
    any_expr(e, |x| match x.kind {
        ExprKind::Return => Probe::Hit,
        _ => Probe::Descend,
    })
}

/// Whether block `b` has a loop (`for`, `while` or `loop`) anywhere inside it.
pub fn has_loop(b: &Block) -> bool {
    block_has(b, |e| {
        any_expr(e, |x| match x.kind {
            ExprKind::For(_) | ExprKind::While(..) | ExprKind::Loop(_) => Probe::Hit,
            _ => Probe::Descend,
        })
    })
}
