//! Calls and method calls: resolves a call to the kernel language's own functions (math,
//! `min`/`max`/`abs`, atomics, fences, vector constructors) or to a device function.

use super::*;

impl BodyChecker<'_> {
    pub(super) fn method_call(&mut self, m: &syn::ExprMethodCall) -> Expr {
        if self.is_barrier(&m.receiver) {
            return self.barrier_wait(m);
        }
        if self.is_subgroup(&m.receiver) {
            return self.subgroup_method(m);
        }
        if let syn::Expr::MethodCall(r) = strip(&m.receiver) {
            if r.method == "subgroup" && self.is_simple_index(&r.receiver) {
                return self.subgroup_as_value(r.span(), true);
            }
        }
        if m.method == "subgroup" {
            if self.tiled_base(&m.receiver) {
                return self.subgroup_as_value(m.span(), false);
            }
            if self.is_simple_index(&m.receiver) {
                return self.subgroup_as_value(m.span(), true);
            }
        }
        if let syn::Expr::Field(f) = strip(&m.receiver) {
            if self.is_rejected(&f.base) {
                return Self::error_expr(m.span());
            }
            if self.is_simple_index(&f.base)
                && matches!(&f.member, syn::Member::Named(n) if n == "barrier")
            {
                self.err(
                    Diagnostic::error(Rule::TilesOnly, m.span(), "barriers exist only in tiled kernels: the threads of a simple kernel do not run in tiles")
                        .with_help("make the first parameter a `TiledIndex<..>` (for example `t: TiledIndex<64>`), launch over `extent.tile::<..>()`, and call `t.barrier.wait()`"),
                );
                return Self::error_expr(m.span());
            }
        }
        let span = m.span();
        let method = m.method.to_string();
        if m.turbofish.is_some() {
            self.err(Diagnostic::error(
                Rule::BuiltinFunctions,
                span,
                "turbofish method calls are not supported in kernels",
            ));
            return Self::error_expr(span);
        }
        if let Some(param) = self.is_texture(&m.receiver) {
            return self.texture_method(param, m, &method);
        }
        if method == "extent" {
            if let Some(param) = self.is_buffer(&m.receiver) {
                if !m.args.is_empty() {
                    self.err(Diagnostic::error(
                        Rule::BuiltinFunctions,
                        span,
                        "`extent()` takes no arguments",
                    ));
                }
                let (_, rank, _) = self.buffer_info(param);
                return Expr {
                    kind: ExprKind::BufferExtent(param),
                    ty: Ty::array(Ty::USIZE, rank),
                    span,
                };
            }
        }
        if let Some(e) = self.normalized_method(m, &method) {
            return e;
        }
        if let Some(e) = self.vector_method(m, &method) {
            return e;
        }
        if let Some(e) = self.wrapping_method(m, &method) {
            return e;
        }
        if let Some(e) = self.overflowing_method(m, &method) {
            return e;
        }
        if let Some(f) = IntMethod::from_name(&method) {
            let receiver = self.expr(&m.receiver);
            let float = self.component_class(&receiver.ty) == Class::Float;
            if !(float && f == IntMethod::Signum) {
                let args: Vec<Expr> = m.args.iter().map(|a| self.expr(a)).collect();
                return self.int_method(f, &method, receiver, args, span);
            }
            let args = vec![receiver];
            return self.math(MathFn::Signum, &method, args, span, false);
        }
        if let Some(f) = MathFn::from_method(&method) {
            let mut args = vec![self.expr(&m.receiver)];
            args.extend(m.args.iter().map(|a| self.expr(a)));
            return self.math(f, &method, args, span, false);
        }
        if math::pair_function(&method, true).is_some() {
            return self.pair_value(&syn::Expr::MethodCall(m.clone()));
        }
        if method == "to_bits" && m.args.is_empty() {
            let value = self.expr(&m.receiver);
            return self.float_to_bits(value, span);
        }
        let builtin = match method.as_str() {
            "min" => Builtin::Min,
            "max" => Builtin::Max,
            "abs" => Builtin::Abs,
            "step_by" => {
                self.err(Diagnostic::error(
                    Rule::RangesOnlyInFor,
                    span,
                    "`step_by` is supported only as the range of a `for` loop",
                ));
                return Self::error_expr(span);
            }
            _ if self.is_vector_receiver(&m.receiver) => {
                self.err(
                    Diagnostic::error(
                        Rule::VectorComponents,
                        m.method.span(),
                        format!("method `{method}` is not supported in kernels"),
                    )
                    .with_help("a swizzle names 2 to 4 components of a short vector from `x`, `y`, `z`, `w` (or `r`, `g`, `b`, `a`), as in `.xy()` or `.zyx()`"),
                );
                return Self::error_expr(span);
            }
            _ => {
                self.err(
                    Diagnostic::error(
                        Rule::BuiltinFunctions,
                        m.method.span(),
                        format!("method `{method}` is not supported in kernels"),
                    )
                    .with_help("kernels support `.min()`, `.max()`, `.abs()`, the float math methods (`.sqrt()`, `.sin()`, `.powf()`, ...; see docs/math.md), Rust's integer methods (`.count_ones()`, `.rotate_left(n)`, `.saturating_add(y)`, `.wrapping_mul(y)`, ...; see docs/kernel-language.md) and `view.extent()`"),
                );
                return Self::error_expr(span);
            }
        };
        let mut args = vec![self.expr(&m.receiver)];
        args.extend(m.args.iter().map(|a| self.expr(a)));
        self.builtin(builtin, args, span)
    }

    pub(super) fn call(&mut self, c: &syn::ExprCall) -> Expr {
        let span = c.span();
        let name = match strip(&c.func) {
            syn::Expr::Path(p) if p.qself.is_none() => {
                let segs: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                if let Some(e) = self.index_call(c, &segs) {
                    return e;
                }
                if let Some(e) = self.normalized_call(c, &segs) {
                    return e;
                }
                if let Some(e) = self.vector_call(c, &segs) {
                    return e;
                }
                let last = segs.last().cloned().unwrap_or_default();
                let prefix = &segs[..segs.len() - 1];
                if matches!(prefix, [m] | [_, m] if m == "direct3d") {
                    if let Some(e) = self.direct3d_call(c, &last) {
                        return e;
                    }
                }
                // `fast_math::sqrt(x)`, `amp::precise_math::pow(x, y)`: C++ AMP's names.
                let amp_math =
                    matches!(prefix, [m] | [_, m] if m == "fast_math" || m == "precise_math");
                if amp_math {
                    if math::pair_function(&last, false).is_some() {
                        return self.pair_value(&syn::Expr::Call(c.clone()));
                    }
                    let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a)).collect();
                    if let Some(f) = MathFn::from_amp(&last) {
                        let precise = prefix.last().is_some_and(|m| m == "precise_math");
                        return self.math(f, &last, args, span, precise);
                    }
                    let builtin = match last.as_str() {
                        "fabs" => Some(Builtin::Abs),
                        "fmin" => Some(Builtin::Min),
                        "fmax" => Some(Builtin::Max),
                        _ => None,
                    };
                    if let Some(b) = builtin {
                        return self.builtin(b, args, span);
                    }
                }
                if let ([t], "to_bits" | "from_bits", [arg]) = (
                    prefix,
                    last.as_str(),
                    &c.args.iter().collect::<Vec<_>>()[..],
                ) {
                    if let Some(s) = Scalar::from_name(t).filter(|s| s.is_float()) {
                        let value = self.expr(arg);
                        return if last == "to_bits" {
                            let value = self.expect_scalar(s, value);
                            self.float_to_bits(value, span)
                        } else {
                            self.float_from_bits(s, value, span)
                        };
                    }
                }
                // `f32::sqrt(x)`: a float method called through its type.
                if let ([t], Some(f)) = (prefix, MathFn::from_method(&last)) {
                    if Scalar::from_name(t).is_some_and(|s| s.is_float()) {
                        let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a)).collect();
                        return self.math(f, &last, args, span, false);
                    }
                }
                let prefix_ok = match prefix {
                    [] => true,
                    [t] => Scalar::from_name(t).is_some() || t == "cmp",
                    [a, b] => (a == "std" || a == "core") && b == "cmp",
                    _ => false,
                };
                if prefix_ok {
                    last
                } else {
                    segs.join("::")
                }
            }
            syn::Expr::Closure(_) | syn::Expr::Paren(_) => {
                self.err(Diagnostic::error(
                    Rule::NoClosures,
                    c.func.span(),
                    "closures and function values are not allowed in kernels",
                ));
                return Self::error_expr(span);
            }
            _ => {
                self.err(Diagnostic::error(
                    Rule::NoClosures,
                    c.func.span(),
                    "only named functions can be called in kernels",
                ));
                return Self::error_expr(span);
            }
        };
        if let Some(op) = AtomicOp::from_name(&name) {
            return self.atomic(op, &name, c);
        }
        let fence = match name.as_str() {
            "all_memory_fence" => Some(Fence::All),
            "global_memory_fence" => Some(Fence::Global),
            "tile_static_memory_fence" => Some(Fence::TileStatic),
            _ => None,
        };
        if let Some(fence) = fence {
            if c.args.len() != 1 || !self.is_barrier(&c.args[0]) {
                self.err(
                    Diagnostic::error(
                        Rule::BarrierCalls,
                        span,
                        format!("`{name}` takes the tile barrier"),
                    )
                    .with_help(format!(
                        "write `{name}(t.barrier)` with the kernel's tiled index `t`"
                    )),
                );
                return Self::error_expr(span);
            }
            return Expr {
                kind: ExprKind::MemoryFence(fence),
                ty: Ty::Unit,
                span,
            };
        }
        let builtin = match name.as_str() {
            "min" => Builtin::Min,
            "max" => Builtin::Max,
            "abs" => Builtin::Abs,
            _ => return self.device_call(c),
        };
        let args = c.args.iter().map(|a| self.expr(a)).collect();
        self.builtin(builtin, args, span)
    }

    /// `x.to_bits()` of an `f32`: its bits as a `u32` (`f64` has no 64-bit integer to go to).
    fn float_to_bits(&mut self, value: Expr, span: Span) -> Expr {
        match (self.infer.shallow(&value.ty), self.infer.class(&value.ty)) {
            (_, Class::Never) => Self::error_expr(span),
            (Ty::Scalar(Scalar::F64), _) => self.bits_of_f64(span),
            (_, Class::Float) => {
                self.expect_ty(&Ty::Scalar(Scalar::F32), &value, "in this `to_bits`");
                Expr {
                    kind: ExprKind::Bitcast(Box::new(value)),
                    ty: Ty::Scalar(Scalar::U32),
                    span,
                }
            }
            _ => {
                let found = self.infer.describe(&value.ty);
                self.err(
                    Diagnostic::error(
                        Rule::BuiltinFunctions,
                        span,
                        format!("`to_bits` is a method of `f32`, not of `{found}`"),
                    )
                    .with_help("integers are their own bits: cast with `as u32`"),
                );
                Self::error_expr(span)
            }
        }
    }

    /// `f32::from_bits(u)`: the `f32` with the bits of a `u32`.
    fn float_from_bits(&mut self, s: Scalar, value: Expr, span: Span) -> Expr {
        if s == Scalar::F64 {
            return self.bits_of_f64(span);
        }
        self.expect_ty(
            &Ty::Scalar(Scalar::U32),
            &value,
            "in this argument of `f32::from_bits`",
        );
        Expr {
            kind: ExprKind::Bitcast(Box::new(value)),
            ty: Ty::Scalar(Scalar::F32),
            span,
        }
    }

    fn bits_of_f64(&mut self, span: Span) -> Expr {
        self.err(
            Diagnostic::error(
                Rule::BuiltinFunctions,
                span,
                "the bits of an `f64` are a `u64`, which kernels do not have",
            )
            .with_help(
                "`f32::to_bits` and `f32::from_bits` are supported; compare `f64` values directly",
            ),
        );
        Self::error_expr(span)
    }

    /// `value`, checked to be of scalar type `s`.
    fn expect_scalar(&mut self, s: Scalar, value: Expr) -> Expr {
        self.expect_ty(&Ty::Scalar(s), &value, "in this argument");
        value
    }
}
