//! Atomics: `atomic_fetch_add(&mut v[i], x)` and the other C++ AMP atomic functions.

use super::*;

impl BodyChecker<'_> {
    /// `atomic_fetch_add(&mut v[i], x)` and the other C++ AMP atomics: the target is an `i32` or
    /// `u32` element (or `f32`, for add and exchange) of a writable view or array, or of
    /// `tile_static` memory.
    pub(super) fn atomic(&mut self, op: AtomicOp, name: &str, c: &syn::ExprCall) -> Expr {
        let span = c.span();
        let arity = match op {
            AtomicOp::Inc | AtomicOp::Dec => 1,
            AtomicOp::CompareExchange => 3,
            _ => 2,
        };
        if c.args.len() != arity {
            let form = match arity {
                1 => format!("`{name}(&mut v[i])`"),
                3 => format!("`{name}(&mut v[i], &mut expected, new_value)`"),
                _ => format!("`{name}(&mut v[i], value)`"),
            };
            self.err(
                Diagnostic::error(
                    Rule::Atomics,
                    span,
                    format!("`{name}` takes {arity} argument(s)"),
                )
                .with_help(format!("write {form}")),
            );
            return Self::error_expr(span);
        }
        let Some((target, ty)) = self.mut_ref_place(&c.args[0], name) else {
            return Self::error_expr(span);
        };
        let shared = match &target {
            Place::Buffer(..) => true,
            Place::Local(id, _) => self.locals[*id].storage == Storage::TileStatic,
        };
        if !shared {
            self.err(
                Diagnostic::error(
                    Rule::Atomics,
                    c.args[0].span(),
                    format!("`{name}` works on elements of views, arrays and `tile_static` memory"),
                )
                .with_help("a thread's own locals need no atomics: use plain arithmetic"),
            );
        }
        self.check_atomic_element(op, name, &ty, &c.args[0]);
        let (value, expected) = match op {
            AtomicOp::Inc | AtomicOp::Dec => (None, None),
            AtomicOp::CompareExchange => {
                let expected = self.mut_ref_place(&c.args[1], name);
                if let Some((Place::Local(id, _), ety)) = &expected {
                    if self.locals[*id].storage == Storage::TileStatic {
                        self.err(Diagnostic::error(
                            Rule::Atomics,
                            c.args[1].span(),
                            "the expected value of a compare-exchange must be a local variable",
                        ));
                    }
                    self.unify_or_report(&ty, ety, c.args[1].span());
                } else if expected.is_some() {
                    self.err(
                        Diagnostic::error(
                            Rule::Atomics,
                            c.args[1].span(),
                            "the expected value of a compare-exchange must be a local variable",
                        )
                        .with_help("write `let mut expected = ...;` and pass `&mut expected`"),
                    );
                }
                let v = self.expr(&c.args[2]);
                self.expect_ty(&ty, &v, &format!("in this call to `{name}`"));
                (Some(Box::new(v)), expected.map(|(p, _)| p))
            }
            _ => {
                let v = self.expr(&c.args[1]);
                self.expect_ty(&ty, &v, &format!("in this call to `{name}`"));
                (Some(Box::new(v)), None)
            }
        };
        let result = if op == AtomicOp::CompareExchange {
            Ty::BOOL
        } else {
            ty
        };
        let atomic = Atomic {
            op,
            target,
            value,
            expected,
        };
        Expr {
            kind: ExprKind::Atomic(Box::new(atomic)),
            ty: result,
            span,
        }
    }

    /// Atomics work on `i32` and `u32` elements; on `f32` elements only `atomic_fetch_add`
    /// (Vulkan's `VK_EXT_shader_atomic_float`, checked against the device at launch) and
    /// `atomic_exchange` (core SPIR-V) exist.
    fn check_atomic_element(&mut self, op: AtomicOp, name: &str, ty: &Ty, target: &syn::Expr) {
        const F32_ATOMICS: &str = "the `f32` atomics are `atomic_fetch_add` and `atomic_exchange`";
        match self.infer.shallow(ty) {
            Ty::Scalar(Scalar::I32 | Scalar::U32) | Ty::Never => {}
            Ty::Scalar(Scalar::F32) if matches!(op, AtomicOp::Add | AtomicOp::Exchange) => {}
            Ty::Scalar(Scalar::F32) => self.err(
                Diagnostic::error(
                    Rule::F32Atomics,
                    target.span(),
                    format!("`{name}` works on `i32` and `u32` elements, not `f32`"),
                )
                .with_help(format!(
                    "{F32_ATOMICS}; combine other `f32` updates with a tile reduction in \
                     `tile_static` memory"
                )),
            ),
            elem => {
                let t = self.infer.describe(&elem);
                self.err(
                    Diagnostic::error(
                        Rule::Atomics,
                        target.span(),
                        format!("atomics work on `i32`, `u32` and `f32` elements, not `{t}`"),
                    )
                    .with_help(format!(
                        "`i32` and `u32` elements have every atomic; {F32_ATOMICS}"
                    )),
                );
            }
        }
    }

    /// `&mut place` as an atomic operand.
    fn mut_ref_place(&mut self, e: &syn::Expr, name: &str) -> Option<(Place, Ty)> {
        match strip(e) {
            syn::Expr::Reference(r) if r.mutability.is_some() => self.place(&r.expr),
            _ => {
                self.err(
                    Diagnostic::error(
                        Rule::Atomics,
                        e.span(),
                        format!("`{name}` takes a mutable reference to the element"),
                    )
                    .with_help(format!("write `{name}(&mut v[i], ...)`")),
                );
                None
            }
        }
    }
}
