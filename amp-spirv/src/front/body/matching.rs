//! `match` on integers (`i8` to `u32`, `usize`) and `bool`: literal, range, constant, `|`, `_`
//! and binding patterns, with guards, as a statement and as an expression.
//!
//! A `match` becomes what it means: the scrutinee is evaluated once into a hidden local, and
//! the arms an `if` / `else if` chain tested in order, the last arm that can be reached the
//! final `else`. So the analyses (uniformity, races, banks, ranges) and both back ends judge a
//! barrier or an access in an arm exactly as in an `if`, and nothing downstream knows `match`.
//!
//! Rust refuses a `match` that does not cover every value of its scrutinee's type (E0004); the
//! checker does the same, from the arms without a guard, as rustc does.

use super::*;
use crate::ir::build::{compare, local, logic};

/// One pattern alternative, as the checker understood it.
enum Case {
    /// Matches every value (`_`, a binding).
    Any,
    /// Matches when this `bool` expression over the scrutinee holds; `covers` is the set of
    /// values it matches when they are known at compile time (literals and `MIN`/`MAX`).
    When(Expr, Option<Interval>),
    /// A pattern refused with an error: the rest of the `match` is still checked, and its
    /// coverage is not judged (no second error for the same mistake).
    Refused,
}

/// An arm after checking.
struct CheckedArm {
    /// When it runs (`None`: always).
    cond: Option<Expr>,
    /// Its bindings and its value.
    body: Block,
    /// Whether it has a guard (then it does not count towards covering every value).
    guarded: bool,
    span: Span,
}

/// Values `lo..=hi` of the scrutinee's type (as `i128`, which holds every kernel integer).
#[derive(Clone, Copy, Debug)]
struct Interval {
    lo: i128,
    hi: i128,
}

impl BodyChecker<'_> {
    /// `match scrutinee { arms }`.
    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch, span: Span) -> Expr {
        let scrutinee = self.expr(&m.expr);
        let scrutinee_span = scrutinee.span;
        let ty = scrutinee.ty.clone();
        if let Ty::Tuple(items) = self.infer.shallow(&ty) {
            let scalar =
                |t: &Ty| matches!(self.infer.class(t), Class::Int | Class::Bool | Class::Never);
            if items.iter().all(scalar) {
                return self.tuple_match(m, scrutinee, items, span);
            }
        }
        match self.infer.class(&ty) {
            Class::Int | Class::Bool | Class::Never => {}
            _ => {
                let t = self.infer.describe(&ty);
                self.err(
                    Diagnostic::error(
                        Rule::MatchPatterns,
                        scrutinee_span,
                        format!("`match` in kernels is on integers and `bool`, not on `{t}`"),
                    )
                    .with_help("compare with `==` or `<` in an `if` / `else if` chain"),
                );
                return Self::error_expr(span);
            }
        }
        if m.arms.is_empty() {
            self.err(
                Diagnostic::error(
                    Rule::MatchPatterns,
                    span,
                    "a `match` in a kernel needs at least one arm",
                )
                .with_help("add `_ => ...`"),
            );
            return Self::error_expr(span);
        }
        let value = self.hidden_immutable("#match", ty.clone());
        let read = local(value, ty.clone(), scrutinee_span);

        let mut arms: Vec<CheckedArm> = Vec::new();
        let mut covered: Vec<Interval> = Vec::new();
        let mut catch_all = false;
        let mut refused = false;
        let mut result_ty = Ty::Never;
        let mut ends = Vec::new();
        let before = self.deferred.save();
        for arm in &m.arms {
            let arm_span = arm.pat.span();
            self.scopes.push(Vec::new());
            let (cases, binding) = self.arm_pattern(&arm.pat, &read);
            // A binding reads the scrutinee: in the guard as the hidden local itself, in the
            // body as a local of its own (a `mut` binding may be assigned there).
            if let Some((name, _)) = &binding {
                if let Some(scope) = self.scopes.last_mut() {
                    scope.push((name.to_string(), Binding::Local(value)));
                }
            }
            refused |= cases.iter().any(|c| matches!(c, Case::Refused));
            let mut cond = any_of(cases.iter().map(|c| match c {
                Case::Any => None,
                Case::When(e, _) => Some(e.clone()),
                Case::Refused => Some(Self::error_expr(arm_span)),
            }));
            if arm.guard.is_none() {
                if cond.is_none() {
                    catch_all = true;
                }
                covered.extend(cases.iter().filter_map(|c| match c {
                    Case::When(_, known) => *known,
                    Case::Any | Case::Refused => None,
                }));
            }
            if let Some((_, guard)) = &arm.guard {
                let g = self.expr(guard);
                self.expect_ty(&Ty::BOOL, &g, "in this `match` guard");
                cond = Some(match cond {
                    Some(c) => logic(LogicOp::And, c, g),
                    None => g,
                });
            }
            let mut stmts = Vec::new();
            if let Some((name, mutable)) = binding {
                let local = self.declare(&name, ty.clone(), mutable);
                stmts.push(Stmt::Let(local, Some(read.clone())));
            }
            let body = self.expr(&arm.body);
            self.unify_arm(&mut result_ty, &body);
            self.scopes.pop();
            ends.push(self.deferred.restart(before.clone()));
            arms.push(CheckedArm {
                cond,
                body: Block {
                    stmts,
                    tail: Some(Box::new(body)),
                },
                guarded: arm.guard.is_some(),
                span: arm_span,
            });
            if catch_all {
                // Later arms cannot be reached (rustc warns; the kernel has no use for them).
                break;
            }
        }
        self.join_arm_ends(ends);
        // A scrutinee typed `!` failed to check already (or is a callee's value left unchecked
        // here): it has no values to cover.
        let unknown = self.infer.shallow(&ty) == Ty::Never;
        if !catch_all && !refused && !unknown {
            if let Some(missing) = self.uncovered(&ty, &mut covered) {
                self.err(
                    Diagnostic::error(
                        Rule::MatchPatterns,
                        scrutinee_span,
                        format!("non-exhaustive patterns: {missing} not covered"),
                    )
                    .with_help("add an arm for the values left, or `_ => ...` for all of them"),
                );
                return Self::error_expr(span);
            }
        }
        // The chain, from the last arm without a guard (every value reaching it matches it, as
        // the arms without guards cover every value; the arms after it cannot run) back to the
        // first.
        let last = arms
            .iter()
            .rposition(|a| !a.guarded)
            .unwrap_or(arms.len() - 1);
        arms.truncate(last + 1);
        let arms = arms.into_iter().map(|a| (a.cond, a.body, a.span)).collect();
        if_chain(value, scrutinee, arms, result_ty, span)
    }

    /// Settles the type of a `match`'s arms with one more arm's value, or reports the
    /// mismatch at it.
    pub(super) fn unify_arm(&mut self, result_ty: &mut Ty, body: &Expr) {
        match self.infer.unify(result_ty, &body.ty) {
            Some(t) => *result_ty = t,
            None => {
                let (a, b) = (
                    self.infer.describe(result_ty),
                    self.infer.describe(&body.ty),
                );
                self.err(
                    Diagnostic::error(
                        Rule::BranchAndConditionTypes,
                        body.span,
                        format!("`match` arms have different types: `{a}` and `{b}`"),
                    )
                    .with_help("every arm must produce the same type; convert with `as`"),
                );
            }
        }
    }

    /// After the arms of a `match`: the deferred locals assigned on every arm's path are
    /// assigned after it (`ends`, each arm's state, in order).
    pub(super) fn join_arm_ends(&mut self, ends: Vec<deferred::PathState>) {
        let mut ends = ends.into_iter();
        if let Some(first) = ends.next() {
            self.deferred.restart(first);
        }
        for end in ends {
            self.deferred.join(end);
        }
    }

    /// The alternatives of an arm's pattern, and the name it binds (with its mutability).
    fn arm_pattern(&mut self, pat: &syn::Pat, read: &Expr) -> (Vec<Case>, Option<(String, bool)>) {
        match pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && !self.is_const_pattern(p) => {
                let name = (p.ident.to_string(), p.mutability.is_some());
                // A second name in `x @ y` is refused by `cases`, as one inside `|` is.
                match &p.subpat {
                    Some((_, sub)) => (self.cases(sub, read), Some(name)),
                    None => (vec![Case::Any], Some(name)),
                }
            }
            _ => (self.cases(pat, read), None),
        }
    }

    /// A pattern without bindings over the scalar `read`, as one condition (`Some(None)`: it
    /// matches every value; `None`: it was refused with an error).
    pub(super) fn scalar_cases(&mut self, pat: &syn::Pat, read: &Expr) -> Option<Option<Expr>> {
        let cases = self.cases(pat, read);
        if cases.iter().any(|c| matches!(c, Case::Refused)) {
            return None;
        }
        Some(any_of(cases.iter().map(|c| match c {
            Case::When(e, _) => Some(e.clone()),
            Case::Any | Case::Refused => None,
        })))
    }

    /// The alternatives of a pattern without bindings.
    fn cases(&mut self, pat: &syn::Pat, read: &Expr) -> Vec<Case> {
        let span = pat.span();
        match pat {
            syn::Pat::Wild(_) => vec![Case::Any],
            syn::Pat::Paren(p) => self.cases(&p.pat, read),
            syn::Pat::Or(o) => o.cases.iter().flat_map(|c| self.cases(c, read)).collect(),
            syn::Pat::Lit(l) => {
                if let syn::Lit::Bool(b) = &l.lit {
                    return vec![self.bool_case(b.value, read, span)];
                }
                let bound = pattern_bound_expr(&syn::Expr::Lit(l.clone()));
                vec![self.value_case(&bound, read, span)]
            }
            syn::Pat::Path(p) => vec![self.value_case(&syn::Expr::Path(p.clone()), read, span)],
            syn::Pat::Ident(p) if self.is_const_pattern(p) && p.subpat.is_none() => {
                let path = syn::Expr::Path(syn::ExprPath {
                    attrs: Vec::new(),
                    qself: None,
                    path: p.ident.clone().into(),
                });
                vec![self.value_case(&path, read, span)]
            }
            syn::Pat::Range(r) => vec![self.range_case(r, read, span)],
            syn::Pat::Ident(p) => {
                self.err(
                    Diagnostic::error(
                        Rule::MatchPatterns,
                        p.ident.span(),
                        "a binding inside `|` or `@` is not supported in kernels",
                    )
                    .with_help("bind the whole value: `n @ (1 | 2) => ...`"),
                );
                // Declared all the same (in the arm's scope), so its uses report nothing more.
                self.declare(&p.ident.to_string(), Ty::Never, false);
                vec![Case::Refused]
            }
            other => {
                let (what, help) = match other {
                    syn::Pat::Tuple(_) | syn::Pat::TupleStruct(_) | syn::Pat::Struct(_) => (
                        "tuple, struct and enum patterns are not supported here in kernels",
                        "match on an integer, a `bool` or a tuple of them (`match (a, b)`); read fields before the `match`",
                    ),
                    syn::Pat::Slice(_) => (
                        "slice patterns are not supported in kernels",
                        "index the array and match on the element",
                    ),
                    syn::Pat::Reference(_) => (
                        "reference patterns are not supported in kernels",
                        "kernels have no references: match on the value",
                    ),
                    _ => (
                        "this pattern is not supported in kernels",
                        "use literals, ranges (`1..=9`), constants, `|`, `_` or a name",
                    ),
                };
                self.err(Diagnostic::error(Rule::MatchPatterns, span, what).with_help(help));
                vec![Case::Refused]
            }
        }
    }

    fn bool_case(&mut self, value: bool, read: &Expr, span: Span) -> Case {
        self.unify_or_report(&read.ty, &Ty::BOOL, span);
        let cond = if value {
            read.clone()
        } else {
            Expr {
                kind: ExprKind::Unary(UnOp::Not, Box::new(read.clone())),
                ty: Ty::BOOL,
                span,
            }
        };
        let v = i128::from(value);
        Case::When(cond, Some(Interval { lo: v, hi: v }))
    }

    /// `scrutinee == value` for a literal or a constant.
    fn value_case(&mut self, value: &syn::Expr, read: &Expr, span: Span) -> Case {
        let known = self.pattern_value(value);
        let v = self.expr(value);
        self.pattern_ty(&v, read);
        let cond = compare(BinOp::Eq, read.clone(), v, span);
        Case::When(cond, known.map(|v| Interval { lo: v, hi: v }))
    }

    /// `a..=b`, `a..b`, `a..`, `..=b`.
    fn range_case(&mut self, r: &syn::PatRange, read: &Expr, span: Span) -> Case {
        let (min, max) = self.domain(&read.ty);
        let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
        let mut cond: Option<Expr> = None;
        let mut lo = Some(min);
        let mut hi = Some(max);
        if let Some(start) = &r.start {
            let start = pattern_bound_expr(start);
            lo = self.pattern_value(&start);
            let e = self.expr(&start);
            self.pattern_ty(&e, read);
            cond = Some(compare(BinOp::Ge, read.clone(), e, span));
        }
        if let Some(end) = &r.end {
            let end = pattern_bound_expr(end);
            hi = self
                .pattern_value(&end)
                .map(|v| if inclusive { v } else { v - 1 });
            let e = self.expr(&end);
            self.pattern_ty(&e, read);
            let op = if inclusive { BinOp::Le } else { BinOp::Lt };
            let c = compare(op, read.clone(), e, span);
            cond = Some(match cond {
                Some(a) => logic(LogicOp::And, a, c),
                None => c,
            });
        }
        if let (Some(lo), Some(hi)) = (lo, hi) {
            if lo > hi {
                self.err(
                    Diagnostic::error(
                        Rule::MatchPatterns,
                        span,
                        "this range pattern matches no value",
                    )
                    .with_help("a range pattern goes from its lower bound up to its upper bound"),
                );
            }
        }
        let known = lo.zip(hi).map(|(lo, hi)| Interval { lo, hi });
        match cond {
            Some(c) => Case::When(c, known),
            None => Case::Any,
        }
    }

    /// Checks that a pattern's value has the scrutinee's type.
    fn pattern_ty(&mut self, value: &Expr, read: &Expr) {
        if self.infer.unify(&read.ty, &value.ty).is_none() {
            let (want, got) = (
                self.infer.describe(&read.ty),
                self.infer.describe(&value.ty),
            );
            self.err(Diagnostic::error(
                Rule::MismatchedTypes,
                value.span,
                format!("mismatched types in this pattern: expected `{want}`, found `{got}`"),
            ));
        }
    }

    /// Whether an identifier pattern names a constant rather than binding a new name: a
    /// `const` of the body, or an unbound name in Rust's constant style.
    pub(super) fn is_const_pattern(&self, p: &syn::PatIdent) -> bool {
        if p.mutability.is_some() || p.subpat.is_some() {
            return false;
        }
        match self.lookup(&p.ident.to_string()) {
            Some(Binding::Local(id)) => self.body_consts.contains(&id),
            Some(_) => false,
            None => self.is_outer_const_name(&p.ident),
        }
    }

    /// The value of a pattern bound known at compile time: an integer literal (negated or
    /// not), `T::MIN` or `T::MAX`.
    fn pattern_value(&self, e: &syn::Expr) -> Option<i128> {
        match strip(e) {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i.base10_parse::<i128>().ok(),
            syn::Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Neg(_),
                expr,
                ..
            }) => self.pattern_value(expr).map(|v| -v),
            syn::Expr::Path(p) if p.path.segments.len() == 2 => {
                let scalar = Scalar::from_name(&p.path.segments[0].ident.to_string())?;
                let (min, max) = self.domain(&Ty::Scalar(scalar));
                match p.path.segments[1].ident.to_string().as_str() {
                    "MIN" => Some(min),
                    "MAX" => Some(max),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The values of an integer type as the host has them (`usize` is the host's, as rustc
    /// judges exhaustiveness by it), or `bool`'s as 0 and 1.
    fn domain(&self, ty: &Ty) -> (i128, i128) {
        // An integer literal nothing else settles is an `i32`, as in Rust.
        let scalar = match self.infer.shallow(ty) {
            Ty::Scalar(s) => s,
            _ => Scalar::I32,
        };
        match scalar {
            Scalar::Bool => (0, 1),
            // The host's `usize`, which rustc judges the arms by.
            Scalar::Usize => (0, i128::from(u64::MAX)),
            s => {
                let (lo, hi) = s.int_range().unwrap_or((i32::MIN.into(), i32::MAX.into()));
                (lo.into(), hi.into())
            }
        }
    }

    /// The first values of the scrutinee's type that no arm without a guard covers, in
    /// rustc's words, or `None` when every value is covered.
    fn uncovered(&self, ty: &Ty, covered: &mut [Interval]) -> Option<String> {
        let (min, max) = self.domain(ty);
        covered.sort_by_key(|i| i.lo);
        let mut next = min;
        let mut gap = None;
        for c in covered.iter() {
            if c.lo > next {
                gap = Some((next, c.lo - 1));
                break;
            }
            next = next.max(c.hi.saturating_add(1));
            if next > max {
                return None;
            }
        }
        let (lo, hi) = gap.unwrap_or((next, max));
        let shown = self.infer.describe(ty);
        let name = |v: i128| -> String {
            if shown == "bool" {
                return (v == 1).to_string();
            }
            let ty_name = if shown.contains('{') {
                "i32"
            } else {
                shown.as_str()
            };
            if v == min && min != 0 {
                format!("{ty_name}::MIN")
            } else if v == max {
                format!("{ty_name}::MAX")
            } else {
                format!("{v}_{ty_name}")
            }
        };
        Some(if lo == hi {
            format!("`{}`", name(lo))
        } else {
            format!("`{}..={}`", name(lo), name(hi))
        })
    }
}

/// A pattern bound as an expression: syn keeps a negative literal whole (`-1`), the kernel's
/// expressions see the negation of a literal, as rustc does.
fn pattern_bound_expr(e: &syn::Expr) -> syn::Expr {
    if let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(i),
        ..
    }) = e
    {
        if let Some(digits) = i.to_string().strip_prefix('-') {
            let positive = syn::LitInt::new(digits, i.span());
            return syn::Expr::Unary(syn::ExprUnary {
                attrs: Vec::new(),
                op: syn::UnOp::Neg(syn::token::Minus(i.span())),
                expr: Box::new(syn::Expr::Lit(syn::ExprLit {
                    attrs: Vec::new(),
                    lit: syn::Lit::Int(positive),
                })),
            });
        }
    }
    e.clone()
}

/// A `match` as what it means: `value` (the hidden local) set to `scrutinee`, then the arms
/// (condition, body, span; `None`: always) as an `if` / `else if` chain tested in order, an
/// arm without a condition ending it.
pub(super) fn if_chain(
    value: LocalId,
    scrutinee: Expr,
    arms: Vec<(Option<Expr>, Block, Span)>,
    result_ty: Ty,
    span: Span,
) -> Expr {
    let mut chain: Option<Expr> = None;
    for (cond, body, arm_span) in arms.into_iter().rev() {
        let body = Expr {
            kind: ExprKind::Block(body),
            ty: result_ty.clone(),
            span: arm_span,
        };
        chain = Some(match (cond, chain.take()) {
            (Some(c), Some(rest)) => {
                let then = Block {
                    stmts: Vec::new(),
                    tail: Some(Box::new(body)),
                };
                Expr {
                    kind: ExprKind::If(Box::new(c), then, Some(Box::new(rest))),
                    ty: result_ty.clone(),
                    span: arm_span,
                }
            }
            _ => body,
        });
    }
    Expr {
        kind: ExprKind::Block(Block {
            stmts: vec![Stmt::Let(value, Some(scrutinee))],
            tail: chain.map(Box::new),
        }),
        ty: result_ty,
        span,
    }
}

/// The disjunction of the alternatives' conditions; `None` when one matches every value.
fn any_of(conds: impl Iterator<Item = Option<Expr>>) -> Option<Expr> {
    let mut acc: Option<Expr> = None;
    for c in conds {
        let c = c?;
        acc = Some(match acc {
            Some(a) => logic(LogicOp::Or, a, c),
            None => c,
        });
    }
    acc
}
