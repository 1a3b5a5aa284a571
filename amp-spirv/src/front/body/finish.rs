//! The last pass over a checked body: settles every type and checks literals against them.

use super::*;

/// Settles every type in the IR and checks literals against their final types: a
/// [`VisitorMut`] whose fix-up of each expression comes before its operands'.
pub(super) struct Finisher<'a> {
    pub(super) infer: &'a Infer,
    pub(super) diags: &'a mut Diagnostics,
}

impl Finisher<'_> {
    /// Checks a literal against its settled type, as rustc's `overflowing_literals` does.
    fn literal(&mut self, e: &Expr, negated: bool) {
        let Ty::Scalar(s) = e.ty else { return };
        let out_of_range = match e.kind {
            ExprKind::Lit(Lit::Int(v)) => {
                // `-128i8` is `i8::MIN`: a negated literal may exceed `MAX` by one.
                let max: u128 = match s.int_range() {
                    // (Negating an unsigned value is its own error.)
                    Some((lo, _)) if negated && lo < 0 => lo.unsigned_abs().into(),
                    Some((_, hi)) => hi as u128,
                    None => u128::MAX,
                };
                v > max
            }
            // Rust accepts any literal that rounds to a finite `f32`.
            ExprKind::Lit(Lit::Float(v, v32)) => {
                s == Scalar::F32 && v.is_finite() && v32.is_infinite()
            }
            _ => false,
        };
        if out_of_range {
            let help = match s {
                Scalar::F32 => "the value is beyond `f32::MAX`; use `f32::INFINITY` or an `f64`",
                Scalar::I32 => "the value does not fit in `i32`; use a `u32` or a smaller value",
                s if s.is_small_int() => "use a wider integer type, or a value in the type's range",
                _ => "indices and `usize` values are 32-bit on the device",
            };
            self.diags.push(
                Diagnostic::error(
                    Rule::LiteralTypes,
                    e.span,
                    format!("literal out of range for `{}`", s.name()),
                )
                .with_help(help),
            );
        }
    }
}

impl VisitorMut for Finisher<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        e.ty = self.infer.finish(&e.ty);
        match &mut e.kind {
            ExprKind::Lit(_) => self.literal(e, false),
            ExprKind::Unary(UnOp::Neg, a) => {
                if let Some(s) = e.ty.scalar().filter(|s| s.is_int() && !s.is_signed_int()) {
                    self.diags.push(
                        Diagnostic::error(
                            Rule::OperandTypes,
                            e.span,
                            format!("cannot negate a value of type `{}`", s.name()),
                        )
                        .with_help(
                            "negation works on signed integers (i8, i16, i32) and floats; cast unsigned values to a signed type first",
                        ),
                    );
                }
                if matches!(a.kind, ExprKind::Lit(_)) {
                    // `-2147483648` is `i32::MIN`: the literal may exceed `i32::MAX` by one.
                    a.ty = self.infer.finish(&a.ty);
                    self.literal(a, true);
                } else {
                    self.visit_expr_mut(a);
                }
            }
            ExprKind::Builtin(Builtin::Abs, _)
                if e.ty
                    .scalar()
                    .is_some_and(|s| s.is_int() && !s.is_signed_int()) =>
            {
                let t = e.ty.scalar().map_or("", |s| s.name());
                self.diags.push(
                    Diagnostic::error(
                        Rule::BuiltinFunctions,
                        e.span,
                        format!("`abs` is not defined for `{t}`"),
                    )
                    .with_help("unsigned values are never negative; remove `abs`"),
                );
                walk_expr_mut(self, e);
            }
            // In source order rather than evaluation order, so that the errors come out in the
            // order they are written: the place before the value, an atomic's target first.
            ExprKind::Assign(place, value) | ExprKind::CompoundAssign(_, place, value) => {
                self.visit_place_mut(place);
                self.visit_expr_mut(value);
            }
            ExprKind::Atomic(atomic) => {
                self.visit_place_mut(&mut atomic.target);
                if let Some(value) = &mut atomic.value {
                    self.visit_expr_mut(value);
                }
                if let Some(expected) = &mut atomic.expected {
                    self.visit_place_mut(expected);
                }
            }
            _ => walk_expr_mut(self, e),
        }
    }
}
