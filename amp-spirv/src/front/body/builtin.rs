//! The kernel language's functions on values: math functions (as methods, `f32::` paths and
//! C++ AMP's `fast_math`/`precise_math`) and `min`, `max`, `abs`.

use super::*;

impl BodyChecker<'_> {
    /// A math function: float arguments of one type (and the `i32` exponent of `ldexp`).
    /// `precise` (`precise_math::`) computes the `f32` transcendental functions in `f64`.
    pub(super) fn math(
        &mut self,
        f: MathFn,
        name: &str,
        args: Vec<Expr>,
        span: Span,
        precise: bool,
    ) -> Expr {
        if args.len() != f.arity() {
            self.err(Diagnostic::error(
                Rule::BuiltinFunctions,
                span,
                format!(
                    "`{name}` takes {} argument(s) counting the receiver, found {}",
                    f.arity(),
                    args.len()
                ),
            ));
            return Self::error_expr(span);
        }
        let mut ty = args[0].ty.clone();
        for (i, a) in args.iter().enumerate().skip(1) {
            if f.i32_argument() == Some(i) {
                let context = format!("the exponent of `{name}`");
                self.expect_ty(&Ty::Scalar(Scalar::I32), a, &context);
            } else {
                ty = self.expect_ty(&ty, a, &format!("in this call to `{name}`"));
            }
        }
        match self.infer.class(&ty) {
            Class::Float | Class::Never => {}
            // `Ord::clamp` on an integer scalar: `max` then `min` (where Rust would panic on
            // `lo > hi`, the result is `hi`).
            Class::Int
                if f == MathFn::Clamp && !matches!(self.infer.shallow(&ty), Ty::Vector(..)) =>
            {
                let mut args = args.into_iter();
                let (Some(x), Some(lo), Some(hi)) = (args.next(), args.next(), args.next()) else {
                    return self.internal(span, "clamp has three arguments");
                };
                let at_least = self.builtin(Builtin::Max, vec![x, lo], span);
                return self.builtin(Builtin::Min, vec![at_least, hi], span);
            }
            _ => {
                let t = self.infer.describe(&ty);
                self.err(
                    Diagnostic::error(
                        Rule::BuiltinFunctions,
                        span,
                        format!("`{name}` works on `f32` and `f64`, not `{t}`"),
                    )
                    .with_help("convert with `as f32`, or write a float literal (`2.0`)"),
                );
                return Self::error_expr(span);
            }
        }
        let f32_args = self.infer.shallow(&ty) == Ty::Scalar(Scalar::F32);
        let result = if f.returns_bool() {
            Ty::BOOL
        } else if f.returns_i32() {
            Ty::Scalar(Scalar::I32)
        } else {
            ty
        };
        if precise && f32_args && f.promoted_when_precise() {
            return Self::in_f64(f, args, result, span);
        }
        Expr {
            kind: ExprKind::Math(f, args),
            ty: result,
            span,
        }
    }

    /// `f(args)` computed in `f64` and rounded to `f32` (`precise_math::` on `f32`).
    fn in_f64(f: MathFn, args: Vec<Expr>, result: Ty, span: Span) -> Expr {
        let f64_ty = Ty::Scalar(Scalar::F64);
        let cast = |e: Expr, ty: Ty| Expr {
            kind: ExprKind::Cast(Box::new(e)),
            ty,
            span,
        };
        let wide: Vec<Expr> = args.into_iter().map(|a| cast(a, f64_ty.clone())).collect();
        let value = Expr {
            kind: ExprKind::Math(f, wide),
            ty: f64_ty,
            span,
        };
        cast(value, result)
    }

    /// `frexp`, `modf`, `sincos` or `sin_cos` (`precise_math::frexp(x)`, `x.sin_cos()`): a
    /// tuple of the pair's two functions of the argument, evaluated once into a hidden local.
    pub(super) fn pair_value(&mut self, call: &syn::Expr) -> Expr {
        let span = call.span();
        let Some((fns, name, args, precise)) = pair_call(call) else {
            return self.internal(span, "a pair function's call has its parts");
        };
        if args.len() != 1 {
            self.err(Diagnostic::error(
                Rule::BuiltinFunctions,
                span,
                format!(
                    "`{name}` takes 1 argument counting the receiver, found {}",
                    args.len()
                ),
            ));
            return Self::error_expr(span);
        }
        let arg = self.expr(args[0]);
        let ty = arg.ty.clone();
        let tmp = self.hidden_immutable(&format!("{name}_argument"), ty.clone());
        let items: Vec<Expr> = fns
            .into_iter()
            .map(|f| {
                let value = Expr {
                    kind: ExprKind::Local(tmp),
                    ty: ty.clone(),
                    span,
                };
                self.math(f, &name, vec![value], span, precise)
            })
            .collect();
        let pair_ty = Ty::Tuple(items.iter().map(|i| i.ty.clone()).collect());
        Expr {
            kind: ExprKind::Block(Block {
                stmts: vec![Stmt::Let(tmp, Some(arg))],
                tail: Some(Box::new(Expr {
                    kind: ExprKind::ArrayList(items),
                    ty: pair_ty.clone(),
                    span,
                })),
            }),
            ty: pair_ty,
            span,
        }
    }

    pub(super) fn builtin(&mut self, builtin: Builtin, args: Vec<Expr>, span: Span) -> Expr {
        let (name, arity) = match builtin {
            Builtin::Min => ("min", 2),
            Builtin::Max => ("max", 2),
            Builtin::Abs => ("abs", 1),
            _ => return self.internal(span, "the geometric functions are checked in vector.rs"),
        };
        if args.len() != arity {
            self.err(Diagnostic::error(
                Rule::BuiltinFunctions,
                span,
                format!("`{name}` takes {arity} argument(s), found {}", args.len()),
            ));
            return Self::error_expr(span);
        }
        let mut ty = args[0].ty.clone();
        for a in &args[1..] {
            ty = self.expect_ty(&ty, a, &format!("in this call to `{name}`"));
        }
        let class = self.component_class(&ty);
        let unsigned = class == Class::Int
            && self
                .infer
                .shallow(&ty)
                .component()
                .is_some_and(|s| !s.is_signed_int());
        if builtin == Builtin::Abs && unsigned && self.generic_instances > 0 {
            // `DeviceScalar::abs` of a `u32` is the value itself.
            let arg = args.into_iter().next();
            return arg.unwrap_or_else(|| Self::error_expr(span));
        }
        let ok = match builtin {
            Builtin::Abs => {
                class == Class::Float
                    || class == Class::Never
                    || (class == Class::Int
                        && self
                            .infer
                            .shallow(&ty)
                            .component()
                            .is_none_or(|s| s.is_signed_int()))
            }
            _ => matches!(class, Class::Int | Class::Float | Class::Never),
        };
        if !ok {
            let t = self.infer.describe(&ty);
            let help = if builtin == Builtin::Abs && class == Class::Int {
                "unsigned values are never negative; remove `abs`"
            } else {
                "`min`, `max` and `abs` work on numbers"
            };
            self.err(
                Diagnostic::error(
                    Rule::BuiltinFunctions,
                    span,
                    format!("`{name}` is not defined for `{t}`"),
                )
                .with_help(help),
            );
            return Self::error_expr(span);
        }
        Expr {
            kind: ExprKind::Builtin(builtin, args),
            ty,
            span,
        }
    }
}

impl BodyChecker<'_> {
    /// `x.wrapping_add(y)` and the other wrapping operators: the kernel's own `+ - * << >>`
    /// wrap (docs/semantics.md), so each is that operator, checked as written that way
    /// (`wrapping_neg` is `!x + 1`).
    pub(super) fn wrapping_method(
        &mut self,
        m: &syn::ExprMethodCall,
        method: &str,
    ) -> Option<Expr> {
        let r = &m.receiver;
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        let span = m.span();
        let at = m.method.span();
        let expr: syn::Expr = match (method, args.as_slice()) {
            ("wrapping_add", [a]) => syn::parse_quote_spanned!(at=> (#r) + (#a)),
            ("wrapping_sub", [a]) => syn::parse_quote_spanned!(at=> (#r) - (#a)),
            ("wrapping_mul", [a]) => syn::parse_quote_spanned!(at=> (#r) * (#a)),
            ("wrapping_shl", [a]) => syn::parse_quote_spanned!(at=> (#r) << (#a)),
            ("wrapping_shr", [a]) => syn::parse_quote_spanned!(at=> (#r) >> (#a)),
            ("wrapping_neg", []) => syn::parse_quote_spanned!(at=> !(#r) + 1),
            _ => return None,
        };
        let e = self.expr(&expr);
        let ty = self.infer.shallow(&e.ty);
        let class = self.component_class(&ty);
        if matches!(ty, Ty::Vector(..)) || !matches!(class, Class::Int | Class::Never) {
            let t = self.infer.describe(&e.ty);
            self.err(
                Diagnostic::error(
                    Rule::BuiltinFunctions,
                    m.method.span(),
                    format!("`{method}` is an integer method; `{t}` has no `{method}`"),
                )
                .with_help("Rust's wrapping methods work on integers; on those, the kernel's `+`, `-`, `*`, `<<` and `>>` wrap too, as in Rust's release builds"),
            );
            return Some(Self::error_expr(span));
        }
        Some(e)
    }

    /// One of Rust's integer methods (`IntMethod`) on `receiver`, its other argument checked:
    /// a `u32` count or exponent, or a value of the receiver's type.
    pub(super) fn int_method(
        &mut self,
        f: IntMethod,
        name: &str,
        receiver: Expr,
        args: Vec<Expr>,
        span: Span,
    ) -> Expr {
        let expected = usize::from(f.argument().is_some());
        if args.len() != expected {
            self.err(Diagnostic::error(
                Rule::BuiltinFunctions,
                span,
                format!(
                    "`{name}` takes {expected} argument(s), found {}",
                    args.len()
                ),
            ));
            return Self::error_expr(span);
        }
        let ty = receiver.ty.clone();
        let scalar = match self.component_class(&ty) {
            Class::Int if !matches!(self.infer.shallow(&ty), Ty::Vector(..)) => {
                self.infer.shallow(&ty).scalar()
            }
            Class::Never => return Self::error_expr(span),
            _ => {
                let t = self.infer.describe(&ty);
                self.err(
                    Diagnostic::error(
                        Rule::BuiltinFunctions,
                        span,
                        format!("`{name}` is an integer method; `{t}` has no `{name}`"),
                    )
                    .with_help(
                        "Rust's integer methods work on integer scalars (`i8` to `u32`, `usize`)",
                    ),
                );
                return Self::error_expr(span);
            }
        };
        if let (Some(signed), Some(s)) = (f.signedness(), scalar) {
            if s.is_signed_int() != signed {
                let t = self.infer.describe(&ty);
                let kind = if signed { "signed" } else { "unsigned" };
                self.err(Diagnostic::error(
                    Rule::BuiltinFunctions,
                    span,
                    format!("`{name}` is defined on {kind} integers only, not on `{t}`"),
                ));
                return Self::error_expr(span);
            }
        }
        if let Some(arg) = args.first() {
            let context = format!("the argument of `{name}`");
            match f.argument() {
                Some(true) => {
                    self.expect_ty(&Ty::Scalar(Scalar::U32), arg, &context);
                }
                _ => {
                    self.expect_ty(&ty, arg, &context);
                }
            }
        }
        if let Some(s) = scalar.filter(|s| s.is_small_int()) {
            return self.small_int_method(f, s, receiver, args, span);
        }
        let result = if f.returns_u32() {
            Ty::Scalar(Scalar::U32)
        } else if f == IntMethod::IsPowerOfTwo {
            Ty::BOOL
        } else {
            ty
        };
        let mut all = vec![receiver];
        all.extend(args);
        Expr {
            kind: ExprKind::Builtin(Builtin::Int(f), all),
            ty: result,
            span,
        }
    }
}

impl BodyChecker<'_> {
    /// C++ AMP's `concurrency::direct3d` functions (`direct3d::countbits(x)`, ...), each the
    /// kernel-language expression that `amp::direct3d`'s host function of the same name
    /// computes, its arguments bound once to locals of the function's parameter types (so a
    /// wrong type is the usual mismatch at the argument). `None` for another name.
    pub(super) fn direct3d_call(&mut self, c: &syn::ExprCall, name: &str) -> Option<Expr> {
        let args: Vec<&syn::Expr> = c.args.iter().collect();
        let at = syn::spanned::Spanned::span(&c.func);
        let expr: syn::Expr = match (name, args.as_slice()) {
            ("countbits", [x]) => {
                syn::parse_quote_spanned!(at=> { let d3d_x: u32 = #x; d3d_x.count_ones() })
            }
            ("reversebits", [x]) => {
                syn::parse_quote_spanned!(at=> { let d3d_x: u32 = #x; d3d_x.reverse_bits() })
            }
            ("firstbithigh", [x]) => syn::parse_quote_spanned!(at=> {
                let d3d_x: i32 = #x;
                let d3d_y: i32 = if d3d_x < 0 { !d3d_x } else { d3d_x };
                31 - (d3d_y.leading_zeros() as i32)
            }),
            ("firstbitlow", [x]) => syn::parse_quote_spanned!(at=> {
                let d3d_x: i32 = #x;
                if d3d_x == 0 { -1 } else { d3d_x.trailing_zeros() as i32 }
            }),
            ("sign", [x]) => {
                syn::parse_quote_spanned!(at=> { let d3d_x: i32 = #x; d3d_x.signum() })
            }
            ("abs", [x]) => syn::parse_quote_spanned!(at=> { let d3d_x: i32 = #x; d3d_x.abs() }),
            ("imax", [a, b]) => {
                syn::parse_quote_spanned!(at=> { let d3d_a: i32 = #a; let d3d_b: i32 = #b; d3d_a.max(d3d_b) })
            }
            ("imin", [a, b]) => {
                syn::parse_quote_spanned!(at=> { let d3d_a: i32 = #a; let d3d_b: i32 = #b; d3d_a.min(d3d_b) })
            }
            ("umax", [a, b]) => {
                syn::parse_quote_spanned!(at=> { let d3d_a: u32 = #a; let d3d_b: u32 = #b; d3d_a.max(d3d_b) })
            }
            ("umin", [a, b]) => {
                syn::parse_quote_spanned!(at=> { let d3d_a: u32 = #a; let d3d_b: u32 = #b; d3d_a.min(d3d_b) })
            }
            ("mad", [a, b, c]) => syn::parse_quote_spanned!(at=> ((#a) * (#b) + (#c))),
            // Comparisons, not `max`/`min`: Rust leaves the sign of `max(-0.0, 0.0)` open.
            ("clamp", [x, lo, hi]) => syn::parse_quote_spanned!(at=> {
                let d3d_x = #x;
                let d3d_lo = #lo;
                let d3d_hi = #hi;
                let d3d_m = if d3d_x > d3d_lo { d3d_x } else { d3d_lo };
                if d3d_m < d3d_hi { d3d_m } else { d3d_hi }
            }),
            ("rcp", [x]) => syn::parse_quote_spanned!(at=> ((#x).recip())),
            ("saturate", [x]) => syn::parse_quote_spanned!(at=> {
                let d3d_x: f32 = #x;
                if d3d_x > 0.0 { if d3d_x < 1.0 { d3d_x } else { 1.0 } } else { 0.0 }
            }),
            ("radians", [x]) => {
                syn::parse_quote_spanned!(at=> { let d3d_x: f32 = #x; d3d_x.to_radians() })
            }
            ("step", [y, x]) => syn::parse_quote_spanned!(at=> {
                let d3d_y: f32 = #y;
                let d3d_x: f32 = #x;
                if d3d_x >= d3d_y { 1.0 } else { 0.0 }
            }),
            ("smoothstep", [a, b, x]) => syn::parse_quote_spanned!(at=> {
                let d3d_a: f32 = #a;
                let d3d_b: f32 = #b;
                let d3d_x: f32 = #x;
                let d3d_r: f32 = (d3d_x - d3d_a) / (d3d_b - d3d_a);
                let d3d_t: f32 = if d3d_r > 0.0 { if d3d_r < 1.0 { d3d_r } else { 1.0 } } else { 0.0 };
                d3d_t * d3d_t * (3.0 - 2.0 * d3d_t)
            }),
            _ => return None,
        };
        Some(self.expr(&expr))
    }
}

/// A call of a two-valued math function (`precise_math::frexp(x)`, `x.sin_cos()`): its two
/// functions, its name, its arguments (the receiver first), and whether it is `precise_math`.
pub(super) fn pair_call(e: &syn::Expr) -> Option<([MathFn; 2], String, Vec<&syn::Expr>, bool)> {
    match strip(e) {
        syn::Expr::MethodCall(m) if m.turbofish.is_none() => {
            let name = m.method.to_string();
            let fns = math::pair_function(&name, true)?;
            let args = std::iter::once(&*m.receiver).chain(m.args.iter()).collect();
            Some((fns, name, args, false))
        }
        syn::Expr::Call(c) => {
            let syn::Expr::Path(p) = strip(&c.func) else {
                return None;
            };
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let (last, prefix) = segs.split_last()?;
            let module = prefix.last()?;
            if module != "fast_math" && module != "precise_math" || prefix.len() > 2 {
                return None;
            }
            let fns = math::pair_function(last, false)?;
            Some((
                fns,
                last.clone(),
                c.args.iter().collect(),
                module == "precise_math",
            ))
        }
        _ => None,
    }
}
