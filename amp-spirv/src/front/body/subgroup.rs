//! The tile's subgroups: `t.subgroup()` (or a name bound to it) and its operations
//! (docs/kernel-language.md, "Subgroups").
//!
//! A subgroup handle is not a value: `let sg = t.subgroup();` binds a name the checker
//! resolves, like the tiled index itself, and every use of it is a method call.

use super::*;

/// What an operation's value operand may be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Operand {
    /// `bool` (the votes and ballots).
    Bool,
    /// `i32`, `u32`, `f32`, `f64` (arithmetic: add, min, max).
    Number,
    /// `i32`, `u32`, `bool` (bitwise: and, or, xor).
    Bits,
    /// `i32`, `u32`, `f32`, `f64`, `bool` (moving values between lanes).
    Any,
}

/// The operation a method name asks for, its value operand (if any) and whether it takes a
/// `u32` lane or mask after it.
fn operation(method: &str) -> Option<(SubgroupOp, Option<Operand>, bool)> {
    use SubgroupOp as S;
    let scan = |name: &str| -> Option<GroupOp> {
        Some(match name {
            "add" => GroupOp::Add,
            "min" => GroupOp::Min,
            "max" => GroupOp::Max,
            "and" => GroupOp::And,
            "or" => GroupOp::Or,
            "xor" => GroupOp::Xor,
            _ => return None,
        })
    };
    let value = |op: GroupOp| match op {
        GroupOp::Add | GroupOp::Min | GroupOp::Max => Operand::Number,
        GroupOp::And | GroupOp::Or | GroupOp::Xor => Operand::Bits,
    };
    Some(match method {
        "size" => (S::Size, None, false),
        "lane" => (S::Lane, None, false),
        "index" => (S::Index, None, false),
        "count" => (S::Count, None, false),
        "elect" => (S::Elect, None, false),
        "all" => (S::All, Some(Operand::Bool), false),
        "any" => (S::Any, Some(Operand::Bool), false),
        "ballot" => (S::Ballot, Some(Operand::Bool), false),
        "count_true" => (S::CountTrue, Some(Operand::Bool), false),
        "exclusive_count_true" => (S::ExclusiveCountTrue, Some(Operand::Bool), false),
        "broadcast" => (S::Broadcast, Some(Operand::Any), true),
        "broadcast_first" => (S::BroadcastFirst, Some(Operand::Any), false),
        "shuffle" => (S::Shuffle, Some(Operand::Any), true),
        "shuffle_xor" => (S::ShuffleXor, Some(Operand::Any), true),
        other => {
            if let Some(op) = scan(other) {
                (S::Reduce(op), Some(value(op)), false)
            } else if let Some(op) = other.strip_prefix("inclusive_").and_then(scan) {
                (S::InclusiveScan(op), Some(value(op)), false)
            } else if let Some(op) = other.strip_prefix("exclusive_").and_then(scan) {
                (S::ExclusiveScan(op), Some(value(op)), false)
            } else {
                return None;
            }
        }
    })
}

const METHODS: &str = "`size()`, `lane()`, `index()`, `count()`, `elect()`, `all(b)`, `any(b)`, `ballot(b)`, `count_true(b)`, `exclusive_count_true(b)`, `broadcast(v, lane)`, `broadcast_first(v)`, `shuffle(v, lane)`, `shuffle_xor(v, mask)`, and `add`, `min`, `max`, `and`, `or`, `xor` with their `inclusive_` and `exclusive_` scans";

impl BodyChecker<'_> {
    /// Whether `e` is `t.subgroup()` on the kernel's tiled index.
    pub(super) fn is_subgroup_call(&self, e: &syn::Expr) -> bool {
        matches!(strip(e), syn::Expr::MethodCall(m)
            if m.method == "subgroup" && self.tiled_base(&m.receiver))
    }

    /// Whether `e` names the tile's subgroup: `t.subgroup()` or a name bound to it.
    pub(super) fn is_subgroup(&self, e: &syn::Expr) -> bool {
        if self.is_subgroup_call(e) {
            return true;
        }
        matches!(strip(e), syn::Expr::Path(p)
            if p.path.get_ident().is_some_and(|i| matches!(self.lookup(&i.to_string()), Some(Binding::Subgroup))))
    }

    /// `t.subgroup()` (or `idx.subgroup()`) where a value is expected: only a receiver, or a
    /// `let` of a plain name.
    pub(super) fn subgroup_as_value(&mut self, span: Span, simple: bool) -> Expr {
        let d = if simple {
            Diagnostic::error(Rule::TilesOnly, span, "subgroups exist only in tiled kernels: the threads of a simple kernel do not run in tiles")
                .with_help("make the first parameter a `TiledIndex<..>` (for example `t: TiledIndex<64>`), launch over `extent.tile::<..>()`, and call `t.subgroup()`")
        } else {
            Diagnostic::error(Rule::SubgroupCalls, span, "the tile's subgroup is not a value: call its operations")
                .with_help("bind it with `let sg = t.subgroup();` and call `sg.add(x)`, `sg.shuffle_xor(x, 1)`, ..., or call them on `t.subgroup()` directly")
        };
        self.err(d);
        Self::error_expr(span)
    }

    /// `let sg = t.subgroup();`: binds `sg` to the subgroup (no local, no code).
    pub(super) fn bind_subgroup(&mut self, pat: &syn::Pat) {
        match pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                let name = p.ident.to_string();
                if let Some(scope) = self.scopes.last_mut() {
                    scope.push((name, Binding::Subgroup));
                }
            }
            other => {
                self.err(
                    Diagnostic::error(
                        Rule::SubgroupCalls,
                        other.span(),
                        "the tile's subgroup can only be bound to a plain name",
                    )
                    .with_help("write `let sg = t.subgroup();`"),
                );
            }
        }
    }

    /// `sg.op(args)` on the tile's subgroup.
    pub(super) fn subgroup_method(&mut self, m: &syn::ExprMethodCall) -> Expr {
        let span = m.span();
        let method = m.method.to_string();
        let Some((op, value, lane)) = operation(&method) else {
            self.err(
                Diagnostic::error(
                    Rule::SubgroupCalls,
                    m.method.span(),
                    format!("a subgroup has no operation `{method}`"),
                )
                .with_help(format!("its operations are {METHODS}")),
            );
            return Self::error_expr(span);
        };
        let arity = usize::from(value.is_some()) + usize::from(lane);
        if m.args.len() != arity {
            self.err(Diagnostic::error(
                Rule::SubgroupCalls,
                span,
                format!(
                    "`{method}` takes {arity} argument(s), found {}",
                    m.args.len()
                ),
            ));
            return Self::error_expr(span);
        }
        let args: Vec<Expr> = m.args.iter().map(|a| self.expr(a)).collect();
        let mut ty = Ty::Scalar(Scalar::U32);
        if let (Some(kind), Some(v)) = (value, args.first()) {
            ty = self.infer.shallow(&v.ty);
            if !self.subgroup_operand_ok(kind, &ty) {
                let (t, want) = (
                    self.infer.describe(&ty),
                    match kind {
                        Operand::Bool => "`bool`",
                        Operand::Number => "`i32`, `u32`, `f32` or `f64`",
                        Operand::Bits => "`i32`, `u32` or `bool`",
                        Operand::Any => "`i32`, `u32`, `f32`, `f64` or `bool`",
                    },
                );
                self.err(
                    Diagnostic::error(
                        Rule::SubgroupCalls,
                        v.span,
                        format!("`{method}` works on {want}, not `{t}`"),
                    )
                    .with_help("convert the value with `as` (a `usize` index with `as u32`)"),
                );
                return Self::error_expr(span);
            }
        }
        if lane {
            let what = match op {
                SubgroupOp::ShuffleXor => "the mask of `shuffle_xor`",
                _ => "the lane",
            };
            self.expect_ty(&Ty::Scalar(Scalar::U32), &args[arity - 1], what);
        }
        let result = match op {
            SubgroupOp::Size
            | SubgroupOp::Lane
            | SubgroupOp::Index
            | SubgroupOp::Count
            | SubgroupOp::CountTrue
            | SubgroupOp::ExclusiveCountTrue => Ty::Scalar(Scalar::U32),
            SubgroupOp::Elect | SubgroupOp::All | SubgroupOp::Any => Ty::BOOL,
            SubgroupOp::Ballot => Ty::Vector(Scalar::U32, 4),
            _ => ty,
        };
        Expr {
            kind: ExprKind::Subgroup(op, args),
            ty: result,
            span,
        }
    }

    /// Whether a value of type `ty` (as far as it is inferred) suits an operand of `kind`.
    fn subgroup_operand_ok(&self, kind: Operand, ty: &Ty) -> bool {
        let scalar = match ty {
            Ty::Scalar(s) => Some(*s),
            _ => None,
        };
        let class = self.infer.class(ty);
        let number = matches!(
            scalar,
            Some(Scalar::I32 | Scalar::U32 | Scalar::F32 | Scalar::F64)
        ) || (scalar.is_none() && matches!(class, Class::Int | Class::Float));
        let integer = matches!(scalar, Some(Scalar::I32 | Scalar::U32))
            || (scalar.is_none() && class == Class::Int);
        let boolean = class == Class::Bool;
        class == Class::Never
            || match kind {
                Operand::Bool => boolean,
                Operand::Number => number,
                Operand::Bits => integer || boolean,
                Operand::Any => number || boolean,
            }
    }
}
