//! Small IR constructors for the expressions the compiler writes itself: when the checker
//! lowers a construct (an inlined `return`, a labelled jump, a `match`), and when a back end
//! rewrites the IR (the native batches' per-lane masks). Each is typed as the IR needs.

use super::*;

/// `local = value`.
pub(crate) fn assign(local: LocalId, value: Expr) -> Expr {
    let span = value.span;
    Expr {
        kind: ExprKind::Assign(Place::Local(local, Vec::new()), Box::new(value)),
        ty: Ty::Unit,
        span,
    }
}

/// An expression that does not complete (`break`, `continue`, a block ending in one).
pub(crate) fn never(kind: ExprKind, span: Span) -> Expr {
    Expr {
        kind,
        ty: Ty::Never,
        span,
    }
}

/// A read of `local`, of type `ty`.
pub(crate) fn local(local: LocalId, ty: Ty, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Local(local),
        ty,
        span,
    }
}

pub(crate) fn bool_lit(value: bool, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Lit(Lit::Bool(value)),
        ty: Ty::BOOL,
        span,
    }
}

pub(crate) fn u32_lit(value: u32, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Lit(Lit::Int(u128::from(value))),
        ty: Ty::Scalar(Scalar::U32),
        span,
    }
}

/// `a op b` for a comparison `op`.
pub(crate) fn compare(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty: Ty::BOOL,
        span,
    }
}

/// `a && b` / `a || b`.
pub(crate) fn logic(op: LogicOp, a: Expr, b: Expr) -> Expr {
    let span = a.span;
    Expr {
        kind: ExprKind::Logic(op, Box::new(a), Box::new(b)),
        ty: Ty::BOOL,
        span,
    }
}

/// `if cond { stmts }`.
pub(crate) fn if_then(cond: Expr, stmts: Vec<Stmt>) -> Expr {
    let span = cond.span;
    Expr {
        kind: ExprKind::If(Box::new(cond), Block { stmts, tail: None }, None),
        ty: Ty::Unit,
        span,
    }
}

/// `!e`, of a `bool`.
pub(crate) fn not(e: Expr) -> Expr {
    let span = e.span;
    Expr {
        kind: ExprKind::Unary(UnOp::Not, Box::new(e)),
        ty: Ty::BOOL,
        span,
    }
}
