//! Every subgroup operation that combines lanes as a statement of its own: `let r = op(a, b);`
//! with its operands in fresh locals computed just before (`r` fresh too, unless the operation
//! was already a `let`'s whole initializer: `let s = sg.add(x);` keeps `s`). Rule `subgroup-uniformity`
//! (`analysis/subgroup.rs`) placed every such operation where this keeps the statement's
//! meaning. The native accelerator runs these statements between two work-item loops, like a
//! barrier, so every lane's operand is in its frame when the operation combines them.

use crate::ir::*;
use crate::types::Ty;

/// Whether `e` itself is an operation that combines lanes.
fn is_collective(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Subgroup(op, _) if op.is_collective())
}

/// `k` with every subgroup operation that combines lanes moved into a `let` of its own (see
/// the module docs); `None` when it has none.
pub(crate) fn hoisted(k: &Kernel) -> Option<Kernel> {
    k.tiled.as_ref()?;
    if !block_has(&k.body, has_collective) {
        return None;
    }
    let mut out = k.clone();
    let mut h = Hoister {
        locals: &mut out.locals,
    };
    let mut body = std::mem::replace(
        &mut out.body,
        Block {
            stmts: Vec::new(),
            tail: None,
        },
    );
    h.block(&mut body);
    out.body = body;
    Some(out)
}

/// The name of the fresh locals that hold a collective's operands and results.
pub(crate) const OPERAND: &str = "#subgroup";

struct Hoister<'l> {
    locals: &'l mut Vec<Local>,
}

impl Hoister<'_> {
    /// A fresh thread-private local of type `ty` (mutable, so that no pass takes it for a
    /// value of the thread's index to recompute).
    fn fresh(&mut self, ty: Ty) -> LocalId {
        self.locals.push(Local {
            name: OPERAND.into(),
            ty,
            mutable: true,
            storage: Storage::Function,
        });
        self.locals.len() - 1
    }

    fn block(&mut self, b: &mut Block) {
        let mut out = Vec::with_capacity(b.stmts.len());
        for mut st in std::mem::take(&mut b.stmts) {
            match &mut st {
                // `let s = sg.add(x);`: the collective stays the initializer (its result is
                // `s` itself, not a copy of a fresh local), its operands are lifted.
                Stmt::Let(_, Some(e)) if is_collective(e) => self.lift_operands(e, &mut out),
                Stmt::Let(_, Some(e)) => self.lift(e, &mut out),
                Stmt::Expr(e) => self.statement(e, &mut out),
                Stmt::Let(_, None) => {}
            }
            out.push(st);
        }
        if let Some(t) = b.tail.as_deref_mut() {
            self.statement(t, &mut out);
        }
        b.stmts = out;
    }

    /// An expression in statement position: its own collectives go to `out`, those of the
    /// blocks it contains into those blocks.
    fn statement(&mut self, e: &mut Expr, out: &mut Vec<Stmt>) {
        match &mut e.kind {
            ExprKind::Block(b) | ExprKind::Loop(b) | ExprKind::While(_, b) => self.block(b),
            ExprKind::If(c, then, els) => {
                self.lift(c, out);
                self.block(then);
                if let Some(x) = els.as_deref_mut() {
                    self.else_branch(x);
                }
            }
            ExprKind::For(r) => {
                self.lift(&mut r.start, out);
                self.lift(&mut r.end, out);
                if let Some(s) = r.step.as_deref_mut() {
                    self.lift(s, out);
                }
                self.block(&mut r.body);
            }
            _ => self.lift(e, out),
        }
    }

    /// The `else` of an `if`: a block, or an `if` whose condition's collectives must run
    /// only when the branch is taken, so it becomes `{ <them>; if .. }`.
    fn else_branch(&mut self, x: &mut Expr) {
        if let ExprKind::Block(b) = &mut x.kind {
            return self.block(b);
        }
        let mut pre = Vec::new();
        self.statement(x, &mut pre);
        if !pre.is_empty() {
            let (ty, span) = (x.ty.clone(), x.span);
            let inner = std::mem::replace(
                x,
                Expr {
                    kind: ExprKind::Block(Block {
                        stmts: Vec::new(),
                        tail: None,
                    }),
                    ty: ty.clone(),
                    span,
                },
            );
            *x = Expr {
                kind: ExprKind::Block(Block {
                    stmts: pre,
                    tail: Some(Box::new(inner)),
                }),
                ty,
                span,
            };
        }
    }

    /// The operands of collective `e` (their own collectives first) computed into fresh
    /// `let`s appended to `out`, and read from them in `e`.
    fn lift_operands(&mut self, e: &mut Expr, out: &mut Vec<Stmt>) {
        let ExprKind::Subgroup(_, args) = &mut e.kind else {
            return;
        };
        for a in args.iter_mut() {
            self.lift(a, out);
            let (ty, span) = (a.ty.clone(), a.span);
            let id = self.fresh(ty.clone());
            let value = std::mem::replace(
                a,
                Expr {
                    kind: ExprKind::Local(id),
                    ty,
                    span,
                },
            );
            out.push(Stmt::Let(id, Some(value)));
        }
    }

    /// Moves the collectives of `e` (innermost first) into `let`s appended to `out`,
    /// leaving a read of each one's result in its place.
    fn lift(&mut self, e: &mut Expr, out: &mut Vec<Stmt>) {
        match &mut e.kind {
            ExprKind::Subgroup(op, _) if op.is_collective() => {
                self.lift_operands(e, out);
                let (ty, span) = (e.ty.clone(), e.span);
                let r = self.fresh(ty.clone());
                let collective = std::mem::replace(
                    e,
                    Expr {
                        kind: ExprKind::Local(r),
                        ty,
                        span,
                    },
                );
                out.push(Stmt::Let(r, Some(collective)));
            }
            // Placement (`analysis/subgroup.rs`) leaves no collective inside these, nor in the
            // branches of an `if` that is a value.
            ExprKind::If(c, ..) => self.lift(c, out),
            ExprKind::Block(_) | ExprKind::Loop(_) | ExprKind::While(..) | ExprKind::For(_) => {}
            ExprKind::Logic(_, a, _) => self.lift(a, out),
            _ => {
                let mut children = Lift { h: self, out };
                walk_expr_mut(&mut children, e);
            }
        }
    }
}

/// Lifts the collectives of each operand it visits.
struct Lift<'h, 'l, 'o> {
    h: &'h mut Hoister<'l>,
    out: &'o mut Vec<Stmt>,
}

impl VisitorMut for Lift<'_, '_, '_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        self.h.lift(expr, self.out);
    }
}
