//! Expressions: the dispatch over syn's expression kinds, literals, paths, unary and binary
//! operators, assignments, casts and array literals, and the errors for the expressions kernels
//! do not have.

use super::*;

impl BodyChecker<'_> {
    pub(super) fn expr(&mut self, e: &syn::Expr) -> Expr {
        let span = e.span();
        match e {
            syn::Expr::Lit(l) => self.lit(&l.lit),
            syn::Expr::Paren(p) => self.expr(&p.expr),
            syn::Expr::Group(g) => self.expr(&g.expr),
            syn::Expr::Path(p) => self.path(p),
            syn::Expr::Unary(u) => self.unary(u),
            syn::Expr::Binary(b) => self.binary(b),
            syn::Expr::Assign(a) => self.assign(a),
            syn::Expr::Cast(c) => self.cast(c),
            syn::Expr::Index(i) => self.index(i),
            syn::Expr::MethodCall(m) => self.method_call(m),
            syn::Expr::Call(c) => self.call(c),
            syn::Expr::If(i) => self.if_expr(i),
            syn::Expr::Match(m) => self.match_expr(m, span),
            syn::Expr::Block(b) => {
                if let Some(l) = &b.label {
                    self.err(
                        Diagnostic::error(
                            Rule::LoopExits,
                            l.name.span(),
                            "labelled blocks are not supported in kernels",
                        )
                        .with_help("label a `loop` instead and end it with `break 'label value`"),
                    );
                    return Self::error_expr(span);
                }
                let block = self.block(&b.block);
                let ty = self.block_ty(&block);
                Expr {
                    kind: ExprKind::Block(block),
                    ty,
                    span,
                }
            }
            syn::Expr::While(w) => self.while_loop(w, span),
            syn::Expr::Loop(l) => self.loop_expr(l, span),
            syn::Expr::ForLoop(f) => self.for_loop(f),
            syn::Expr::Break(b) => self.break_expr(b, span),
            syn::Expr::Continue(c) => self.continue_expr(c, span),
            syn::Expr::Return(r) => self.return_expr(r, span),
            syn::Expr::Array(a) => self.array_list(a),
            syn::Expr::Repeat(r) => self.array_repeat(r, span),
            syn::Expr::Macro(m) => {
                self.err(macro_error(&m.mac));
                Self::error_expr(span)
            }
            syn::Expr::Field(f) if self.tiled_base(&f.base) => self.tiled_field(f),
            // The base's type was already rejected: say nothing more about it.
            syn::Expr::Field(f) if self.is_rejected(&f.base) => Self::error_expr(span),
            syn::Expr::Field(f) if self.is_simple_index(&f.base) => {
                self.err(
                    Diagnostic::error(Rule::TilesOnly, span, "an `Index` has no fields: `global`, `local`, `tile` and `barrier` belong to tiled kernels")
                        .with_help("make the first parameter a `TiledIndex<..>` and launch over `extent.tile::<..>()`; read components with `idx[0]`"),
                );
                Self::error_expr(span)
            }
            syn::Expr::Field(f) => self.field(f, e),
            syn::Expr::Struct(s) if self.is_device_struct(s) => self.struct_literal(s),
            // `()`: the unit value, as an empty block.
            syn::Expr::Tuple(t) if t.elems.is_empty() => Expr {
                kind: ExprKind::Block(Block {
                    stmts: Vec::new(),
                    tail: None,
                }),
                ty: Ty::Unit,
                span,
            },
            syn::Expr::Tuple(t) => self.tuple_expr(t),
            _ => {
                self.err(unsupported_expr(e));
                Self::error_expr(span)
            }
        }
    }

    pub(super) fn lit(&mut self, lit: &syn::Lit) -> Expr {
        let span = Span::from(lit.span());
        let (kind, ty) = match lit {
            syn::Lit::Bool(b) => (Lit::Bool(b.value), Ty::BOOL),
            syn::Lit::Int(i) => {
                let value = match i.base10_parse::<u128>() {
                    Ok(v) => v,
                    Err(_) => {
                        self.err(Diagnostic::error(
                            Rule::LiteralTypes,
                            span,
                            "integer literal too large",
                        ));
                        return Self::error_expr(span);
                    }
                };
                let ty = match i.suffix() {
                    "" => self.infer.new_int(),
                    "f32" | "f64" => {
                        return self.float_lit(
                            value as f64,
                            i.base10_digits().parse().unwrap_or(f32::INFINITY),
                            i.suffix(),
                            span,
                        )
                    }
                    s => match Scalar::from_name(s) {
                        Some(sc) if sc.is_int() => Ty::Scalar(sc),
                        _ => {
                            self.err(unsupported_suffix(span, s));
                            return Self::error_expr(span);
                        }
                    },
                };
                (Lit::Int(value), ty)
            }
            syn::Lit::Float(f) => match f.base10_parse::<f64>() {
                Ok(v) if v.is_infinite() => {
                    self.err(
                        Diagnostic::error(Rule::LiteralTypes, span, "float literal out of range")
                            .with_help("the value is beyond `f64::MAX`; use `f64::INFINITY` or `f32::INFINITY`"),
                    );
                    return Self::error_expr(span);
                }
                Ok(v) => {
                    return self.float_lit(
                        v,
                        f.base10_digits().parse().unwrap_or(f32::INFINITY),
                        f.suffix(),
                        span,
                    )
                }
                Err(_) => {
                    self.err(Diagnostic::error(
                        Rule::LiteralTypes,
                        span,
                        "invalid float literal",
                    ));
                    return Self::error_expr(span);
                }
            },
            _ => {
                self.err(
                    Diagnostic::error(
                        Rule::LiteralTypes,
                        span,
                        "only numeric and `bool` literals are supported in kernels",
                    )
                    .with_help("strings, characters and byte strings do not exist on the device"),
                );
                return Self::error_expr(span);
            }
        };
        Expr {
            kind: ExprKind::Lit(kind),
            ty,
            span,
        }
    }

    fn float_lit(&mut self, value: f64, value32: f32, suffix: &str, span: Span) -> Expr {
        let ty = match suffix {
            "" => self.infer.new_float(),
            "f32" => Ty::Scalar(Scalar::F32),
            "f64" => Ty::Scalar(Scalar::F64),
            s => {
                self.err(unsupported_suffix(span, s));
                return Self::error_expr(span);
            }
        };
        Expr {
            kind: ExprKind::Lit(Lit::Float(value, value32)),
            ty,
            span,
        }
    }

    fn path(&mut self, p: &syn::ExprPath) -> Expr {
        let span = p.span();
        if let Some(ident) = p.path.get_ident() {
            let name = ident.to_string();
            return match self.lookup(&name) {
                Some(Binding::Local(id)) => Expr {
                    kind: ExprKind::Local(id),
                    ty: self.locals[id].ty.clone(),
                    span,
                },
                Some(Binding::Subgroup) => self.subgroup_as_value(span, false),
                Some(Binding::Param(id)) => match self.params[id].kind.clone() {
                    ParamKind::Scalar(s) => Expr {
                        kind: ExprKind::ScalarParam(id),
                        ty: Ty::Scalar(s),
                        span,
                    },
                    // A vector or struct by value is read like a scalar parameter.
                    ParamKind::Value(elem) => Expr {
                        kind: ExprKind::ScalarParam(id),
                        ty: elem.ty(),
                        span,
                    },
                    ParamKind::Texture { .. } | ParamKind::Sampler => {
                        self.err(
                            Diagnostic::error(Rule::Textures, span, format!("`{name}` is a texture view or sampler: it can only be read, sampled, written or asked for its extent"))
                                .with_help(format!("read a texel with `{name}[idx]`, sample with `{name}.sample(&sampler, coord)`, write with `{name}.set(idx, value)`; a sampler is passed to `sample` as `&{name}`")),
                        );
                        Self::error_expr(span)
                    }
                    ParamKind::Buffer { .. } => {
                        self.err(
                            Diagnostic::error(Rule::Names, span, format!("`{name}` is a view or array: it can only be indexed or asked for its extent"))
                                .with_help(format!("read an element with `{name}[idx]` or `{name}[[i, j]]`")),
                        );
                        Self::error_expr(span)
                    }
                },
                None if self.tiled.as_ref().is_some_and(|(t, _)| *t == name) => {
                    self.err(
                        Diagnostic::error(Rule::TiledIndexFields, span, format!("`{name}` is a tiled index: use its fields"))
                            .with_help(format!("read `{name}.global`, `{name}.local`, `{name}.tile`, `{name}.tile_origin` or `{name}.tile_extent`, or wait at `{name}.barrier.wait()`")),
                    );
                    Self::error_expr(span)
                }
                None if self.is_outer_const_name(ident) => {
                    let (index, ty) = self.outer_const(ident);
                    Expr {
                        kind: ExprKind::OuterConst(index),
                        ty,
                        span,
                    }
                }
                None => {
                    self.err(Diagnostic::error(Rule::Names, span, format!("cannot find `{name}` in this kernel")).with_help(
                        "kernels can use their parameters, their own locals, and constants from outside named in Rust's constant style (`TS`, `BLOCK_SIZE`)",
                    ));
                    Self::error_expr(span)
                }
            };
        }
        // `i32::MAX`, `f32::INFINITY`, ...
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if let [ty, name] = &segs[..] {
            if let Some(s) = Scalar::from_name(ty) {
                if let Some(lit) = scalar_constant(s, name) {
                    let lit = Expr {
                        kind: ExprKind::Lit(lit),
                        ty: Ty::Scalar(s),
                        span,
                    };
                    if s.is_signed_int() && name == "MIN" {
                        // `-2147483648`, `-128`: in range for the type only when negated.
                        return Expr {
                            kind: ExprKind::Unary(UnOp::Neg, Box::new(lit)),
                            ty: Ty::Scalar(s),
                            span,
                        };
                    }
                    return lit;
                }
            }
        }
        // `super::GAIN`, `crate::consts::GAIN`, `util::GAIN`: a constant by path, read where
        // the path leads (module segments in lower case, the constant's name in constant style).
        let all: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
        let Some((last, modules)) = all.split_last() else {
            return self.internal(span, "a path has a segment");
        };
        // (`f32::GOLDEN` is no module path; `std::f32::consts::PI` is one.)
        let module_like = |(i, s): (usize, &&syn::PathSegment)| {
            let name = s.ident.to_string();
            s.arguments.is_empty()
                && (name == "$crate"
                    || !name.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
                && (i > 0 || Scalar::from_name(&name).is_none())
        };
        if p.qself.is_none()
            && p.path.leading_colon.is_none()
            && last.arguments.is_empty()
            && modules.iter().enumerate().all(module_like)
            && self.is_outer_const_name(&last.ident)
        {
            let modules: Vec<syn::Ident> = modules.iter().map(|s| s.ident.clone()).collect();
            let (index, ty) = self.outer_const_at(&modules, &last.ident);
            return Expr {
                kind: ExprKind::OuterConst(index),
                ty,
                span,
            };
        }
        self.err(Diagnostic::error(Rule::Names, span, format!("`{}` is not supported in kernels", segs.join("::"))).with_help(
            "kernels can name their parameters, their locals, constants by name or path (`TS`, `super::TS`, `crate::consts::TS`), and constants such as `i32::MAX` or `f32::INFINITY`",
        ));
        Self::error_expr(span)
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> Expr {
        let span = u.span();
        let operand = self.expr(&u.expr);
        let class = self.component_class(&operand.ty);
        let op = match u.op {
            syn::UnOp::Neg(_) => {
                let norm = self.infer.shallow(&operand.ty).component() == Some(Scalar::Norm);
                let ok = class == Class::Float
                    || class == Class::Never
                    || norm
                    || (class == Class::Int
                        && self
                            .infer
                            .shallow(&operand.ty)
                            .component()
                            .is_none_or(|s| s.is_signed_int()));
                if !ok {
                    let ty = self.infer.describe(&operand.ty);
                    let help = if class == Class::Normalized {
                        "a `Unorm` is in [0, 1] and has no negation; convert it to a `Norm` first: `-Norm::from(u)`"
                    } else {
                        "negation works on signed integers (i8, i16, i32), floats and Norm; cast unsigned values to a signed type first"
                    };
                    self.err(
                        Diagnostic::error(
                            Rule::OperandTypes,
                            span,
                            format!("cannot negate a value of type `{ty}`"),
                        )
                        .with_help(help),
                    );
                    return Self::error_expr(span);
                }
                UnOp::Neg
            }
            syn::UnOp::Not(_) => {
                if !matches!(class, Class::Int | Class::Bool | Class::Never) {
                    let ty = self.infer.describe(&operand.ty);
                    self.err(Diagnostic::error(
                        Rule::OperandTypes,
                        span,
                        format!("cannot apply `!` to a value of type `{ty}`"),
                    ));
                }
                UnOp::Not
            }
            syn::UnOp::Deref(_) => {
                self.err(
                    Diagnostic::error(Rule::NoReferences, span, "dereferencing is not allowed in kernels: there are no references or pointers on the device")
                        .with_help("use the value directly"),
                );
                return Self::error_expr(span);
            }
            _ => {
                self.err(Diagnostic::error(
                    Rule::OtherExpressions,
                    span,
                    "this operator is not supported in kernels",
                ));
                return Self::error_expr(span);
            }
        };
        let ty = operand.ty.clone();
        Expr {
            kind: ExprKind::Unary(op, Box::new(operand)),
            ty,
            span,
        }
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Expr {
        let span = b.span();
        use syn::BinOp as S;
        let (op, compound) = match b.op {
            S::And(_) | S::Or(_) => {
                let (l, r) = (self.expr(&b.left), self.expr(&b.right));
                self.expect_ty(&Ty::BOOL, &l, "in this logical operation");
                self.expect_ty(&Ty::BOOL, &r, "in this logical operation");
                let op = if matches!(b.op, S::And(_)) {
                    LogicOp::And
                } else {
                    LogicOp::Or
                };
                return Expr {
                    kind: ExprKind::Logic(op, Box::new(l), Box::new(r)),
                    ty: Ty::BOOL,
                    span,
                };
            }
            S::Add(_) => (BinOp::Add, false),
            S::Sub(_) => (BinOp::Sub, false),
            S::Mul(_) => (BinOp::Mul, false),
            S::Div(_) => (BinOp::Div, false),
            S::Rem(_) => (BinOp::Rem, false),
            S::BitAnd(_) => (BinOp::BitAnd, false),
            S::BitOr(_) => (BinOp::BitOr, false),
            S::BitXor(_) => (BinOp::BitXor, false),
            S::Shl(_) => (BinOp::Shl, false),
            S::Shr(_) => (BinOp::Shr, false),
            S::Eq(_) => (BinOp::Eq, false),
            S::Ne(_) => (BinOp::Ne, false),
            S::Lt(_) => (BinOp::Lt, false),
            S::Le(_) => (BinOp::Le, false),
            S::Gt(_) => (BinOp::Gt, false),
            S::Ge(_) => (BinOp::Ge, false),
            S::AddAssign(_) => (BinOp::Add, true),
            S::SubAssign(_) => (BinOp::Sub, true),
            S::MulAssign(_) => (BinOp::Mul, true),
            S::DivAssign(_) => (BinOp::Div, true),
            S::RemAssign(_) => (BinOp::Rem, true),
            S::BitAndAssign(_) => (BinOp::BitAnd, true),
            S::BitOrAssign(_) => (BinOp::BitOr, true),
            S::BitXorAssign(_) => (BinOp::BitXor, true),
            S::ShlAssign(_) => (BinOp::Shl, true),
            S::ShrAssign(_) => (BinOp::Shr, true),
            _ => {
                self.err(Diagnostic::error(
                    Rule::OtherExpressions,
                    span,
                    "this operator is not supported in kernels",
                ));
                return Self::error_expr(span);
            }
        };
        if compound {
            if let syn::Expr::Field(_) = strip(&b.left) {
                return self.member_assign(&b.left, Some((op, b.op.span())), &b.right, span);
            }
            let place = self.place(&b.left);
            let value = self.expr(&b.right);
            return match place {
                Some((place, ty)) if matches!(self.infer.shallow(&ty), Ty::Vector(..)) => {
                    match self.vector_compound_value(op, &ty, value, b.op.span()) {
                        Some(value) => Expr {
                            kind: ExprKind::CompoundAssign(op, place, Box::new(value)),
                            ty: Ty::Unit,
                            span,
                        },
                        None => Self::error_expr(span),
                    }
                }
                Some((Place::Local(id, path), ty)) if path.is_empty() && self.is_index_ty(&ty) => {
                    // `p += Index::new([1, 0])`, `p *= 2` on an index local: `p = p op value`.
                    let lhs = Expr {
                        kind: ExprKind::Local(id),
                        ty,
                        span: b.left.span(),
                    };
                    let value = self.index_binary(op, lhs, value, b.op.span(), span);
                    Expr {
                        kind: ExprKind::Assign(Place::Local(id, path), Box::new(value)),
                        ty: Ty::Unit,
                        span,
                    }
                }
                Some((place, ty)) => {
                    let lhs = Expr {
                        kind: ExprKind::Lit(Lit::Bool(false)),
                        ty,
                        span: b.left.span(),
                    };
                    self.check_operands(op, &lhs, &value, b.op.span());
                    Expr {
                        kind: ExprKind::CompoundAssign(op, place, Box::new(value)),
                        ty: Ty::Unit,
                        span,
                    }
                }
                None => Self::error_expr(span),
            };
        }
        let (l, r) = (self.expr(&b.left), self.expr(&b.right));
        if [&l, &r]
            .iter()
            .any(|e| self.infer.shallow(&e.ty) == Ty::Never)
        {
            if is_error_expr(&l) || is_error_expr(&r) {
                // An operand with an error: so is the result.
                return Self::error_expr(span);
            }
            // An operand that leaves (`return`, `break`) or whose type is unknown (a device
            // function's call left unchecked in its standalone check): the operands still run,
            // in order, and the result has no value.
            return Expr {
                kind: ExprKind::Block(Block {
                    stmts: vec![Stmt::Expr(l), Stmt::Expr(r)],
                    tail: None,
                }),
                ty: Ty::Never,
                span,
            };
        }
        if self.has_vector_operand(&l, &r) {
            return self.vector_binary(op, l, r, b.op.span(), span);
        }
        if self.has_index_operand(&l, &r) {
            return self.index_binary(op, l, r, b.op.span(), span);
        }
        let ty = self.check_operands(op, &l, &r, b.op.span());
        Expr {
            kind: ExprKind::Binary(op, Box::new(l), Box::new(r)),
            ty,
            span,
        }
    }

    /// Checks the operand types of a binary operator and returns the result type; errors point
    /// at `span`, the operator's.
    pub(super) fn check_operands(&mut self, op: BinOp, l: &Expr, r: &Expr, span: Span) -> Ty {
        let symbol = op_symbol(op);
        if op.is_shift() {
            for side in [l, r] {
                if !matches!(self.infer.class(&side.ty), Class::Int | Class::Never) {
                    let ty = self.infer.describe(&side.ty);
                    self.err(
                        Diagnostic::error(
                            Rule::OperandTypes,
                            side.span,
                            format!("cannot shift with a value of type `{ty}`"),
                        )
                        .with_help("shifts work on integers"),
                    );
                }
            }
            return l.ty.clone();
        }
        let ty = match self.infer.unify(&l.ty, &r.ty) {
            Some(t) => t,
            None => {
                let (lt, rt) = (self.infer.describe(&l.ty), self.infer.describe(&r.ty));
                let int_literal_with_float = |lit: &Expr, other: &Expr| {
                    // An unsuffixed integer literal (`x + 1` with a float `x`).
                    matches!(lit.kind, ExprKind::Lit(Lit::Int(_)))
                        && matches!(self.infer.shallow(&lit.ty), Ty::Var(_))
                        && self.infer.class(&other.ty) == Class::Float
                };
                let normalized = [l, r]
                    .into_iter()
                    .find(|e| self.infer.class(&e.ty) == Class::Normalized)
                    .map(|e| self.infer.describe(&e.ty));
                let help = if let Some(n) = normalized {
                    format!("a `{n}` combines only with another `{n}` (the result is clamped into its range) and `as` does not convert to or from it; make the other side a `{n}` with `{n}::new(x)`, or compute in `f32` with `f32::from(v)`")
                } else if [l, r]
                    .iter()
                    .any(|e| matches!(self.infer.shallow(&e.ty), Ty::Tuple(_)))
                {
                    "a tuple is not a number: read a component (`t.0`) or destructure it (`let (a, b) = t;`)".to_string()
                } else if int_literal_with_float(l, r) || int_literal_with_float(r, l) {
                    "kernels do no implicit conversions; write the integer literal as a float literal (`1.0`, not `1`)".to_string()
                } else {
                    "kernels do no implicit conversions; convert one side with `as`".to_string()
                };
                self.err(
                    Diagnostic::error(
                        Rule::OperandTypes,
                        span,
                        format!("mismatched types: cannot apply `{symbol}` to `{lt}` and `{rt}`"),
                    )
                    .with_help(help),
                );
                return if op.is_comparison() {
                    Ty::BOOL
                } else {
                    Ty::Never
                };
            }
        };
        let class = self.infer.class(&ty);
        let ok = match op {
            BinOp::Eq | BinOp::Ne => matches!(
                class,
                Class::Int | Class::Float | Class::Bool | Class::Normalized | Class::Never
            ),
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                matches!(class, Class::Int | Class::Bool | Class::Never)
            }
            // `Norm` and `Unorm` have the host's `+ - * /` and comparisons, not `%`.
            BinOp::Rem => matches!(class, Class::Int | Class::Float | Class::Never),
            _ => matches!(
                class,
                Class::Int | Class::Float | Class::Normalized | Class::Never
            ),
        };
        if !ok {
            let t = self.infer.describe(&ty);
            let d = Diagnostic::error(
                Rule::OperandTypes,
                span,
                format!("cannot apply `{symbol}` to values of type `{t}`"),
            );
            self.err(if class == Class::Normalized {
                d.with_help(format!("`{t}` has `+`, `-`, `*`, `/` (clamped) and comparisons; compute anything else in `f32` with `f32::from(v)` and convert back with `{t}::new(x)`"))
            } else {
                d
            });
        }
        if op.is_comparison() {
            Ty::BOOL
        } else {
            ty
        }
    }

    pub(super) fn assign(&mut self, a: &syn::ExprAssign) -> Expr {
        let span = a.span();
        if let syn::Expr::Field(_) = strip(&a.left) {
            return self.member_assign(&a.left, None, &a.right, span);
        }
        let place = self.place_of(&a.left, true);
        let value = self.expr(&a.right);
        match place {
            Some((place, ty)) => {
                self.expect_ty(&ty, &value, "in this assignment");
                Expr {
                    kind: ExprKind::Assign(place, Box::new(value)),
                    ty: Ty::Unit,
                    span,
                }
            }
            None => Self::error_expr(span),
        }
    }

    pub(super) fn cast(&mut self, c: &syn::ExprCast) -> Expr {
        let span = c.span();
        let value = self.expr(&c.expr);
        let target = match self.value_type(&c.ty) {
            Ok(Ty::Scalar(s)) => s,
            Ok(other) => {
                self.err(
                    Diagnostic::error(
                        Rule::Casts,
                        c.ty.span(),
                        format!("cannot cast to `{other}`"),
                    )
                    .with_help("`as` converts between scalar types"),
                );
                return Self::error_expr(span);
            }
            Err(d) => {
                self.err(d);
                return Self::error_expr(span);
            }
        };
        let from = self.infer.class(&value.ty);
        if from != Class::Never && (target.is_normalized() || from == Class::Normalized) {
            self.normalized_cast_error(&value, target, span);
            return Self::error_expr(span);
        }
        let ok = match from {
            Class::Int | Class::Float => target != Scalar::Bool,
            Class::Bool => target.is_int(),
            Class::Never => true,
            Class::Other | Class::Normalized => false,
        };
        if !ok {
            let t = self.infer.describe(&value.ty);
            self.err(
                Diagnostic::error(
                    Rule::Casts,
                    span,
                    format!("cannot cast `{t}` as `{}`", target.name()),
                )
                .with_help(if target == Scalar::Bool {
                    "compare instead: `x != 0`"
                } else {
                    "`as` converts between numeric types, and from bool to integers"
                }),
            );
        }
        Expr {
            kind: ExprKind::Cast(Box::new(value)),
            ty: Ty::Scalar(target),
            span,
        }
    }

    fn array_list(&mut self, a: &syn::ExprArray) -> Expr {
        let span = a.span();
        if a.elems.is_empty() {
            self.err(Diagnostic::error(
                Rule::ArrayLengths,
                span,
                "empty arrays are not supported in kernels",
            ));
            return Self::error_expr(span);
        }
        let elems: Vec<Expr> = a.elems.iter().map(|e| self.expr(e)).collect();
        let mut ty = elems[0].ty.clone();
        for e in &elems[1..] {
            ty = self.expect_ty(&ty, e, "in this array");
        }
        let n = elems.len() as u32;
        Expr {
            kind: ExprKind::ArrayList(elems),
            ty: Ty::array(ty, n),
            span,
        }
    }
}

pub(super) fn op_symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
    }
}

fn scalar_constant(s: Scalar, name: &str) -> Option<Lit> {
    Some(match (s, name) {
        // `ZERO` and `ONE` are the `DeviceScalar` trait's, which generic code names as `T::ZERO`.
        (Scalar::I32 | Scalar::U32 | Scalar::Usize, "ZERO") => Lit::Int(0),
        (Scalar::I32 | Scalar::U32 | Scalar::Usize, "ONE") => Lit::Int(1),
        (Scalar::F32 | Scalar::F64, "ZERO") => Lit::Float(0.0, 0.0),
        (Scalar::F32 | Scalar::F64, "ONE") => Lit::Float(1.0, 1.0),
        (Scalar::I32, "MAX") => Lit::Int(i32::MAX as u128),
        // i32::MIN's magnitude: path() negates it, as in `-2147483648`.
        (Scalar::I32, "MIN") => Lit::Int(1 << 31),
        (Scalar::U32 | Scalar::Usize, "MAX") => Lit::Int(u32::MAX as u128),
        (Scalar::U32 | Scalar::Usize, "MIN") => Lit::Int(0),
        // The small integers' bounds (`MIN` of a signed one as its magnitude, negated).
        (s, "MAX") if s.is_small_int() => Lit::Int(s.int_range()?.1 as u128),
        (s, "MIN") if s.is_small_int() => Lit::Int(s.int_range()?.0.unsigned_abs().into()),
        (s, "ZERO") if s.is_small_int() => Lit::Int(0),
        (s, "ONE") if s.is_small_int() => Lit::Int(1),
        (Scalar::F32, "MAX") => Lit::Float(f32::MAX as f64, f32::MAX),
        (Scalar::F32, "MIN") => Lit::Float(f32::MIN as f64, f32::MIN),
        (Scalar::F32, "EPSILON") => Lit::Float(f32::EPSILON as f64, f32::EPSILON),
        (Scalar::F32, "MIN_POSITIVE") => Lit::Float(f32::MIN_POSITIVE as f64, f32::MIN_POSITIVE),
        (Scalar::F64, "MAX") => Lit::Float(f64::MAX, f64::MAX as f32),
        (Scalar::F64, "MIN") => Lit::Float(f64::MIN, f64::MIN as f32),
        (Scalar::F64, "EPSILON") => Lit::Float(f64::EPSILON, f64::EPSILON as f32),
        (Scalar::F64, "MIN_POSITIVE") => Lit::Float(f64::MIN_POSITIVE, f64::MIN_POSITIVE as f32),
        (Scalar::F32 | Scalar::F64, "INFINITY") => Lit::Float(f64::INFINITY, f64::INFINITY as f32),
        (Scalar::F32 | Scalar::F64, "NEG_INFINITY") => {
            Lit::Float(f64::NEG_INFINITY, f64::NEG_INFINITY as f32)
        }
        (Scalar::F32 | Scalar::F64, "NAN") => Lit::Float(f64::NAN, f64::NAN as f32),
        // `Norm::ZERO`, `Unorm::ONE`, `Norm::MIN` (-1), `Unorm::MIN` (0): the host's constants.
        (Scalar::Norm | Scalar::Unorm, "ZERO") => Lit::Float(0.0, 0.0),
        (Scalar::Norm | Scalar::Unorm, "ONE") => Lit::Float(1.0, 1.0),
        (Scalar::Norm | Scalar::Unorm, "MIN") => {
            let lo = s.normalized_min().unwrap_or(0.0);
            Lit::Float(lo as f64, lo)
        }
        _ => return None,
    })
}

fn unsupported_suffix(span: Span, suffix: &str) -> Diagnostic {
    Diagnostic::error(
        Rule::LiteralTypes,
        span,
        format!("literals of type `{suffix}` are not supported in kernels"),
    )
    .with_help("use an unsuffixed literal or one of i8, u8, i16, u16, i32, u32, usize, f32, f64")
}

pub(super) fn macro_error(mac: &syn::Macro) -> Diagnostic {
    let name = mac
        .path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    let help = match name.as_str() {
        "println" | "print" | "eprintln" | "eprint" | "dbg" => "write the values into an `ArrayViewMut` and print them on the host",
        "panic" | "assert" | "assert_eq" | "assert_ne" | "unreachable" | "todo" | "unimplemented" => {
            "report failures through an output view, for example a flag in an `ArrayViewMut<u32, 1>`"
        }
        "vec" | "format" => "there is no heap on the device; use a fixed-size array `[T; N]`",
        _ => "write the code the macro would produce by hand",
    };
    Diagnostic::error(
        Rule::NoMacros,
        mac.path.span(),
        format!("macros are not allowed in amp kernels (`{name}!` cannot run on the device)"),
    )
    .with_help(help)
}

pub(super) fn unsupported_expr(e: &syn::Expr) -> Diagnostic {
    // Point at the token that makes the expression unsupported where it is not the first one.
    let span = match e {
        syn::Expr::Field(f) => f.member.span(),
        syn::Expr::Try(t) => t.question_token.span(),
        syn::Expr::Range(r) => r.limits.span(),
        syn::Expr::Await(a) => a.await_token.span(),
        _ => e.span(),
    };
    let (rule, what, help) = match e {
        syn::Expr::Closure(_) => (
            Rule::NoClosures,
            "closures are not allowed in kernels",
            "write the computation inline",
        ),
        syn::Expr::Reference(_) => (
            Rule::NoReferences,
            "references are not allowed in kernels",
            "use the value directly; only views and arrays are passed by reference",
        ),
        syn::Expr::RawAddr(_) => (
            Rule::NoReferences,
            "raw pointers are not allowed in kernels",
            "index an `ArrayView` instead",
        ),
        syn::Expr::Unsafe(_) => (
            Rule::NoUnsafeAsyncTry,
            "`unsafe` is not allowed in kernels",
            "amp kernels are checked code; remove the `unsafe` block",
        ),
        syn::Expr::Async(_) | syn::Expr::Await(_) => (
            Rule::NoUnsafeAsyncTry,
            "`async` and `.await` are not allowed in kernels",
            "a kernel runs to completion on the device",
        ),
        syn::Expr::Try(_) | syn::Expr::TryBlock(_) => (
            Rule::NoUnsafeAsyncTry,
            "the `?` operator is not allowed in kernels",
            "there is no `Result` on the device; report failures through an output view",
        ),
        syn::Expr::Field(_) => (
            Rule::NoCompoundValues,
            "field access is not supported in kernels",
            "kernels work with scalars, arrays, indices and views",
        ),
        syn::Expr::Range(_) => (
            Rule::RangesOnlyInFor,
            "ranges are only allowed as the iterator of a `for` loop",
            "write `for i in a..b { ... }`",
        ),
        syn::Expr::Struct(_) => (
            Rule::NoCompoundValues,
            "struct expressions are not supported in kernels",
            "use scalars and arrays",
        ),
        syn::Expr::Let(_) => (
            Rule::MatchPatterns,
            "`let` expressions are not supported in kernels",
            "use a plain `if`",
        ),
        syn::Expr::Yield(_) => (
            Rule::OtherExpressions,
            "`yield` is not allowed in kernels",
            "remove it",
        ),
        _ => (
            Rule::OtherExpressions,
            "this expression is not supported in kernels",
            "see the kernel language reference in docs/kernel-language.md",
        ),
    };
    Diagnostic::error(rule, span, what).with_help(help)
}
