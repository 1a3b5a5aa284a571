//! Short vectors in kernel bodies (`Float3`, `int_2`, ...): construction, components,
//! swizzles, element-wise arithmetic and the geometric methods.
//!
//! Everything lowers onto IR the back end already knows: a constructor is an
//! [`ExprKind::ArrayList`] / [`ExprKind::ArrayRepeat`] of vector type, a component is an
//! [`ExprKind::Element`] with a literal index, a swizzle is a list of components, and a scalar
//! operand of a vector operator is splatted first, so both operands of a vector operator always
//! have the same type.

use super::expr::{op_symbol, unsupported_expr};
use super::*;

/// The component letters, C++ AMP's two sets: `x y z w` and `r g b a`.
fn component_index(c: char) -> Option<u32> {
    match c {
        'x' | 'r' => Some(0),
        'y' | 'g' => Some(1),
        'z' | 'b' => Some(2),
        'w' | 'a' => Some(3),
        _ => None,
    }
}

/// The components a swizzle method names (`zyx` -> `[2, 1, 0]`), when the name is one: 2 to
/// 4 letters, all from `xyzw` or all from `rgba`.
fn swizzle_components(name: &str) -> Option<Vec<u32>> {
    let xyzw = name.chars().all(|c| "xyzw".contains(c));
    let rgba = name.chars().all(|c| "rgba".contains(c));
    if !(2..=4).contains(&name.len()) || !(xyzw || rgba) {
        return None;
    }
    name.chars().map(component_index).collect()
}

/// The help for a component outside a vector, or a misspelt one.
fn component_help(n: u32) -> String {
    let letters = &"xyzw"[..n as usize];
    let list: Vec<String> = letters.chars().map(|c| format!("`{c}`")).collect();
    format!(
        "a {n}-component vector has the components {}; swizzles combine them, as in `.{}()`",
        list.join(", "),
        letters.chars().rev().collect::<String>()
    )
}

impl BodyChecker<'_> {
    /// The class of a type, or of its components for a short vector.
    pub(super) fn component_class(&self, ty: &Ty) -> Class {
        match self.infer.shallow(ty) {
            Ty::Vector(s, _) => self.infer.class(&Ty::Scalar(s)),
            other => self.infer.class(&other),
        }
    }

    /// The short vector type of `ty`, if it is one.
    fn vector_of(&self, ty: &Ty) -> Option<(Scalar, u32)> {
        match self.infer.shallow(ty) {
            Ty::Vector(s, n) => Some((s, n)),
            _ => None,
        }
    }

    /// Whether `receiver`, the receiver of a method no kernel type has, is a short vector (so
    /// the error can explain swizzles, `.xq()` being a mistyped one). It is checked only for
    /// its type: its own errors are reported when its method is fixed.
    pub(super) fn is_vector_receiver(&mut self, receiver: &syn::Expr) -> bool {
        let before = self.diags.len();
        let locals = self.locals.len();
        let ty = self.expr(receiver).ty;
        let is_vector = self.vector_of(&ty).is_some();
        self.diags.truncate(before);
        // Temporaries the receiver declared belong to no statement: drop them again.
        self.locals.truncate(locals);
        is_vector
    }

    /// Whether either operand is a short vector (then [`vector_binary`](Self::vector_binary)
    /// checks the operator).
    pub(super) fn has_vector_operand(&self, l: &Expr, r: &Expr) -> bool {
        self.vector_of(&l.ty).is_some() || self.vector_of(&r.ty).is_some()
    }

    /// `Float3::new(x, y, z)`, `Float3::splat(v)`, and the free forms of the geometric
    /// functions (`dot(a, b)`, `cross(a, b)`, `length(v)`, `normalize(v)`); `None` when the
    /// call is none of these.
    pub(super) fn vector_call(&mut self, c: &syn::ExprCall, segs: &[String]) -> Option<Expr> {
        let span = c.span();
        if let [ty, ctor] = segs {
            let (s, n) = vector_from_name(ty)?;
            let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a)).collect();
            return Some(self.vector_constructor(s, n, ctor, args, span));
        }
        let builtin = match segs {
            [f] if f == "dot" => Builtin::Dot,
            [f] if f == "cross" => Builtin::Cross,
            [f] if f == "length" => Builtin::Length,
            [f] if f == "normalize" => Builtin::Normalize,
            _ => return None,
        };
        let args = c.args.iter().map(|a| self.expr(a)).collect();
        Some(self.geometric(builtin, args, span))
    }

    fn vector_constructor(
        &mut self,
        s: Scalar,
        n: u32,
        ctor: &str,
        args: Vec<Expr>,
        span: Span,
    ) -> Expr {
        let ty = Ty::Vector(s, n);
        let want = match ctor {
            "new" => n as usize,
            "splat" => 1,
            _ => {
                self.err(
                    Diagnostic::error(
                        Rule::VectorConstruction,
                        span,
                        format!("`{ty}::{ctor}` is not supported in kernels"),
                    )
                    .with_help(format!(
                        "build a `{ty}` with `{ty}::new(..)` ({n} components) or `{ty}::splat(v)`"
                    )),
                );
                return Self::error_expr(span);
            }
        };
        if args.len() != want {
            self.err(
                Diagnostic::error(
                    Rule::VectorConstruction,
                    span,
                    format!(
                        "`{ty}::{ctor}` takes {want} argument(s) of type `{}`, found {}",
                        s.name(),
                        args.len()
                    ),
                )
                .with_help(format!(
                    "`{ty}::new(..)` takes one value per component ({n}), `{ty}::splat(v)` one \
                     value for all; a shorter vector comes from a swizzle (`.xy()`)"
                )),
            );
            return Self::error_expr(span);
        }
        let context = format!("in this `{ty}::{ctor}`");
        for a in &args {
            self.expect_ty(&Ty::Scalar(s), a, &context);
        }
        let kind = if ctor == "splat" {
            match args.into_iter().next() {
                Some(v) => ExprKind::ArrayRepeat(Box::new(v), n),
                None => return self.internal(span, "splat has one argument"),
            }
        } else {
            ExprKind::ArrayList(args)
        };
        Expr { kind, ty, span }
    }

    /// Vector methods: swizzles (`.xy()`, `.zyx()`) and the geometric functions; `None` when
    /// `method` is neither.
    pub(super) fn vector_method(&mut self, m: &syn::ExprMethodCall, method: &str) -> Option<Expr> {
        let span = m.span();
        if let Some(components) = swizzle_components(method) {
            let base = self.expr(&m.receiver);
            if !m.args.is_empty() {
                self.err(Diagnostic::error(
                    Rule::VectorComponents,
                    span,
                    format!("`.{method}()` takes no arguments"),
                ));
            }
            return Some(self.swizzle(base, method, &components, span));
        }
        let builtin = match method {
            "dot" => Builtin::Dot,
            "cross" => Builtin::Cross,
            "length" => Builtin::Length,
            "normalize" => Builtin::Normalize,
            _ => return None,
        };
        let mut args = vec![self.expr(&m.receiver)];
        args.extend(m.args.iter().map(|a| self.expr(a)));
        Some(self.geometric(builtin, args, span))
    }

    /// `base.zyx()`: the named components of `base`, as a new vector.
    fn swizzle(&mut self, base: Expr, method: &str, components: &[u32], span: Span) -> Expr {
        let Some((s, n)) = self.vector_of(&base.ty) else {
            if self.infer.shallow(&base.ty) != Ty::Never {
                let t = self.infer.describe(&base.ty);
                self.err(
                    Diagnostic::error(
                        Rule::VectorComponents,
                        span,
                        format!("swizzle `.{method}()` on a `{t}`"),
                    )
                    .with_help("swizzles work on short vectors (`Float3`, `int_2`, ...)"),
                );
            }
            return Self::error_expr(span);
        };
        if let Some(&bad) = components.iter().find(|&&k| k >= n) {
            let letter = method
                .chars()
                .nth(components.iter().position(|&k| k == bad).unwrap_or(0));
            let t = Ty::Vector(s, n);
            self.err(
                Diagnostic::error(
                    Rule::VectorComponents,
                    span,
                    format!("`{t}` has no component `{}`", letter.unwrap_or('?')),
                )
                .with_help(component_help(n)),
            );
            return Self::error_expr(span);
        }
        if s.is_normalized() {
            let t = Ty::Vector(s, n);
            self.err(
                Diagnostic::error(
                    Rule::VectorComponents,
                    span,
                    format!("`{t}` has no swizzles"),
                )
                .with_help(format!(
                    "as on the host, build the vector from its fields: `{t}::new(v.z, v.y, ..)`"
                )),
            );
            return Self::error_expr(span);
        }
        // Evaluate the base once: a local is read in place, anything else goes to a temporary.
        let (setup, local) = match base.kind {
            ExprKind::Local(id) => (None, id),
            _ => {
                let tmp = self.hidden("#swizzle", base.ty.clone());
                (Some(Stmt::Let(tmp, Some(base.clone()))), tmp)
            }
        };
        let parts = components
            .iter()
            .map(|&k| self.component_of_local(local, Ty::Vector(s, n), k, span))
            .collect();
        let ty = Ty::Vector(s, components.len() as u32);
        let list = Expr {
            kind: ExprKind::ArrayList(parts),
            ty: ty.clone(),
            span,
        };
        match setup {
            None => list,
            Some(stmt) => Expr {
                kind: ExprKind::Block(Block {
                    stmts: vec![stmt],
                    tail: Some(Box::new(list)),
                }),
                ty,
                span,
            },
        }
    }

    fn component_of_local(&self, local: LocalId, ty: Ty, k: u32, span: Span) -> Expr {
        let Some(s) = ty.component() else {
            return Self::error_expr(span);
        };
        let base = Expr {
            kind: ExprKind::Local(local),
            ty,
            span,
        };
        member_expr(base, Ty::Scalar(s), k, span)
    }

    /// `dot`, `cross`, `length`, `normalize`: float vectors only (GLSL.std.450 and `OpDot`).
    fn geometric(&mut self, builtin: Builtin, args: Vec<Expr>, span: Span) -> Expr {
        let (name, arity) = match builtin {
            Builtin::Dot => ("dot", 2),
            Builtin::Cross => ("cross", 2),
            Builtin::Length => ("length", 1),
            _ => ("normalize", 1),
        };
        if args.len() != arity {
            let form = if arity == 2 {
                format!("`a.{name}(b)` or `{name}(a, b)`, with `a` and `b` of one vector type")
            } else {
                format!("`v.{name}()` or `{name}(v)`")
            };
            self.err(
                Diagnostic::error(
                    Rule::VectorGeometry,
                    span,
                    format!("`{name}` takes {arity} vector(s), found {}", args.len()),
                )
                .with_help(format!("write {form}")),
            );
            return Self::error_expr(span);
        }
        let mut ty = args[0].ty.clone();
        for a in &args[1..] {
            ty = self.expect_ty(&ty, a, &format!("in this call to `{name}`"));
        }
        let shallow = self.infer.shallow(&ty);
        if shallow == Ty::Never {
            return Self::error_expr(span);
        }
        let ok = match shallow {
            Ty::Vector(s, 3) if builtin == Builtin::Cross => s.is_float(),
            Ty::Vector(s, _) => s.is_float() && builtin != Builtin::Cross,
            _ => false,
        };
        if !ok {
            let t = self.infer.describe(&ty);
            let help = if builtin == Builtin::Cross {
                "`cross` takes two 3-component float vectors (`Float3`, `Double3`)"
            } else {
                "the geometric functions take float vectors (`Float2..4`, `Double2..4`); convert integer components with `as`"
            };
            self.err(
                Diagnostic::error(
                    Rule::VectorGeometry,
                    span,
                    format!("`{name}` is not defined for `{t}`"),
                )
                .with_help(help),
            );
            return Self::error_expr(span);
        }
        let result = match builtin {
            Builtin::Dot | Builtin::Length => match shallow.component() {
                Some(s) => Ty::Scalar(s),
                None => return self.internal(span, "a geometric function's operand is a vector"),
            },
            _ => shallow,
        };
        Expr {
            kind: ExprKind::Builtin(builtin, args),
            ty: result,
            span,
        }
    }

    /// `v.x`: a component of a short vector, or `p.mass`: a field of a struct. Other field
    /// accesses keep their error.
    pub(super) fn field(&mut self, f: &syn::ExprField, e: &syn::Expr) -> Expr {
        let span = e.span();
        if self.is_buffer(&f.base).is_some() {
            self.err(unsupported_expr(e));
            return Self::error_expr(span);
        }
        let base = self.expr(&f.base);
        let base_ty = self.infer.shallow(&base.ty);
        if base_ty == Ty::Never {
            return Self::error_expr(span);
        }
        if !matches!(base_ty, Ty::Vector(..) | Ty::Struct(_) | Ty::Tuple(_)) {
            self.err(unsupported_expr(e));
            return Self::error_expr(span);
        }
        match self.member(&base_ty, &f.member) {
            Some((k, ty)) => member_expr(base, ty, k, span),
            None => Self::error_expr(span),
        }
    }

    /// The index and type of a vector component or a struct field named `member` of a value
    /// of type `ty`, reporting a wrong one.
    pub(super) fn member(&mut self, ty: &Ty, member: &syn::Member) -> Option<(u32, Ty)> {
        match ty {
            Ty::Vector(s, n) => self
                .component_member(member, *n, s.is_normalized())
                .map(|k| (k, Ty::Scalar(*s))),
            Ty::Struct(def) => self.struct_field(def, member),
            Ty::Tuple(items) => self.tuple_member(items, member),
            _ => None,
        }
    }

    /// The component a member names (`x` -> 0), reporting a wrong one.
    /// The normalized vectors (`Unorm4`) have the host's fields `x y z w` only.
    fn component_member(&mut self, member: &syn::Member, n: u32, xyzw_only: bool) -> Option<u32> {
        let name = match member {
            syn::Member::Named(id) => id.to_string(),
            syn::Member::Unnamed(i) => i.index.to_string(),
        };
        let mut chars = name.chars();
        let k = match (chars.next(), chars.next()) {
            (Some(c), None) if !xyzw_only || "xyzw".contains(c) => {
                component_index(c).filter(|&k| k < n)
            }
            _ => None,
        };
        if k.is_none() {
            self.err(
                Diagnostic::error(
                    Rule::VectorComponents,
                    member.span(),
                    format!("a {n}-component vector has no field `{name}`"),
                )
                .with_help(component_help(n)),
            );
        }
        k
    }

    /// Resolves the left side of an assignment to a member (`v.x`, `p.pos.y`, `out[i].mass`):
    /// the place of its root value and the member indices from there.
    fn member_place(&mut self, e: &syn::Expr) -> Option<MemberPlace> {
        let syn::Expr::Field(f) = strip(e) else {
            let (place, ty) = self.place(e)?;
            return Some(MemberPlace {
                place,
                root_ty: ty.clone(),
                path: Vec::new(),
                ty,
            });
        };
        let mut inner = self.member_place(&f.base)?;
        let ty = self.infer.shallow(&inner.ty);
        if !matches!(ty, Ty::Vector(..) | Ty::Struct(_) | Ty::Tuple(_)) {
            if ty != Ty::Never {
                self.err(unsupported_expr(e));
            }
            return None;
        }
        let (k, member_ty) = self.member(&ty, &f.member)?;
        inner.path.push(k);
        inner.ty = member_ty;
        Some(inner)
    }

    /// `v.x = value` and `v.x op= value` (`op` is `Some` for compound assignment), and the
    /// same for struct fields, nested or not: a member of a local, or of a view element
    /// (`out[i].y = 1.0`, which reads the element, replaces the member and writes the element
    /// back).
    pub(super) fn member_assign(
        &mut self,
        left: &syn::Expr,
        op: Option<(BinOp, Span)>,
        value: &syn::Expr,
        span: Span,
    ) -> Expr {
        let target = self.member_place(left);
        let value = self.expr(value);
        let Some(target) = target else {
            return Self::error_expr(span);
        };
        let lit = |k: u32| Expr {
            kind: ExprKind::Lit(Lit::Int(k as u128)),
            ty: Ty::USIZE,
            span,
        };
        let path: Vec<Expr> = target.path.iter().map(|&k| lit(k)).collect();
        let left_span = left.span();
        let member_ty = target.ty.clone();
        let write_member = |this: &mut Self, place: Place| {
            let kind = match op {
                Some((op, op_span)) if matches!(this.infer.shallow(&member_ty), Ty::Vector(..)) => {
                    match this.vector_compound_value(op, &member_ty, value.clone(), op_span) {
                        Some(v) => ExprKind::CompoundAssign(op, place, Box::new(v)),
                        None => return Self::error_expr(span),
                    }
                }
                Some((op, op_span)) => {
                    let target = Expr {
                        kind: ExprKind::Lit(Lit::Bool(false)),
                        ty: member_ty.clone(),
                        span: left_span,
                    };
                    this.check_operands(op, &target, &value, op_span);
                    ExprKind::CompoundAssign(op, place, Box::new(value.clone()))
                }
                None => {
                    this.expect_ty(&member_ty, &value, "in this assignment");
                    ExprKind::Assign(place, Box::new(value.clone()))
                }
            };
            Expr {
                kind,
                ty: Ty::Unit,
                span,
            }
        };
        match target.place {
            Place::Local(id, mut idx) => {
                idx.extend(path);
                write_member(self, Place::Local(id, idx))
            }
            Place::Buffer(p, idx) => {
                // Read-modify-write of the whole element through a temporary.
                let ty = target.root_ty;
                let tmp = self.hidden("#element", ty.clone());
                let load = Expr {
                    kind: ExprKind::BufferLoad(p, idx.clone()),
                    ty: ty.clone(),
                    span,
                };
                let update = write_member(self, Place::Local(tmp, path));
                let tmp_value = Expr {
                    kind: ExprKind::Local(tmp),
                    ty,
                    span,
                };
                let store = Expr {
                    kind: ExprKind::Assign(Place::Buffer(p, idx), Box::new(tmp_value)),
                    ty: Ty::Unit,
                    span,
                };
                Expr {
                    kind: ExprKind::Block(Block {
                        stmts: vec![
                            Stmt::Let(tmp, Some(load)),
                            Stmt::Expr(update),
                            Stmt::Expr(store),
                        ],
                        tail: None,
                    }),
                    ty: Ty::Unit,
                    span,
                }
            }
        }
    }

    /// Checks a binary operator with a short vector on at least one side. Element-wise
    /// `+ - * / %` on two vectors of one type, or a vector and a scalar of its component type
    /// (splatted here, so the IR's operands always match).
    pub(super) fn vector_binary(
        &mut self,
        op: BinOp,
        l: Expr,
        r: Expr,
        op_span: Span,
        span: Span,
    ) -> Expr {
        let (lt, rt) = (self.infer.describe(&l.ty), self.infer.describe(&r.ty));
        let symbol = op_symbol(op);
        if !matches!(
            op,
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem
        ) {
            let help = if op.is_comparison() {
                "compare components (`a.x < b.x`) instead of whole vectors"
            } else {
                "vectors support `+`, `-`, `*`, `/` and `%`, element-wise"
            };
            self.err(
                Diagnostic::error(
                    Rule::VectorOperands,
                    op_span,
                    format!("cannot apply `{symbol}` to `{lt}` and `{rt}`"),
                )
                .with_help(help),
            );
            return Self::error_expr(span);
        }
        let (vector, scalar_side) = match (self.vector_of(&l.ty), self.vector_of(&r.ty)) {
            (Some(a), Some(b)) if a == b => (a, None),
            (Some(a), Some(_)) => {
                self.err(
                    Diagnostic::error(Rule::VectorOperands, op_span, format!("mismatched types: cannot apply `{symbol}` to `{lt}` and `{rt}`"))
                        .with_help(format!(
                            "both vectors need the same type and length; take components or a swizzle (`.xy()`), or build one with `{}::new(..)`",
                            Ty::Vector(a.0, a.1)
                        )),
                );
                return Self::error_expr(span);
            }
            (Some(a), None) => (a, Some(false)),
            (None, Some(b)) => (b, Some(true)),
            (None, None) => return self.internal(span, "has_vector_operand() found one"),
        };
        let (s, n) = vector;
        let ty = Ty::Vector(s, n);
        if s.is_normalized() && (op == BinOp::Rem || scalar_side.is_some()) {
            // The host's normalized vectors have `+ - * /` with their own type only.
            let help = if op == BinOp::Rem {
                format!("`{ty}` has `+`, `-`, `*` and `/` with another `{ty}`, component by component and clamped")
            } else {
                format!("a `{ty}` combines only with another `{ty}`; make one of the scalar with `{ty}::splat(x)`")
            };
            self.err(
                Diagnostic::error(
                    Rule::VectorOperands,
                    op_span,
                    format!("cannot apply `{symbol}` to `{lt}` and `{rt}`"),
                )
                .with_help(help),
            );
            return Self::error_expr(span);
        }
        let (l, r) = match scalar_side {
            None => (l, r),
            Some(left_is_scalar) => {
                let (v, x) = if left_is_scalar { (r, l) } else { (l, r) };
                if self.infer.unify(&Ty::Scalar(s), &x.ty).is_none() {
                    self.err(
                        Diagnostic::error(Rule::VectorOperands, op_span, format!("mismatched types: cannot apply `{symbol}` to `{lt}` and `{rt}`"))
                            .with_help(format!("a `{ty}` combines with a `{}` scalar (applied to every component); convert with `as`", s.name())),
                    );
                    return Self::error_expr(span);
                }
                let splat = splat_expr(x, s, n);
                if left_is_scalar {
                    (splat, v)
                } else {
                    (v, splat)
                }
            }
        };
        if s == Scalar::Bool {
            self.err(Diagnostic::error(
                Rule::VectorOperands,
                op_span,
                format!("cannot apply `{symbol}` to `{ty}`"),
            ));
        }
        Expr {
            kind: ExprKind::Binary(op, Box::new(l), Box::new(r)),
            ty,
            span,
        }
    }

    /// `v op= value` with a vector `v`: `value` is a vector of the same type or a scalar of
    /// its component type (splatted). Returns the value to combine, or `None` after an error.
    pub(super) fn vector_compound_value(
        &mut self,
        op: BinOp,
        target: &Ty,
        value: Expr,
        op_span: Span,
    ) -> Option<Expr> {
        let span = value.span;
        let lhs = Expr {
            kind: ExprKind::Lit(Lit::Bool(false)),
            ty: target.clone(),
            span,
        };
        let checked = self.vector_binary(op, lhs, value, op_span, span);
        match checked.kind {
            ExprKind::Binary(_, _, r) => Some(*r),
            _ => None,
        }
    }
}

/// Where a member assignment writes: the root place, its type, and the member indices.
struct MemberPlace {
    place: Place,
    root_ty: Ty,
    path: Vec<u32>,
    /// The member's type.
    ty: Ty,
}

/// Member `k` (a vector component or a struct field) of type `ty` of the value `base`.
pub(super) fn member_expr(base: Expr, ty: Ty, k: u32, span: Span) -> Expr {
    let index = Expr {
        kind: ExprKind::Lit(Lit::Int(k as u128)),
        ty: Ty::USIZE,
        span,
    };
    Expr {
        kind: ExprKind::Element(Box::new(base), Box::new(index)),
        ty,
        span,
    }
}

/// A vector of `n` copies of the scalar `x`.
fn splat_expr(x: Expr, s: Scalar, n: u32) -> Expr {
    let span = x.span;
    Expr {
        kind: ExprKind::ArrayRepeat(Box::new(x), n),
        ty: Ty::Vector(s, n),
        span,
    }
}
