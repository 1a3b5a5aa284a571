//! Control flow: `if`, `while`, `loop`, `for` over integer ranges, `break`, `continue` and
//! `return`.

use super::*;

impl BodyChecker<'_> {
    pub(super) fn if_expr(&mut self, i: &syn::ExprIf) -> Expr {
        let span = i.span();
        if let syn::Expr::Let(l) = &*i.cond {
            self.err(
                Diagnostic::error(
                    Rule::NoMatch,
                    l.span(),
                    "`if let` is not supported in kernels",
                )
                .with_help("use a plain `if`"),
            );
            return Self::error_expr(span);
        }
        let cond = self.expr(&i.cond);
        self.expect_ty(&Ty::BOOL, &cond, "in this `if` condition");
        let before = self.deferred.save();
        let then = self.block(&i.then_branch);
        let then_ty = self.block_ty(&then);
        let after_then = self.deferred.restart(before);
        let (els, ty) = match &i.else_branch {
            None => {
                if self.infer.unify(&then_ty, &Ty::Unit).is_none() {
                    let t = self.infer.describe(&then_ty);
                    self.err(
                        Diagnostic::error(
                            Rule::BranchAndConditionTypes,
                            i.then_branch.span(),
                            format!("`if` without `else` cannot produce a value (this is `{t}`)"),
                        )
                        .with_help("add an `else` branch, or end the expression with `;`"),
                    );
                    // Reported: `!` keeps `let v = if c { 1.0 };` from cascading.
                    (None, Ty::Never)
                } else {
                    (None, Ty::Unit)
                }
            }
            Some((_, e)) => {
                let els = self.expr(e);
                let ty = match self.infer.unify(&then_ty, &els.ty) {
                    Some(t) => t,
                    None => {
                        let (a, b) = (self.infer.describe(&then_ty), self.infer.describe(&els.ty));
                        self.err(
                            Diagnostic::error(
                                Rule::BranchAndConditionTypes,
                                span,
                                format!("`if` and `else` have different types: `{a}` and `{b}`"),
                            )
                            .with_help(
                                "both branches must produce the same type; convert one with `as`",
                            ),
                        );
                        Ty::Never
                    }
                };
                (Some(Box::new(els)), ty)
            }
        };
        self.deferred.join(after_then);
        Expr {
            kind: ExprKind::If(Box::new(cond), then, els),
            ty,
            span,
        }
    }

    /// `while cond { .. }`.
    pub(super) fn while_loop(&mut self, w: &syn::ExprWhile, span: Span) -> Expr {
        if let Some(l) = &w.label {
            return self.unsupported_label(l.span());
        }
        // As in Rust (E0590), `break` and `continue` in the condition cannot refer to an
        // enclosing loop: hide the enclosing loops while checking it.
        let outer = std::mem::take(&mut self.loops);
        self.while_conditions += 1;
        let before = self.deferred.save();
        self.deferred.enter_loop();
        let cond = self.expr(&w.cond);
        self.deferred.leave_loop();
        self.while_conditions -= 1;
        self.loops = outer;
        self.expect_ty(&Ty::BOOL, &cond, "in this `while` condition");
        let body = self.loop_body(&w.body);
        self.deferred.restart(before);
        Expr {
            kind: ExprKind::While(Box::new(cond), body.0),
            ty: Ty::Unit,
            span,
        }
    }

    /// `loop { .. }`: of type `!` unless a `break` leaves it.
    pub(super) fn loop_expr(&mut self, l: &syn::ExprLoop, span: Span) -> Expr {
        if let Some(l) = &l.label {
            return self.unsupported_label(l.span());
        }
        let (body, has_break) = self.loop_body(&l.body);
        Expr {
            kind: ExprKind::Loop(body),
            ty: if has_break { Ty::Unit } else { Ty::Never },
            span,
        }
    }

    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop) -> Expr {
        let span = f.span();
        if let Some(l) = &f.label {
            return self.unsupported_label(l.span());
        }
        let (pat_name, pat_mut) = match &*f.pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                (p.ident.to_string(), p.mutability.is_some())
            }
            syn::Pat::Wild(_) => ("_".to_string(), false),
            other => {
                self.err(Diagnostic::error(
                    Rule::ForRanges,
                    other.span(),
                    "a `for` loop variable must be a plain name",
                ));
                return Self::error_expr(span);
            }
        };
        // `(a..b).step_by(s)`
        let (range_expr, step) = match strip(&f.expr) {
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let s = self.expr(&m.args[0]);
                self.expect_ty(&Ty::USIZE, &s, "in this `step_by`");
                if let ExprKind::Lit(Lit::Int(0)) = s.kind {
                    self.err(
                        Diagnostic::error(
                            Rule::ForRanges,
                            s.span,
                            "`step_by(0)` would loop forever",
                        )
                        .with_help("use a step of at least 1"),
                    );
                }
                (strip(&m.receiver), Some(Box::new(s)))
            }
            other => (other, None),
        };
        let syn::Expr::Range(range) = range_expr else {
            self.err(
                Diagnostic::error(
                    Rule::ForRanges,
                    f.expr.span(),
                    "`for` loops in kernels iterate over integer ranges only",
                )
                .with_help(
                    "write `for i in a..b`, `for i in a..=b` or `for i in (a..b).step_by(s)`",
                ),
            );
            return Self::error_expr(span);
        };
        let (Some(start), Some(end)) = (&range.start, &range.end) else {
            self.err(Diagnostic::error(
                Rule::ForRanges,
                range.span(),
                "a `for` range needs a start and an end",
            ));
            return Self::error_expr(span);
        };
        let start = self.expr(start);
        let end = self.expr(end);
        let ty = self.expect_ty(&start.ty, &end, "in this range");
        if !matches!(self.infer.class(&ty), Class::Int | Class::Never) {
            let t = self.infer.describe(&ty);
            self.err(
                Diagnostic::error(
                    Rule::ForRanges,
                    range.span(),
                    format!("cannot iterate over a range of `{t}`"),
                )
                .with_help("ranges in kernels are over integers"),
            );
        }
        let inclusive = matches!(range.limits, syn::RangeLimits::Closed(_));
        let counter = self.hidden("#counter", ty.clone());
        let done = self.hidden("#done", Ty::BOOL);
        self.scopes.push(Vec::new());
        let var = self.declare(&pat_name, ty, pat_mut);
        let (body, _) = self.loop_body(&f.body);
        self.scopes.pop();
        let range = RangeLoop {
            var,
            counter,
            done,
            start: Box::new(start),
            end: Box::new(end),
            inclusive,
            step,
            body,
        };
        Expr {
            kind: ExprKind::For(Box::new(range)),
            ty: Ty::Unit,
            span,
        }
    }

    fn loop_body(&mut self, body: &syn::Block) -> (Block, bool) {
        self.loops.push(LoopFrame { has_break: false });
        // Nothing a loop assigns reaches the code after it: a deferred local from outside
        // cannot be assigned in it, and the body's own go out of scope.
        let before = self.deferred.save();
        self.deferred.enter_loop();
        let block = self.block(body);
        self.deferred.leave_loop();
        self.deferred.restart(before);
        // The frame pushed above: whether the body breaks (assumed so if it were missing).
        let has_break = self.loops.pop().is_none_or(|frame| frame.has_break);
        if let Some(t) = &block.tail {
            if self.infer.unify(&t.ty, &Ty::Unit).is_none() {
                self.err(
                    Diagnostic::error(
                        Rule::NoValuesOut,
                        t.span,
                        "a loop body cannot produce a value",
                    )
                    .with_help("add `;`"),
                );
            }
        }
        (block, has_break)
    }

    /// `break`, without a label or a value.
    pub(super) fn break_expr(&mut self, b: &syn::ExprBreak, span: Span) -> Expr {
        if let Some(l) = &b.label {
            return self.unsupported_label(l.span().into());
        }
        if let Some(v) = &b.expr {
            self.err(
                Diagnostic::error(
                    Rule::LoopExits,
                    v.span(),
                    "`break` with a value is not supported in kernels",
                )
                .with_help("assign the value to a variable declared before the loop, then `break`"),
            );
        }
        match self.loops.last_mut() {
            // A `break` with a value was reported above; leaving the loop typed `!`
            // keeps `let v = loop { break 5; };` from cascading into more errors.
            Some(frame) => frame.has_break |= b.expr.is_none(),
            None => self.err(self.outside_loop(span, "break")),
        }
        self.deferred.diverge();
        Expr {
            kind: ExprKind::Break,
            ty: Ty::Never,
            span,
        }
    }

    /// `continue`, without a label.
    pub(super) fn continue_expr(&mut self, c: &syn::ExprContinue, span: Span) -> Expr {
        if let Some(l) = &c.label {
            return self.unsupported_label(l.span().into());
        }
        if self.loops.is_empty() {
            self.err(self.outside_loop(span, "continue"));
        }
        self.deferred.diverge();
        Expr {
            kind: ExprKind::Continue,
            ty: Ty::Never,
            span,
        }
    }

    /// `return`: a plain one leaves the kernel; in an inlined device function it leaves the
    /// callee.
    pub(super) fn return_expr(&mut self, r: &syn::ExprReturn, span: Span) -> Expr {
        if let Some(inlined) = self.device_return(r) {
            self.deferred.diverge();
            return inlined;
        }
        if let Some(v) = &r.expr {
            self.err(
                Diagnostic::error(
                    Rule::NoValuesOut,
                    v.span(),
                    "a kernel cannot return a value",
                )
                .with_help("write the value into an `ArrayViewMut` and use a plain `return;`"),
            );
        }
        self.deferred.diverge();
        Expr {
            kind: ExprKind::Return,
            ty: Ty::Never,
            span,
        }
    }

    /// The error for a `break` or `continue` with no loop to leave.
    fn outside_loop(&self, span: Span, keyword: &str) -> Diagnostic {
        if self.while_conditions > 0 {
            Diagnostic::error(Rule::LoopExits, span, format!("`{keyword}` is not allowed in the condition of a `while` loop"))
                .with_help("compute the condition into a variable first, or use `loop` with `if ... { break; }`")
        } else {
            Diagnostic::error(
                Rule::LoopExits,
                span,
                format!("`{keyword}` outside of a loop"),
            )
            .with_help(format!(
                "`{keyword}` can only be used inside `loop`, `while` or `for`"
            ))
        }
    }

    pub(super) fn unsupported_label(&mut self, span: Span) -> Expr {
        self.err(
            Diagnostic::error(
                Rule::LoopExits,
                span,
                "loop labels are not supported in kernels",
            )
            .with_help("use a `bool` flag to leave the outer loop"),
        );
        Self::error_expr(span)
    }
}
