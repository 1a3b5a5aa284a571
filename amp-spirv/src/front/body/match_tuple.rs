//! `match` on a tuple of integers and `bool`s (`match (a % 3, b) { (0, true) => .., (_, false)
//! => .., _ => .. }`): each component's pattern is one of `match`'s scalar patterns (literal,
//! range, constant, `|`, `_`) or a name bound to the component; top-level `|` joins patterns
//! without names. As the scalar `match`, it becomes an `if` chain over a hidden local holding
//! the scrutinee, so nothing downstream knows `match`.
//!
//! Rust accepts a tuple `match` whose arms cover every combination of values; the kernel
//! language asks for an arm that matches every value (`_`, a name, or a tuple of them), which
//! rustc's rules then also accept. A `match` without one is refused with that help.

use super::matching::if_chain;
use super::vector::member_expr;
use super::*;
use crate::ir::build::{local, logic};

/// A name a tuple pattern binds: to component `index`.
struct ComponentBinding {
    name: String,
    mutable: bool,
    index: u32,
}

impl BodyChecker<'_> {
    /// `match` on the tuple `scrutinee` of component types `items` (each an integer or `bool`).
    pub(super) fn tuple_match(
        &mut self,
        m: &syn::ExprMatch,
        scrutinee: Expr,
        items: Vec<Ty>,
        span: Span,
    ) -> Expr {
        let ty = scrutinee.ty.clone();
        let scrutinee_span = scrutinee.span;
        let value = self.hidden_immutable("#match", ty.clone());
        let whole = local(value, ty.clone(), scrutinee_span);
        let reads: Vec<Expr> = items
            .iter()
            .enumerate()
            .map(|(k, t)| member_expr(whole.clone(), t.clone(), k as u32, scrutinee_span))
            .collect();
        let mut arms: Vec<(Option<Expr>, Block, Span)> = Vec::new();
        let mut catch_all = false;
        let mut result_ty = Ty::Never;
        let before = self.deferred.save();
        let mut ends = Vec::new();
        for arm in &m.arms {
            let arm_span = arm.pat.span();
            self.scopes.push(Vec::new());
            let (cond, bindings) = self.tuple_pattern(&arm.pat, &reads, items.len());
            if arm.guard.is_none() && matches!(cond, Ok(None)) {
                catch_all = true;
            }
            let mut cond = cond.unwrap_or_else(|()| Some(Self::error_expr(arm_span)));
            // The names, for the guard (immutable copies) and then for the body.
            let declare = |this: &mut Self, mutable_too: bool| -> Vec<Stmt> {
                bindings
                    .iter()
                    .map(|b| {
                        let item = reads[b.index as usize].clone();
                        let id = this.declare(&b.name, item.ty.clone(), b.mutable && mutable_too);
                        Stmt::Let(id, Some(item))
                    })
                    .collect()
            };
            if let Some((_, guard)) = &arm.guard {
                let lets = declare(self, false);
                let g = self.expr(guard);
                self.expect_ty(&Ty::BOOL, &g, "in this `match` guard");
                let g = Expr {
                    span: g.span,
                    ty: Ty::BOOL,
                    kind: ExprKind::Block(Block {
                        stmts: lets,
                        tail: Some(Box::new(g)),
                    }),
                };
                cond = Some(match cond {
                    Some(c) => logic(LogicOp::And, c, g),
                    None => g,
                });
            }
            let stmts = declare(self, true);
            let body = self.expr(&arm.body);
            self.unify_arm(&mut result_ty, &body);
            self.scopes.pop();
            ends.push(self.deferred.restart(before.clone()));
            let unguarded_catch_all = arm.guard.is_none() && cond.is_none();
            arms.push((
                cond,
                Block {
                    stmts,
                    tail: Some(Box::new(body)),
                },
                arm_span,
            ));
            if unguarded_catch_all {
                break;
            }
        }
        self.join_arm_ends(ends);
        if !catch_all {
            self.err(
                Diagnostic::error(
                    Rule::MatchPatterns,
                    scrutinee_span,
                    "a `match` on a tuple in a kernel needs an arm that matches every value",
                )
                .with_help("end with `_ => ...` (or `(_, _) => ...`, or names for the components)"),
            );
            return Self::error_expr(span);
        }
        if_chain(value, scrutinee, arms, result_ty, span)
    }

    /// An arm's pattern over the components `reads`: its condition (`Ok(None)`: every value)
    /// and the names it binds; `Err(())` after an error.
    fn tuple_pattern(
        &mut self,
        pat: &syn::Pat,
        reads: &[Expr],
        n: usize,
    ) -> (Result<Option<Expr>, ()>, Vec<ComponentBinding>) {
        let span = pat.span();
        match pat {
            syn::Pat::Wild(_) => (Ok(None), Vec::new()),
            syn::Pat::Paren(p) => self.tuple_pattern(&p.pat, reads, n),
            syn::Pat::Or(o) => {
                let mut any: Option<Expr> = None;
                for alt in &o.cases {
                    let (cond, bindings) = self.tuple_pattern(alt, reads, n);
                    if !bindings.is_empty() {
                        self.err(
                            Diagnostic::error(
                                Rule::MatchPatterns,
                                alt.span(),
                                "names inside `|` of tuple patterns are not supported in kernels",
                            )
                            .with_help("give each alternative an arm of its own"),
                        );
                        // Declared all the same, so their uses report nothing more.
                        for b in &bindings {
                            self.declare(&b.name, Ty::Never, false);
                        }
                        return (Err(()), Vec::new());
                    }
                    match cond {
                        Err(()) => return (Err(()), Vec::new()),
                        Ok(None) => return (Ok(None), Vec::new()),
                        Ok(Some(c)) => {
                            any = Some(match any {
                                Some(a) => logic(LogicOp::Or, a, c),
                                None => c,
                            })
                        }
                    }
                }
                (Ok(any), Vec::new())
            }
            syn::Pat::Tuple(t) if t.elems.len() == n => {
                let mut all: Option<Expr> = None;
                let mut bindings = Vec::new();
                for (k, elem) in t.elems.iter().enumerate() {
                    let read = &reads[k];
                    let cases = match elem {
                        syn::Pat::Ident(p)
                            if p.by_ref.is_none()
                                && p.subpat.is_none()
                                && !self.is_const_pattern(p) =>
                        {
                            bindings.push(ComponentBinding {
                                name: p.ident.to_string(),
                                mutable: p.mutability.is_some(),
                                index: k as u32,
                            });
                            continue;
                        }
                        other => self.scalar_cases(other, read),
                    };
                    let Some(cases) = cases else {
                        return (Err(()), Vec::new());
                    };
                    if let Some(c) = cases {
                        all = Some(match all {
                            Some(a) => logic(LogicOp::And, a, c),
                            None => c,
                        });
                    }
                }
                (Ok(all), bindings)
            }
            syn::Pat::Tuple(t) => {
                self.err(Diagnostic::error(
                    Rule::MatchPatterns,
                    span,
                    format!(
                        "this tuple pattern has {} components, the value has {n}",
                        t.elems.len()
                    ),
                ));
                (Err(()), Vec::new())
            }
            syn::Pat::Ident(p) if p.subpat.is_none() && !self.is_const_pattern(p) => {
                self.err(
                    Diagnostic::error(
                        Rule::MatchPatterns,
                        p.ident.span(),
                        "a name for a whole tuple is not supported in `match` patterns in kernels",
                    )
                    .with_help("name the components (`(a, b) => ...`), or match `_`"),
                );
                (Err(()), Vec::new())
            }
            _ => {
                self.err(
                    Diagnostic::error(
                        Rule::MatchPatterns,
                        span,
                        "a `match` on a tuple takes tuple patterns, `_` and `|` of them",
                    )
                    .with_help("write `(pattern, pattern) => ...`"),
                );
                (Err(()), Vec::new())
            }
        }
    }
}
