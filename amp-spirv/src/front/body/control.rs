//! Control flow: `if`, `while`, `loop`, `for` over integer ranges, `break`, `continue` and
//! `return`.

use super::*;
use crate::ir::build::{assign, compare, if_then, local, never, u32_lit};

impl BodyChecker<'_> {
    pub(super) fn if_expr(&mut self, i: &syn::ExprIf) -> Expr {
        let span = i.span();
        if let syn::Expr::Let(l) = &*i.cond {
            self.err(
                Diagnostic::error(
                    Rule::MatchPatterns,
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

    /// `while cond { .. }`, labelled or not.
    pub(super) fn while_loop(&mut self, w: &syn::ExprWhile, span: Span) -> Expr {
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
        let (body, frame) = self.loop_body(&w.body, w.label.as_ref(), false);
        self.deferred.restart(before);
        let looped = Expr {
            kind: ExprKind::While(Box::new(cond), body),
            ty: Ty::Unit,
            span,
        };
        self.finish_loop(looped, frame)
    }

    /// `loop { .. }`: of type `!` unless a `break` leaves it, of the `break`s' values' type
    /// when they carry one.
    pub(super) fn loop_expr(&mut self, l: &syn::ExprLoop, span: Span) -> Expr {
        let (body, frame) = self.loop_body(&l.body, l.label.as_ref(), true);
        let ty = if frame.has_break {
            frame.break_ty.clone()
        } else {
            Ty::Never
        };
        let looped = Expr {
            kind: ExprKind::Loop(body),
            ty,
            span,
        };
        self.finish_loop(looped, frame)
    }

    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop) -> Expr {
        let span = f.span();
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
        let (body, frame) = self.loop_body(&f.body, f.label.as_ref(), false);
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
        let looped = Expr {
            kind: ExprKind::For(Box::new(range)),
            ty: Ty::Unit,
            span,
        };
        self.finish_loop(looped, frame)
    }

    /// Checks a loop's body inside a new frame for its `break`s and `continue`s, and returns
    /// the body and the frame.
    fn loop_body(
        &mut self,
        body: &syn::Block,
        label: Option<&syn::Label>,
        is_loop: bool,
    ) -> (Block, LoopFrame) {
        // A label that shadows an enclosing one names the inner loop, as in Rust (which warns).
        self.loops.push(LoopFrame {
            label: label.map(|l| l.name.ident.to_string()),
            is_loop,
            has_break: false,
            break_ty: Ty::Never,
            result: None,
            flag: None,
            exits_to: std::collections::BTreeSet::new(),
            device_returns: self.device_returns(),
        });
        // Nothing a loop assigns reaches the code after it: a deferred local from outside
        // cannot be assigned in it, and the body's own go out of scope.
        let before = self.deferred.save();
        self.deferred.enter_loop();
        let block = self.block(body);
        self.deferred.leave_loop();
        self.deferred.restart(before);
        let frame = self.loops.pop().unwrap_or_else(|| LoopFrame {
            // The frame pushed above is always there; a loop assumed left otherwise.
            has_break: true,
            break_ty: Ty::Unit,
            ..LoopFrame::default()
        });
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
        (block, frame)
    }

    /// `break`, `break 'label`, `break value`, `break 'label value`.
    pub(super) fn break_expr(&mut self, b: &syn::ExprBreak, span: Span) -> Expr {
        let value = b.expr.as_ref().map(|v| self.expr(v));
        let Some(target) = self.jump_target(b.label.as_ref(), span, "break") else {
            self.deferred.diverge();
            return Self::error_expr(span);
        };
        let mut stmts = Vec::new();
        let value_ty = value.as_ref().map_or(Ty::Unit, |v| v.ty.clone());
        if let Some(value) = value {
            if !self.loops[target].is_loop {
                self.err(
                    Diagnostic::error(
                        Rule::LoopExits,
                        value.span,
                        "`break` with a value can only leave a `loop`",
                    )
                    .with_help(
                        "use `loop`, or assign the value to a variable declared before this loop",
                    ),
                );
            } else {
                let result = match self.loops[target].result {
                    Some(r) => r,
                    None => {
                        let r = self.hidden("#break_value", value.ty.clone());
                        self.loops[target].result = Some(r);
                        r
                    }
                };
                stmts.push(Stmt::Expr(assign(result, value)));
            }
        }
        let frame = &mut self.loops[target];
        let before_ty = frame.break_ty.clone();
        frame.has_break = true;
        match self.infer.unify(&before_ty, &value_ty) {
            Some(t) => self.loops[target].break_ty = t,
            None => {
                let (a, b) = (
                    self.infer.describe(&before_ty),
                    self.infer.describe(&value_ty),
                );
                self.err(
                    Diagnostic::error(
                        Rule::LoopExits,
                        span,
                        format!("the `break`s of this loop leave it with different types: `{a}` and `{b}`"),
                    )
                    .with_help("every `break` of a `loop` whose value is used gives a value of the same type"),
                );
                // Reported: the loop's value fits anywhere, so its uses add no errors.
                self.loops[target].break_ty = Ty::Never;
            }
        }
        self.jump(target, JUMP_BREAK, ExprKind::Break, stmts, span)
    }

    /// `continue`, `continue 'label`.
    pub(super) fn continue_expr(&mut self, c: &syn::ExprContinue, span: Span) -> Expr {
        let Some(target) = self.jump_target(c.label.as_ref(), span, "continue") else {
            self.deferred.diverge();
            return Self::error_expr(span);
        };
        self.jump(target, JUMP_CONTINUE, ExprKind::Continue, Vec::new(), span)
    }

    /// The frame a `break` or `continue` leaves: the labelled one, or the innermost.
    fn jump_target(
        &mut self,
        label: Option<&syn::Lifetime>,
        span: Span,
        keyword: &str,
    ) -> Option<usize> {
        match label {
            Some(l) => {
                let name = l.ident.to_string();
                let found = self
                    .loops
                    .iter()
                    .rposition(|f| f.label.as_deref() == Some(name.as_str()));
                if found.is_none() {
                    let help = if self.while_conditions > 0 {
                        "a `while` condition cannot leave the loops around it; compute it into a variable first"
                    } else {
                        "label a loop around this one: `'outer: for i in 0..n { .. }`"
                    };
                    self.err(
                        Diagnostic::error(
                            Rule::LoopExits,
                            Span::from(l.span()),
                            format!("use of undeclared label `'{name}`"),
                        )
                        .with_help(help),
                    );
                }
                found
            }
            None => {
                let found = self.loops.len().checked_sub(1);
                if found.is_none() {
                    self.err(self.outside_loop(span, keyword));
                }
                found
            }
        }
    }

    /// Leaves loop frame `target` with `exit` (`break` or `continue`) after `stmts`. A jump
    /// out of loops nested in the target sets the target's flag and leaves the innermost
    /// loop; each loop it crosses is followed by the check that goes on leaving (SPIR-V's
    /// structured control flow leaves one loop at a time, so both back ends share this form).
    fn jump(
        &mut self,
        target: usize,
        code: u32,
        exit: ExprKind,
        mut stmts: Vec<Stmt>,
        span: Span,
    ) -> Expr {
        let innermost = self.loops.len() - 1;
        let exit = if target < innermost {
            let flag = match self.loops[target].flag {
                Some(f) => f,
                None => {
                    let f = self.hidden("#jump", Ty::Scalar(Scalar::U32));
                    self.loops[target].flag = Some(f);
                    f
                }
            };
            stmts.push(Stmt::Expr(assign(flag, u32_lit(code, span))));
            for frame in &mut self.loops[target + 1..] {
                frame.exits_to.insert(target);
            }
            // Out of the innermost loop first, whatever the jump does to its target.
            ExprKind::Break
        } else {
            exit
        };
        stmts.push(Stmt::Expr(never(exit, span)));
        self.deferred.diverge();
        never(ExprKind::Block(Block { stmts, tail: None }), span)
    }

    /// A checked loop with what its frame asks for around it: its jump flag and its value's
    /// local declared before it, after it the checks that go on leaving the loops a jump from
    /// inside it leaves (labelled jumps, a device function's `return`), then its value.
    fn finish_loop(&mut self, looped: Expr, frame: LoopFrame) -> Expr {
        let span = looped.span;
        let ty = looped.ty.clone();
        let returned = self
            .device_return_flag()
            .filter(|_| self.device_returns() > frame.device_returns);
        if frame.flag.is_none()
            && frame.result.is_none()
            && frame.exits_to.is_empty()
            && returned.is_none()
        {
            return looped;
        }
        let mut stmts = Vec::new();
        if let Some(flag) = frame.flag {
            stmts.push(Stmt::Let(flag, Some(u32_lit(0, span))));
        }
        if let Some(result) = frame.result {
            stmts.push(Stmt::Let(result, None));
        }
        stmts.push(Stmt::Expr(looped));
        let enclosing = self.loops.len().checked_sub(1);
        let leave = |kind| Stmt::Expr(never(kind, span));
        for target in frame.exits_to {
            let Some(flag) = self.loops.get(target).and_then(|f| f.flag) else {
                continue;
            };
            let flag_is = |op, code| {
                let read = local(flag, Ty::Scalar(Scalar::U32), span);
                compare(op, read, u32_lit(code, span), span)
            };
            if Some(target) == enclosing {
                // The target itself: leave it, or reset the flag and start its next round.
                let on_break =
                    if_then(flag_is(BinOp::Eq, JUMP_BREAK), vec![leave(ExprKind::Break)]);
                let on_continue = if_then(
                    flag_is(BinOp::Eq, JUMP_CONTINUE),
                    vec![
                        Stmt::Expr(assign(flag, u32_lit(0, span))),
                        leave(ExprKind::Continue),
                    ],
                );
                stmts.push(Stmt::Expr(on_break));
                stmts.push(Stmt::Expr(on_continue));
            } else {
                let pending = flag_is(BinOp::Ne, 0);
                stmts.push(Stmt::Expr(if_then(pending, vec![leave(ExprKind::Break)])));
            }
        }
        if let Some(flag) = returned {
            let cond = local(flag, Ty::BOOL, span);
            stmts.push(Stmt::Expr(if_then(cond, vec![leave(ExprKind::Break)])));
        }
        let tail = frame
            .result
            .map(|result| Box::new(local(result, ty.clone(), span)));
        Expr {
            kind: ExprKind::Block(Block { stmts, tail }),
            ty,
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
}

/// The flag values of a jump out of nested loops (0: none).
const JUMP_BREAK: u32 = 1;
const JUMP_CONTINUE: u32 = 2;

/// What the checker knows of a loop while it checks its body.
pub(super) struct LoopFrame {
    /// Its label, without the `'`.
    label: Option<String>,
    /// A `loop` (a `break` may give it a value), not a `while` or `for`.
    is_loop: bool,
    /// Whether a `break` leaves it.
    has_break: bool,
    /// The type of its `break`s' values (`()` for a plain `break`).
    break_ty: Ty,
    /// The local its `break` values are stored in.
    result: Option<LocalId>,
    /// The local a jump from a loop nested in it sets (see [`BodyChecker::jump`]).
    flag: Option<LocalId>,
    /// The enclosing frames a jump from inside this loop leaves to, outermost first.
    exits_to: std::collections::BTreeSet<usize>,
    /// How many `return`s the innermost device function had when the loop began.
    device_returns: u32,
}

impl Default for LoopFrame {
    fn default() -> Self {
        LoopFrame {
            label: None,
            is_loop: false,
            has_break: false,
            break_ty: Ty::Never,
            result: None,
            flag: None,
            exits_to: std::collections::BTreeSet::new(),
            device_returns: 0,
        }
    }
}
