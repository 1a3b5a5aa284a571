//! Tuples: `(a, b)` values, `t.0` components, `let (a, b) = value;` destructuring (nested
//! too), as locals, in `if` and `match` arms and as device functions' parameters and results.
//!
//! A tuple is a value of type [`Ty::Tuple`]: an [`ExprKind::ArrayList`] of its components, a
//! component an [`ExprKind::Element`] with a literal index, as struct fields are; both back
//! ends hold it as a composite (an `OpTypeStruct`, a Rust tuple). It never reaches a buffer.

use super::vector::member_expr;
use super::*;
use crate::ir::build::local;

impl BodyChecker<'_> {
    /// `x.overflowing_add(y)` and its kin: the wrapped result and whether it wrapped, as Rust
    /// computes them, written with the kernel's wrapping operators over the operands, each
    /// evaluated once.
    pub(super) fn overflowing_method(
        &mut self,
        m: &syn::ExprMethodCall,
        method: &str,
    ) -> Option<Expr> {
        let op = method.strip_prefix("overflowing_")?;
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        let takes_arg = op != "neg";
        if !matches!(op, "add" | "sub" | "mul" | "neg" | "shl" | "shr") {
            return None;
        }
        let span = m.span();
        let at = m.method.span();
        if args.len() != usize::from(takes_arg) {
            self.err(Diagnostic::error(
                Rule::BuiltinFunctions,
                Span::from(at),
                format!(
                    "`{method}` takes {} argument{}",
                    usize::from(takes_arg),
                    if takes_arg { "" } else { "s" }
                ),
            ));
            return Some(Self::error_expr(span));
        }
        let mut stmts = Vec::new();
        self.scopes.push(Vec::new());
        let lhs = self.expr(&m.receiver);
        let lhs_ty = lhs.ty.clone();
        let a = self.declare("__amp_lhs", lhs_ty.clone(), false);
        stmts.push(Stmt::Let(a, Some(lhs)));
        if let Some(arg) = args.first() {
            let rhs = self.expr(arg);
            if matches!(op, "shl" | "shr") {
                self.expect_ty(&Ty::Scalar(Scalar::U32), &rhs, "in this shift amount");
            } else {
                self.expect_ty(&lhs_ty, &rhs, &format!("in this `{method}`"));
            }
            let b = self.declare("__amp_rhs", rhs.ty.clone(), false);
            stmts.push(Stmt::Let(b, Some(rhs)));
        }
        let ty = self.infer.shallow(&lhs_ty);
        let signed = match ty {
            Ty::Scalar(s) if s.is_int() => s.is_signed_int(),
            Ty::Var(_) if self.infer.class(&ty) == Class::Int => true,
            Ty::Never => {
                self.scopes.pop();
                return Some(Self::error_expr(span));
            }
            _ => {
                self.scopes.pop();
                let t = self.infer.describe(&ty);
                self.err(
                    Diagnostic::error(
                        Rule::BuiltinFunctions,
                        Span::from(at),
                        format!("`{method}` is an integer method; `{t}` has no `{method}`"),
                    )
                    .with_help(
                        "Rust's overflowing methods work on integers (`i8` to `u32`, `usize`)",
                    ),
                );
                return Some(Self::error_expr(span));
            }
        };
        // The receiver's type and width (`i32` for a literal that nothing settles).
        let scalar = ty.scalar().filter(|s| s.is_int()).unwrap_or(Scalar::I32);
        let t = quote::format_ident!("{}", scalar.name());
        let width = scalar.bits();
        let value: syn::Expr = match (op, signed) {
            ("add", false) => syn::parse_quote_spanned!(at=> {
                let __amp_r = __amp_lhs + __amp_rhs; (__amp_r, __amp_r < __amp_lhs)
            }),
            ("add", true) => syn::parse_quote_spanned!(at=> {
                let __amp_r = __amp_lhs + __amp_rhs;
                (__amp_r, ((__amp_lhs ^ __amp_r) & (__amp_rhs ^ __amp_r)) < 0)
            }),
            ("sub", false) => syn::parse_quote_spanned!(at=> {
                (__amp_lhs - __amp_rhs, __amp_lhs < __amp_rhs)
            }),
            ("sub", true) => syn::parse_quote_spanned!(at=> {
                let __amp_r = __amp_lhs - __amp_rhs;
                (__amp_r, ((__amp_lhs ^ __amp_rhs) & (__amp_lhs ^ __amp_r)) < 0)
            }),
            ("mul", false) => syn::parse_quote_spanned!(at=> {
                let __amp_r = __amp_lhs * __amp_rhs;
                (__amp_r, __amp_lhs != 0 && __amp_r / __amp_lhs != __amp_rhs)
            }),
            // `MIN * -1` wraps to `MIN`, whose quotient by -1 the test cannot trust.
            ("mul", true) => syn::parse_quote_spanned!(at=> {
                let __amp_r = __amp_lhs * __amp_rhs;
                (__amp_r, (__amp_lhs == -1 && __amp_rhs == #t::MIN)
                    || (__amp_lhs != 0 && __amp_lhs != -1 && __amp_r / __amp_lhs != __amp_rhs))
            }),
            ("neg", false) => syn::parse_quote_spanned!(at=> (!__amp_lhs + 1, __amp_lhs != 0)),
            ("neg", true) => {
                syn::parse_quote_spanned!(at=> (!__amp_lhs + 1, __amp_lhs == #t::MIN))
            }
            ("shl", _) => {
                syn::parse_quote_spanned!(at=> (__amp_lhs << __amp_rhs, __amp_rhs >= #width))
            }
            _ => syn::parse_quote_spanned!(at=> (__amp_lhs >> __amp_rhs, __amp_rhs >= #width)),
        };
        let value = self.expr(&value);
        self.scopes.pop();
        let ty = value.ty.clone();
        Some(Expr {
            kind: ExprKind::Block(Block {
                stmts,
                tail: Some(Box::new(value)),
            }),
            ty,
            span,
        })
    }

    /// `(a, b, ..)`.
    pub(super) fn tuple_expr(&mut self, t: &syn::ExprTuple) -> Expr {
        let span = t.span();
        let mut items = Vec::with_capacity(t.elems.len());
        for e in &t.elems {
            let item = self.expr(e);
            if self.infer.shallow(&item.ty) == Ty::Unit {
                self.err(
                    Diagnostic::error(
                        Rule::TupleTypes,
                        item.span,
                        "a tuple in a kernel holds values, not `()`",
                    )
                    .with_help("leave the `()` out"),
                );
            }
            items.push(item);
        }
        let ty = Ty::Tuple(items.iter().map(|i| i.ty.clone()).collect());
        Expr {
            kind: ExprKind::ArrayList(items),
            ty,
            span,
        }
    }

    /// The index and type of a tuple's component `member` (`t.1`), reporting a wrong one.
    pub(super) fn tuple_member(&mut self, items: &[Ty], member: &syn::Member) -> Option<(u32, Ty)> {
        if let syn::Member::Unnamed(i) = member {
            if let Some(ty) = items.get(i.index as usize) {
                return Some((i.index, ty.clone()));
            }
        }
        let name = match member {
            syn::Member::Named(id) => id.to_string(),
            syn::Member::Unnamed(i) => i.index.to_string(),
        };
        let ty = self.infer.describe(&Ty::Tuple(items.to_vec()));
        self.err(
            Diagnostic::error(
                Rule::TupleTypes,
                member.span(),
                format!("no field `{name}` on type `{ty}`"),
            )
            .with_help(format!(
                "a tuple of {} has the fields `0` to `{}`",
                items.len(),
                items.len().saturating_sub(1)
            )),
        );
        None
    }

    /// `let (a, b, ..) = value;` for a tuple value of any form: the value is evaluated once
    /// into a hidden local, then each pattern is bound to its component (nested patterns in
    /// turn). `declared` is the annotation's type, if there is one.
    pub(super) fn bind_tuple(
        &mut self,
        pt: &syn::PatTuple,
        declared: Option<Ty>,
        init: Expr,
        stmts: &mut Vec<Stmt>,
    ) {
        let span = init.span;
        let ty = match &declared {
            Some(d) => self.expect_ty(d, &init, "in this `let`"),
            None => init.ty.clone(),
        };
        let items = match self.infer.shallow(&ty) {
            Ty::Tuple(items) if items.len() == pt.elems.len() => items,
            Ty::Never => vec![Ty::Never; pt.elems.len()],
            other => {
                let found = self.infer.describe(&other);
                self.err(
                    Diagnostic::error(
                        Rule::LetPatterns,
                        pt.span(),
                        format!(
                            "mismatched types: this pattern takes a tuple of {}, found `{found}`",
                            pt.elems.len()
                        ),
                    )
                    .with_help("the pattern has one name per component of the value"),
                );
                vec![Ty::Never; pt.elems.len()]
            }
        };
        let whole = self.hidden_immutable("#tuple", ty.clone());
        stmts.push(Stmt::Let(whole, Some(init)));
        for (k, (pat, item_ty)) in pt.elems.iter().zip(items).enumerate() {
            let item = member_expr(local(whole, ty.clone(), span), item_ty, k as u32, span);
            match pat {
                syn::Pat::Tuple(inner) => self.bind_tuple(inner, None, item, stmts),
                _ => self.bind(pat, None, Some(item), stmts),
            }
        }
    }
}
