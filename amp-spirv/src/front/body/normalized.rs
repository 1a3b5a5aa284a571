//! `Norm` and `Unorm` (C++ AMP's `norm` and `unorm`) and their vectors in kernel bodies: the
//! conversions the host types have (`Unorm::new(x)`, `Unorm::from(x)`, `f32::from(n)`,
//! `n.get()`, `Norm::from(u)`, `Unorm4::from_f32_array(a)`, `v.to_f32_array()`).
//!
//! Every conversion is an [`ExprKind::Cast`] between a normalized type and `f32` (or between
//! the two normalized types, or a `Float4` and a `Unorm4`): the back end clamps what goes into
//! a normalized type exactly as the host's `new` does. `as` itself is refused
//! ([`normalized_cast_error`](BodyChecker::normalized_cast_error)), as on the host, which has
//! no such casts. Constants (`Unorm::ONE`), operators and vectors built with `new` / `splat`
//! are the scalar and vector paths of `expr.rs` and `vector.rs`.

use super::*;

impl BodyChecker<'_> {
    /// `Norm::new(x)`, `Unorm::from(x)`, `f32::from(n)`, `Unorm4::from_f32_array(a)`; `None`
    /// when the call is none of these.
    pub(super) fn normalized_call(&mut self, c: &syn::ExprCall, segs: &[String]) -> Option<Expr> {
        let span = c.span();
        let [ty, f] = segs else { return None };
        if let Some((s, n)) = vector_from_name(ty).filter(|(s, _)| s.is_normalized()) {
            if f != "from_f32_array" {
                return None; // `new`, `splat` and the errors: vector.rs
            }
            let vty = Ty::Vector(s, n);
            let value = self.one_argument(c, &format!("{vty}::from_f32_array"), "[f32; N]")?;
            let want = Ty::array(Ty::Scalar(Scalar::F32), n);
            self.expect_ty(&want, &value, &format!("in this `{vty}::from_f32_array`"));
            let floats = self.array_as_vector(value, n, span);
            return Some(cast_expr(floats, vty, span));
        }
        let to = Scalar::from_name(ty)?;
        match (to, f.as_str()) {
            (s, "new") if s.is_normalized() => {
                let value = self.one_argument(c, &format!("{ty}::new"), "f32")?;
                self.expect_ty(&Ty::Scalar(Scalar::F32), &value, "in this argument");
                Some(cast_expr(value, Ty::Scalar(s), span))
            }
            (s, "from") if s.is_normalized() => {
                let value = self.one_argument(c, &format!("{ty}::from"), "f32")?;
                match self.infer.class(&value.ty) {
                    Class::Normalized | Class::Never => {}
                    Class::Float => {
                        self.expect_ty(&Ty::Scalar(Scalar::F32), &value, "in this argument");
                    }
                    _ => {
                        let found = self.infer.describe(&value.ty);
                        self.err(
                            Diagnostic::error(
                                Rule::BuiltinFunctions,
                                value.span,
                                format!("`{ty}::from` takes an `f32`, a `Norm` or a `Unorm`, found `{found}`"),
                            )
                            .with_help("convert integers to `f32` with `as f32` first"),
                        );
                        return Some(Self::error_expr(span));
                    }
                }
                Some(cast_expr(value, Ty::Scalar(s), span))
            }
            (Scalar::F32, "from") => {
                let value = self.one_argument(c, "f32::from", "Norm")?;
                match self.infer.class(&value.ty) {
                    Class::Normalized | Class::Never => {
                        Some(cast_expr(value, Ty::Scalar(Scalar::F32), span))
                    }
                    Class::Float => {
                        self.expect_ty(&Ty::Scalar(Scalar::F32), &value, "in this argument");
                        Some(value)
                    }
                    _ => {
                        let found = self.infer.describe(&value.ty);
                        self.err(
                            Diagnostic::error(
                                Rule::BuiltinFunctions,
                                value.span,
                                format!("`f32::from` in kernels takes a `Norm` or a `Unorm`, found `{found}`"),
                            )
                            .with_help("convert numbers with `as f32`"),
                        );
                        Some(Self::error_expr(span))
                    }
                }
            }
            _ => None,
        }
    }

    /// `n.get()` of a `Norm` / `Unorm` and `v.to_f32_array()` of their vectors; `None` for
    /// other methods.
    pub(super) fn normalized_method(
        &mut self,
        m: &syn::ExprMethodCall,
        method: &str,
    ) -> Option<Expr> {
        if !matches!(method, "get" | "to_f32_array") {
            return None;
        }
        let span = m.span();
        let value = self.expr(&m.receiver);
        if !m.args.is_empty() {
            self.err(Diagnostic::error(
                Rule::BuiltinFunctions,
                span,
                format!("`.{method}()` takes no arguments"),
            ));
            return Some(Self::error_expr(span));
        }
        let ty = self.infer.shallow(&value.ty);
        match (method, &ty) {
            (_, Ty::Never) => Some(Self::error_expr(span)),
            ("get", Ty::Scalar(s)) if s.is_normalized() => {
                Some(cast_expr(value, Ty::Scalar(Scalar::F32), span))
            }
            ("to_f32_array", &Ty::Vector(s, n)) if s.is_normalized() => {
                Some(self.vector_to_f32_array(value, s, n, span))
            }
            _ => {
                let found = self.infer.describe(&value.ty);
                let owner = if method == "get" {
                    "`Norm` and `Unorm`"
                } else {
                    "the `Norm` and `Unorm` vectors (`Unorm4`, ...)"
                };
                self.err(Diagnostic::error(
                    Rule::BuiltinFunctions,
                    m.method.span(),
                    format!("`.{method}()` is a method of {owner}, not of `{found}`"),
                ));
                Some(Self::error_expr(span))
            }
        }
    }

    /// The error for `x as Unorm`, `n as f32` and the like: the host has no such casts.
    pub(super) fn normalized_cast_error(&mut self, value: &Expr, target: Scalar, span: Span) {
        let from = self.infer.describe(&value.ty);
        let help = if target.is_normalized() {
            let range = if target == Scalar::Norm {
                "[-1, 1]"
            } else {
                "[0, 1]"
            };
            let t = target.name();
            format!("convert an `f32` with `{t}::new(x)` (or `{t}::from(x)`), which clamps into {range} and gives 0 for a NaN, as on the host")
        } else {
            "take the value as an `f32` with `f32::from(n)` (or `n.get()`), then convert that with `as`".to_string()
        };
        self.err(
            Diagnostic::error(
                Rule::Casts,
                span,
                format!(
                    "cannot cast `{from}` as `{}`: `as` does not convert to or from the normalized types",
                    target.name()
                ),
            )
            .with_help(help),
        );
    }

    /// The single argument of `name(..)`, checked; `None` (after an error) for another count.
    fn one_argument(&mut self, c: &syn::ExprCall, name: &str, what: &str) -> Option<Expr> {
        if c.args.len() != 1 {
            self.err(Diagnostic::error(
                Rule::BuiltinFunctions,
                c.span(),
                format!(
                    "`{name}` takes 1 argument (a `{what}`), found {}",
                    c.args.len()
                ),
            ));
            return None;
        }
        Some(self.expr(&c.args[0]))
    }

    /// An `[f32; n]` value as a `Float{n}` (its elements, in order), evaluated once.
    fn array_as_vector(&mut self, value: Expr, n: u32, span: Span) -> Expr {
        let ty = Ty::Vector(Scalar::F32, n);
        if let ExprKind::ArrayList(items) = value.kind {
            return Expr {
                kind: ExprKind::ArrayList(items),
                ty,
                span,
            };
        }
        let array_ty = Ty::array(Ty::Scalar(Scalar::F32), n);
        let (setup, local) = self.in_local(value, "#f32_array");
        let parts = (0..n)
            .map(|k| element_of_local(local, array_ty.clone(), Ty::Scalar(Scalar::F32), k, span))
            .collect();
        with_setup(setup, ExprKind::ArrayList(parts), ty, span)
    }

    /// `v.to_f32_array()`: `[f32::from(v.x), ...]`, `v` evaluated once.
    fn vector_to_f32_array(&mut self, value: Expr, s: Scalar, n: u32, span: Span) -> Expr {
        let vty = Ty::Vector(s, n);
        let (setup, local) = self.in_local(value, "#normalized");
        let parts = (0..n)
            .map(|k| {
                let c = element_of_local(local, vty.clone(), Ty::Scalar(s), k, span);
                cast_expr(c, Ty::Scalar(Scalar::F32), span)
            })
            .collect();
        let ty = Ty::array(Ty::Scalar(Scalar::F32), n);
        with_setup(setup, ExprKind::ArrayList(parts), ty, span)
    }

    /// A local holding `value`: the local itself when `value` reads one, else a new hidden
    /// local with the `let` that fills it.
    fn in_local(&mut self, value: Expr, name: &str) -> (Option<Stmt>, LocalId) {
        match value.kind {
            ExprKind::Local(id) => (None, id),
            _ => {
                let tmp = self.hidden(name, value.ty.clone());
                (Some(Stmt::Let(tmp, Some(value))), tmp)
            }
        }
    }
}

/// `value` converted to `ty` (see the module documentation).
fn cast_expr(value: Expr, ty: Ty, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Cast(Box::new(value)),
        ty,
        span,
    }
}

/// Element or component `k` (of type `elem`) of the local `local` of type `ty`.
fn element_of_local(local: LocalId, ty: Ty, elem: Ty, k: u32, span: Span) -> Expr {
    let base = Expr {
        kind: ExprKind::Local(local),
        ty,
        span,
    };
    let index = Expr {
        kind: ExprKind::Lit(Lit::Int(k as u128)),
        ty: Ty::USIZE,
        span,
    };
    Expr {
        kind: ExprKind::Element(Box::new(base), Box::new(index)),
        ty: elem,
        span,
    }
}

/// The expression `kind` of type `ty`, after `setup` when there is one (in a block).
fn with_setup(setup: Option<Stmt>, kind: ExprKind, ty: Ty, span: Span) -> Expr {
    let value = Expr {
        kind,
        ty: ty.clone(),
        span,
    };
    match setup {
        None => value,
        Some(stmt) => Expr {
            kind: ExprKind::Block(Block {
                stmts: vec![stmt],
                tail: Some(Box::new(value)),
            }),
            ty,
            span,
        },
    }
}
