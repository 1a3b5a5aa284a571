//! Array repeat expressions, `[x; n]`: `n` a literal, or a `const` item or const-generic
//! parameter, as an array type's length may be.
//!
//! A literal length is one IR expression ([`ExprKind::ArrayRepeat`]). A named length is a
//! specialization constant on the device, which no single instruction can repeat a value by,
//! so the repeat is written here, once, as the Rust it means: the value evaluated once, an
//! array of the length, and a loop storing the value at every index. Both back ends and the
//! analyses then see an ordinary loop (a device with a loop limit watches it like any other
//! loop with a bound that is not a literal). An all-zero value (`[0.0; N]`, `[0; N]`,
//! `[false; N]`, the most common) needs no loop: a declared array starts zeroed.

use super::*;
use crate::ir::build::local;

impl BodyChecker<'_> {
    /// `[x; n]`.
    pub(super) fn array_repeat(&mut self, r: &syn::ExprRepeat, span: Span) -> Expr {
        let value = self.expr(&r.expr);
        let len = match self.array_len(&r.len) {
            Ok(len) => len,
            Err(d) => {
                self.err(d);
                return Self::error_expr(span);
            }
        };
        let ty = Ty::Array(Box::new(value.ty.clone()), len.clone());
        let (index, name) = match len {
            Len::Lit(n) => {
                return Expr {
                    kind: ExprKind::ArrayRepeat(Box::new(value), n),
                    ty,
                    span,
                }
            }
            Len::Const(index, name) => (index as usize, name),
        };
        // `{ let v = value; let a: [T; N]; for i in 0..N { a[i] = v; } a }`
        let array = self.hidden(&format!("#repeat of {name}"), ty.clone());
        let mut stmts = vec![Stmt::Let(array, None)];
        if !is_zero_literal(&value) {
            let item_ty = value.ty.clone();
            let item = self.hidden_immutable("#repeated", item_ty.clone());
            stmts.insert(0, Stmt::Let(item, Some(value)));
            let var = self.hidden_immutable("#i", Ty::USIZE);
            let store = Expr {
                kind: ExprKind::Assign(
                    Place::Local(array, vec![local(var, Ty::USIZE, span)]),
                    Box::new(local(item, item_ty, span)),
                ),
                ty: Ty::Unit,
                span,
            };
            let fill = RangeLoop {
                var,
                counter: self.hidden("#counter", Ty::USIZE),
                done: self.hidden("#done", Ty::BOOL),
                start: Box::new(Expr {
                    kind: ExprKind::Lit(Lit::Int(0)),
                    ty: Ty::USIZE,
                    span,
                }),
                end: Box::new(Expr {
                    kind: ExprKind::OuterConst(index),
                    ty: Ty::USIZE,
                    span,
                }),
                inclusive: false,
                step: None,
                body: Block {
                    stmts: vec![Stmt::Expr(store)],
                    tail: None,
                },
            };
            stmts.push(Stmt::Expr(Expr {
                kind: ExprKind::For(Box::new(fill)),
                ty: Ty::Unit,
                span,
            }));
        }
        Expr {
            kind: ExprKind::Block(Block {
                stmts,
                tail: Some(Box::new(local(array, ty.clone(), span))),
            }),
            ty,
            span,
        }
    }
}

/// Whether `e` is a literal whose bits are all zero: `0`, `0.0` (not `-0.0`, a negation),
/// `false`.
fn is_zero_literal(e: &Expr) -> bool {
    match e.kind {
        ExprKind::Lit(Lit::Int(0)) | ExprKind::Lit(Lit::Bool(false)) => true,
        ExprKind::Lit(Lit::Float(v, _)) => v.to_bits() == 0,
        _ => false,
    }
}
