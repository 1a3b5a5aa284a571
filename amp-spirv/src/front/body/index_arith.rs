//! C++ AMP's index arithmetic: `Index::new([i, j])` and `Extent::new(..)`, `+ -` between two
//! indices of one rank (per component), `+ - * / %` between an index and a `usize` (either
//! side), and `==` / `!=` between indices of one rank. Inside a kernel an `Index<N>` is a `[usize; N]` (so are
//! `Extent<N>`, `t.global` and the other tiled-index fields, and `view.extent()`), so these are
//! the operators of `[usize; N]` values with N = 1 to 3.
//!
//! Lowered to per-component scalar operations: the operands are evaluated once, in order, into
//! hidden locals (unless they are plain: literals, locals, `Index::new` lists and sums of them),
//! and the result is an array list of the components' results (`&&` of the components' `==` for
//! equality, `||` of `!=`). An array list of plain components indexes a view directly
//! (`a[idx + Index::new([0, 1])]`).

use super::expr::op_symbol;
use super::*;

impl BodyChecker<'_> {
    /// The rank of `ty` when it is an index-like `[usize; N]` (N = 1 to 3) or an array
    /// literal whose elements may still become `usize` (`[1, 0]`).
    fn index_rank(&mut self, ty: &Ty) -> Option<u32> {
        let Ty::Array(elem, Len::Lit(n)) = self.infer.shallow(ty) else {
            return None;
        };
        let usize_like = match self.infer.shallow(&elem) {
            Ty::Scalar(Scalar::Usize) => true,
            Ty::Var(_) => {
                self.infer.class(&elem) == Class::Int || self.infer.class(&elem) == Class::Never
            }
            _ => false,
        };
        (usize_like && (1..=3).contains(&n)).then_some(n)
    }

    /// Whether a binary operator has an index operand: one side is a `[usize; N]` with N = 1
    /// to 3 whose element type is settled as `usize` (a plain array literal alone is not one).
    pub(super) fn has_index_operand(&self, l: &Expr, r: &Expr) -> bool {
        self.is_index_ty(&l.ty) || self.is_index_ty(&r.ty)
    }

    /// Whether `ty` is a settled `[usize; N]` with N = 1 to 3.
    pub(super) fn is_index_ty(&self, ty: &Ty) -> bool {
        match self.infer.shallow(ty) {
            Ty::Array(elem, Len::Lit(n)) => {
                (1..=3).contains(&n) && self.infer.shallow(&elem) == Ty::USIZE
            }
            _ => false,
        }
    }

    /// `Index::new([i, j])`, `Extent::new([..])` (also through a path, `amp::Index::new`):
    /// the array itself, typed `[usize; N]`. `None` when the call is not one of these.
    pub(super) fn index_call(&mut self, c: &syn::ExprCall, segs: &[String]) -> Option<Expr> {
        let [.., ty, ctor] = segs else { return None };
        if !(ty == "Index" || ty == "Extent") || ctor != "new" {
            return None;
        }
        let span = c.span();
        let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a)).collect();
        let rank = match args.as_slice() {
            [arg] => self.index_rank(&arg.ty),
            _ => None,
        };
        let Some(rank) = rank else {
            if args.iter().any(|a| self.infer.shallow(&a.ty) == Ty::Never) {
                return Some(Self::error_expr(span));
            }
            self.err(
                Diagnostic::error(
                    Rule::BuiltinFunctions,
                    span,
                    format!("`{ty}::new` takes one array of 1 to 3 `usize` components"),
                )
                .with_help(format!("write `{ty}::new([i, j])` with `usize` components")),
            );
            return Some(Self::error_expr(span));
        };
        let Some(arg) = args.into_iter().next() else {
            return Some(self.internal(span, "the arity was checked above"));
        };
        let want = Ty::array(Ty::USIZE, rank);
        self.expect_ty(&want, &arg, &format!("in this `{ty}::new`"));
        Some(Expr {
            kind: arg.kind,
            ty: want,
            span,
        })
    }

    /// A binary operator with an index operand (see [`has_index_operand`](Self::has_index_operand));
    /// errors point at `op_span`.
    pub(super) fn index_binary(
        &mut self,
        op: BinOp,
        l: Expr,
        r: Expr,
        op_span: Span,
        span: Span,
    ) -> Expr {
        let symbol = op_symbol(op);
        let (lr, rr) = (self.index_rank(&l.ty), self.index_rank(&r.ty));
        let describe = |c: &Self, e: &Expr, rank: Option<u32>| match rank {
            Some(n) => format!("Index<{n}>"),
            None => c.infer.describe(&e.ty),
        };
        let (lt, rt) = (describe(self, &l, lr), describe(self, &r, rr));
        let arithmetic = matches!(
            op,
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem
        );
        if matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) {
            self.err(
                Diagnostic::error(
                    Rule::OperandTypes,
                    op_span,
                    format!("cannot apply `{symbol}` to `{lt}` and `{rt}`: indices have no order"),
                )
                .with_help("as in C++ AMP, indices compare with `==` and `!=` only; compare components (`idx[0] < n`)"),
            );
            return Self::error_expr(span);
        }
        if !arithmetic && !matches!(op, BinOp::Eq | BinOp::Ne) {
            self.err(
                Diagnostic::error(
                    Rule::OperandTypes,
                    op_span,
                    format!("cannot apply `{symbol}` to `{lt}` and `{rt}`"),
                )
                .with_help("indices take `+ - * / %` (with an index of the same rank or a `usize`), `==` and `!=`; apply other operators to components (`idx[0] & 1`)"),
            );
            return Self::error_expr(span);
        }
        if lr.is_some() && rr.is_some() && matches!(op, BinOp::Mul | BinOp::Div | BinOp::Rem) {
            self.err(
                Diagnostic::error(
                    Rule::OperandTypes,
                    op_span,
                    format!("cannot apply `{symbol}` to `{lt}` and `{rt}`"),
                )
                .with_help(format!("as in C++ AMP, an index takes `{symbol}` with a `usize` (`idx {symbol} 2`); two indices add and subtract only, or combine their components")),
            );
            return Self::error_expr(span);
        }
        let rank = match (lr, rr) {
            (Some(a), Some(b)) if a == b => a,
            (Some(a), None) | (None, Some(a)) if arithmetic => {
                let scalar = if lr.is_some() { &r } else { &l };
                if self.infer.unify(&Ty::USIZE, &scalar.ty).is_none() {
                    self.err(
                        Diagnostic::error(
                            Rule::OperandTypes,
                            op_span,
                            format!("mismatched types: cannot apply `{symbol}` to `{lt}` and `{rt}`"),
                        )
                        .with_help("an index combines with an index of the same rank or with a `usize` (convert with `as usize`)"),
                    );
                    return Self::error_expr(span);
                }
                a
            }
            _ => {
                let help = if lr.is_some() && rr.is_some() {
                    "indices of different ranks do not combine; build one of the other's rank (`Index::new([i, j])`)"
                } else if arithmetic {
                    "an index combines with an index of the same rank or with a `usize`"
                } else {
                    "an index compares with an index of the same rank; compare components to compare with a `usize` (`idx[0] == n`)"
                };
                self.err(
                    Diagnostic::error(
                        Rule::OperandTypes,
                        op_span,
                        format!("mismatched types: cannot apply `{symbol}` to `{lt}` and `{rt}`"),
                    )
                    .with_help(help),
                );
                return if op.is_comparison() {
                    Expr {
                        ty: Ty::BOOL,
                        ..Self::error_expr(span)
                    }
                } else {
                    Self::error_expr(span)
                };
            }
        };
        let index_ty = Ty::array(Ty::USIZE, rank);
        for (side, is_index) in [(&l, lr.is_some()), (&r, rr.is_some())] {
            if is_index {
                // Settles an array literal's `{integer}` elements as `usize`.
                self.infer.unify(&index_ty, &side.ty);
            }
        }
        let mut stmts = Vec::new();
        // A local on the left is read after the right operand ran, so it is copied first unless
        // the right operand cannot change it.
        let right_is_plain = plain(&r, true);
        let lv = self.once(l, right_is_plain, &mut stmts);
        let rv = self.once(r, true, &mut stmts);
        let component = |e: &Expr, is_index: bool, d: u32| {
            if !is_index {
                return e.clone();
            }
            if let ExprKind::ArrayList(parts) = &e.kind {
                // `Index::new([i, j])`: its own components, not elements of a new array.
                return parts[d as usize].clone();
            }
            Expr {
                kind: ExprKind::Element(
                    Box::new(e.clone()),
                    Box::new(Expr {
                        kind: ExprKind::Lit(Lit::Int(u128::from(d))),
                        ty: Ty::USIZE,
                        span: e.span,
                    }),
                ),
                ty: Ty::USIZE,
                span: e.span,
            }
        };
        let parts: Vec<Expr> = (0..rank)
            .map(|d| {
                let (a, b) = (
                    component(&lv, lr.is_some(), d),
                    component(&rv, rr.is_some(), d),
                );
                Expr {
                    kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
                    ty: if arithmetic { Ty::USIZE } else { Ty::BOOL },
                    span,
                }
            })
            .collect();
        let (tail, ty) = if arithmetic {
            (
                Expr {
                    kind: ExprKind::ArrayList(parts),
                    ty: index_ty.clone(),
                    span,
                },
                index_ty,
            )
        } else {
            let logic = if op == BinOp::Eq {
                LogicOp::And
            } else {
                LogicOp::Or
            };
            let folded = parts
                .into_iter()
                .reduce(|acc, p| Expr {
                    kind: ExprKind::Logic(logic, Box::new(acc), Box::new(p)),
                    ty: Ty::BOOL,
                    span,
                })
                .unwrap_or_else(|| Self::error_expr(span));
            (folded, Ty::BOOL)
        };
        if stmts.is_empty() {
            return tail;
        }
        Expr {
            kind: ExprKind::Block(Block {
                stmts,
                tail: Some(Box::new(tail)),
            }),
            ty,
            span,
        }
    }

    /// `e` as an expression that can be read several times without evaluating `e` again: a
    /// literal (and a local, when `keep_local`) as it is, anything else stored in a hidden local
    /// by a `let` added to `stmts`.
    fn once(&mut self, e: Expr, keep_local: bool, stmts: &mut Vec<Stmt>) -> Expr {
        if plain(&e, keep_local) {
            return e;
        }
        let id = self.hidden("#index_operand", e.ty.clone());
        let (ty, span) = (e.ty.clone(), e.span);
        stmts.push(Stmt::Let(id, Some(e)));
        Expr {
            kind: ExprKind::Local(id),
            ty,
            span,
        }
    }
}

/// Whether `e` can be read once per component instead of once in all: it has no side effects
/// and reads locals only where `keep_local` (nothing evaluated after it can change them).
/// Literals, locals, `Index::new([i, 1])` of such components, and an earlier index operation's
/// components (elements of locals, operators on them).
fn plain(e: &Expr, keep_local: bool) -> bool {
    match &e.kind {
        ExprKind::Lit(_) => true,
        ExprKind::Local(_) => keep_local,
        ExprKind::ArrayList(parts) => parts.iter().all(|p| plain(p, keep_local)),
        ExprKind::Element(base, k) => plain(base, keep_local) && plain(k, keep_local),
        ExprKind::Binary(_, a, b) => plain(a, keep_local) && plain(b, keep_local),
        _ => false,
    }
}
