//! Walking the IR: one traversal of every block, statement, expression and place, shared by
//! the passes, and an identity for expressions so that a pass can keep its results in a side
//! table instead of on the nodes.
//!
//! A pass implements [`Visitor`] (or [`VisitorMut`] to rewrite in place) and overrides only the
//! nodes it cares about; the default methods call the matching `walk_*` function, which visits
//! the children in the order the device evaluates them. An override that still wants the
//! children calls `walk_*` itself, before or after its own work.

use super::{Atomic, Block, Expr, ExprKind, Kernel, Place, Stmt};
use std::collections::HashMap;
use std::marker::PhantomData;

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

/// The statements of `block` in order, then its tail.
pub fn walk_block<'a, V: Visitor<'a>>(v: &mut V, block: &'a Block) {
    for stmt in &block.stmts {
        v.visit_stmt(stmt);
    }
    if let Some(tail) = &block.tail {
        v.visit_expr(tail);
    }
}

/// The expression of `stmt`, if it has one.
pub fn walk_stmt<'a, V: Visitor<'a>>(v: &mut V, stmt: &'a Stmt) {
    match stmt {
        Stmt::Let(_, Some(init)) | Stmt::Expr(init) => v.visit_expr(init),
        Stmt::Let(_, None) => {}
    }
}

/// The index expressions of `place`.
pub fn walk_place<'a, V: Visitor<'a>>(v: &mut V, place: &'a Place) {
    let (Place::Local(_, idx) | Place::Buffer(_, idx)) = place;
    for i in idx {
        v.visit_expr(i);
    }
}

/// The operands of `expr`, in evaluation order: an assignment's value before its place, an
/// atomic's value before its target and expected places, a loop's bounds before its body.
pub fn walk_expr<'a, V: Visitor<'a>>(v: &mut V, expr: &'a Expr) {
    match &expr.kind {
        ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::ArrayRepeat(a, _) => v.visit_expr(a),
        ExprKind::Binary(_, a, b) | ExprKind::Logic(_, a, b) | ExprKind::Element(a, b) => {
            v.visit_expr(a);
            v.visit_expr(b);
        }
        ExprKind::BufferLoad(_, list)
        | ExprKind::ArrayList(list)
        | ExprKind::Builtin(_, list)
        | ExprKind::Math(_, list) => {
            for x in list {
                v.visit_expr(x);
            }
        }
        ExprKind::Atomic(atomic) => {
            let Atomic {
                target,
                value,
                expected,
                ..
            } = &**atomic;
            if let Some(value) = value {
                v.visit_expr(value);
            }
            v.visit_place(target);
            if let Some(expected) = expected {
                v.visit_place(expected);
            }
        }
        ExprKind::If(cond, then, els) => {
            v.visit_expr(cond);
            v.visit_block(then);
            if let Some(els) = els {
                v.visit_expr(els);
            }
        }
        ExprKind::Block(b) | ExprKind::Loop(b) => v.visit_block(b),
        ExprKind::While(cond, body) => {
            v.visit_expr(cond);
            v.visit_block(body);
        }
        ExprKind::For(range) => {
            v.visit_expr(&range.start);
            v.visit_expr(&range.end);
            if let Some(step) = &range.step {
                v.visit_expr(step);
            }
            v.visit_block(&range.body);
        }
        ExprKind::Assign(place, value) | ExprKind::CompoundAssign(_, place, value) => {
            v.visit_expr(value);
            v.visit_place(place);
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

/// [`walk_block`] for [`VisitorMut`].
pub fn walk_block_mut<V: VisitorMut>(v: &mut V, block: &mut Block) {
    for stmt in &mut block.stmts {
        v.visit_stmt_mut(stmt);
    }
    if let Some(tail) = &mut block.tail {
        v.visit_expr_mut(tail);
    }
}

/// [`walk_stmt`] for [`VisitorMut`].
pub fn walk_stmt_mut<V: VisitorMut>(v: &mut V, stmt: &mut Stmt) {
    match stmt {
        Stmt::Let(_, Some(init)) | Stmt::Expr(init) => v.visit_expr_mut(init),
        Stmt::Let(_, None) => {}
    }
}

/// [`walk_place`] for [`VisitorMut`].
pub fn walk_place_mut<V: VisitorMut>(v: &mut V, place: &mut Place) {
    let (Place::Local(_, idx) | Place::Buffer(_, idx)) = place;
    for i in idx {
        v.visit_expr_mut(i);
    }
}

/// [`walk_expr`] for [`VisitorMut`].
pub fn walk_expr_mut<V: VisitorMut>(v: &mut V, expr: &mut Expr) {
    match &mut expr.kind {
        ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::ArrayRepeat(a, _) => {
            v.visit_expr_mut(a)
        }
        ExprKind::Binary(_, a, b) | ExprKind::Logic(_, a, b) | ExprKind::Element(a, b) => {
            v.visit_expr_mut(a);
            v.visit_expr_mut(b);
        }
        ExprKind::BufferLoad(_, list)
        | ExprKind::ArrayList(list)
        | ExprKind::Builtin(_, list)
        | ExprKind::Math(_, list) => {
            for x in list {
                v.visit_expr_mut(x);
            }
        }
        ExprKind::Atomic(atomic) => {
            let Atomic {
                target,
                value,
                expected,
                ..
            } = &mut **atomic;
            if let Some(value) = value {
                v.visit_expr_mut(value);
            }
            v.visit_place_mut(target);
            if let Some(expected) = expected {
                v.visit_place_mut(expected);
            }
        }
        ExprKind::If(cond, then, els) => {
            v.visit_expr_mut(cond);
            v.visit_block_mut(then);
            if let Some(els) = els {
                v.visit_expr_mut(els);
            }
        }
        ExprKind::Block(b) | ExprKind::Loop(b) => v.visit_block_mut(b),
        ExprKind::While(cond, body) => {
            v.visit_expr_mut(cond);
            v.visit_block_mut(body);
        }
        ExprKind::For(range) => {
            v.visit_expr_mut(&mut range.start);
            v.visit_expr_mut(&mut range.end);
            if let Some(step) = &mut range.step {
                v.visit_expr_mut(step);
            }
            v.visit_block_mut(&mut range.body);
        }
        ExprKind::Assign(place, value) | ExprKind::CompoundAssign(_, place, value) => {
            v.visit_expr_mut(value);
            v.visit_place_mut(place);
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

/// The identity of one expression of a kernel: its number in the pre-order walk of
/// [`Visitor`], from 0. Analyses keep per-expression results in tables indexed by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub u32);

impl ExprId {
    /// The id as an index into a side table of [`ExprIds::len`] entries.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The [`ExprId`] of every expression of one kernel.
///
/// The IR has no room for an id (the front end builds expressions as plain values), so the ids
/// are assigned by a numbering walk and found again by the expression's address; the table
/// borrows the kernel, so the addresses stay valid and the numbering current for as long as the
/// table lives.
#[derive(Debug)]
pub struct ExprIds<'k> {
    ids: HashMap<*const Expr, ExprId>,
    kernel: PhantomData<&'k Kernel>,
}

impl<'k> ExprIds<'k> {
    /// Numbers the expressions of `kernel`'s body.
    pub fn of(kernel: &'k Kernel) -> Self {
        struct Numbering(HashMap<*const Expr, ExprId>);
        impl Visitor<'_> for Numbering {
            fn visit_expr(&mut self, expr: &Expr) {
                let id = ExprId(self.0.len() as u32);
                self.0.insert(expr, id);
                walk_expr(self, expr);
            }
        }
        let mut numbering = Numbering(HashMap::new());
        numbering.visit_block(&kernel.body);
        ExprIds {
            ids: numbering.0,
            kernel: PhantomData,
        }
    }

    /// The id of `expr`, which must be an expression of the kernel.
    pub fn id(&self, expr: &Expr) -> ExprId {
        *self
            .ids
            .get(&(expr as *const Expr))
            .expect("the expression belongs to the numbered kernel")
    }

    /// The number of expressions: ids run from 0 to `len() - 1`.
    pub fn len(&self) -> usize {
        self.ids.len()
    }
}
