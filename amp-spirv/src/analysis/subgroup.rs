//! Where subgroup operations that combine lanes may stand (the placement half of rule
//! `subgroup-uniformity`; the uniformity walk checks the control flow around them).
//!
//! Every lane of a subgroup must supply its operand before any lane gets the result, so the
//! native accelerator computes such an operation between two work-item loops: the operand of
//! every thread first, then the results. That is possible when the operation can be evaluated
//! ahead of the rest of its statement without changing what the statement does:
//!
//! - it stands in a statement (a `let`'s value, an expression statement, an `if` condition or
//!   a `for` loop's bounds), not inside a block or loop that is itself a value, nor in a
//!   branch of an `if` that is a value (its condition is fine);
//! - not on the right of `&&` / `||` (which would not always evaluate it), and not in a `while`
//!   condition (evaluated again each iteration);
//! - the statement has no other effect that would run before it (an assignment or atomic
//!   inside the expression): the assignment the statement itself makes is fine.

use crate::diag::{Diagnostic, Diagnostics, Rule};
use crate::ir::*;

/// Reports every collective subgroup operation of `k` that stands where it cannot be
/// evaluated ahead of its statement, unless `errors` already has an error there (the
/// uniformity walk's, for an operation that not every thread reaches: one error a place).
pub(super) fn check_placement(k: &Kernel, errors: &mut Diagnostics) {
    let reported = errors.iter().map(|d| d.span.start.start()).collect();
    let mut check = Placement { errors, reported };
    check.block(&k.body);
}

/// A place a collective may not stand, and how to move it out: (where, the fix).
type Spot = (&'static str, &'static str);

const WHILE_CONDITION: Spot = (
    "a `while` condition, which runs again for each iteration",
    "compute the value into a variable before the loop and again at the end of its body",
);
const SHORT_CIRCUIT: Spot = (
    "the right side of `&&` or `||`, which not every thread evaluates",
    "compute it into a variable before the condition",
);
const CONDITIONAL: Spot = (
    "a branch of an `if` that is a value, which not every thread evaluates",
    "compute it into a variable before the `if`",
);
const VALUE_CONSTRUCT: Spot = (
    "a block or loop that is a value",
    "compute it into a variable in a statement of its own",
);
const WITH_EFFECTS: Spot = (
    "an expression with an assignment or atomic in it",
    "compute it into a variable first",
);

struct Placement<'d> {
    errors: &'d mut Diagnostics,
    /// Where errors were reported before.
    reported: Vec<proc_macro2::LineColumn>,
}

impl Placement<'_> {
    fn block(&mut self, b: &Block) {
        for s in &b.stmts {
            match s {
                Stmt::Let(_, Some(e)) => self.operand_position(e),
                Stmt::Expr(e) => self.statement(e),
                Stmt::Let(_, None) => {}
            }
        }
        if let Some(t) = &b.tail {
            self.statement(t);
        }
    }

    /// An expression in statement position.
    fn statement(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Block(b) | ExprKind::Loop(b) => self.block(b),
            ExprKind::If(c, then, els) => {
                self.operand_position(c);
                self.block(then);
                if let Some(x) = els {
                    self.statement(x);
                }
            }
            ExprKind::While(c, body) => {
                self.nowhere(c, WHILE_CONDITION);
                self.block(body);
            }
            ExprKind::For(r) => {
                self.operand_position(&r.start);
                self.operand_position(&r.end);
                if let Some(s) = &r.step {
                    self.operand_position(s);
                }
                self.block(&r.body);
            }
            ExprKind::Assign(place, value) | ExprKind::CompoundAssign(_, place, value) => {
                self.operand_position(value);
                let (Place::Local(_, idx) | Place::Buffer(_, idx)) = place;
                for i in idx {
                    self.operand_position(i);
                }
            }
            _ => self.operand_position(e),
        }
    }

    /// An expression evaluated as a whole: collectives in it are evaluated first, so nothing
    /// else in it may have an effect, and none may stand where it is evaluated conditionally.
    fn operand_position(&mut self, e: &Expr) {
        if !has_collective(e) {
            return;
        }
        match &e.kind {
            ExprKind::Logic(_, a, b) => {
                self.operand_position(a);
                self.nowhere(b, SHORT_CIRCUIT);
            }
            // The condition of an `if` that is a value is always evaluated; its branches not.
            ExprKind::If(c, then, els) => {
                self.operand_position(c);
                for s in &then.stmts {
                    if let Stmt::Let(_, Some(x)) | Stmt::Expr(x) = s {
                        self.nowhere(x, CONDITIONAL);
                    }
                }
                if let Some(t) = &then.tail {
                    self.nowhere(t, CONDITIONAL);
                }
                if let Some(x) = els {
                    self.nowhere(x, CONDITIONAL);
                }
            }
            ExprKind::Block(_) | ExprKind::Loop(_) | ExprKind::While(..) | ExprKind::For(_) => {
                self.nowhere(e, VALUE_CONSTRUCT)
            }
            ExprKind::Assign(..) | ExprKind::CompoundAssign(..) | ExprKind::Atomic(_) => {
                self.nowhere(e, WITH_EFFECTS)
            }
            ExprKind::Subgroup(_, args) => {
                for a in args {
                    self.operand_position(a);
                }
            }
            _ => {
                if side_effect(e) {
                    self.nowhere(e, WITH_EFFECTS);
                    return;
                }
                let mut parts = Vec::new();
                walk_expr(&mut Children(&mut parts), e);
                for p in parts {
                    self.operand_position(p);
                }
            }
        }
    }

    /// Reports each collective in `e`: it stands in `spot`.
    fn nowhere(&mut self, e: &Expr, (place, fix): Spot) {
        struct Find<'x>(Vec<&'x Expr>);
        impl<'x> Visitor<'x> for Find<'x> {
            fn visit_expr(&mut self, expr: &'x Expr) {
                if matches!(&expr.kind, ExprKind::Subgroup(op, _) if op.is_collective()) {
                    self.0.push(expr);
                }
                walk_expr(self, expr);
            }
        }
        let mut find = Find(Vec::new());
        find.visit_expr(e);
        for x in find.0 {
            if self.reported.contains(&x.span.start.start()) {
                continue;
            }
            self.errors.push(
                Diagnostic::error(
                    Rule::SubgroupUniformity,
                    x.span,
                    format!("this subgroup operation stands in {place}"),
                )
                .with_help(format!(
                    "a subgroup operation that combines lanes must be evaluated by every thread at the same point of the kernel: {fix}"
                )),
            );
        }
    }
}

/// The direct operands of an expression, for [`Placement::operand_position`].
struct Children<'v, 'x>(&'v mut Vec<&'x Expr>);

impl<'x> Visitor<'x> for Children<'_, 'x> {
    fn visit_expr(&mut self, expr: &'x Expr) {
        self.0.push(expr);
    }
}

/// Whether evaluating `e` (outside its collectives) has an effect besides its value.
fn side_effect(e: &Expr) -> bool {
    any_expr(e, |x| match &x.kind {
        ExprKind::Assign(..)
        | ExprKind::CompoundAssign(..)
        | ExprKind::Atomic(_)
        | ExprKind::Texture(TextureOp::Store, ..)
        | ExprKind::Barrier(_)
        | ExprKind::Return
        | ExprKind::Break
        | ExprKind::Continue => Probe::Hit,
        _ => Probe::Descend,
    })
}
