//! The tiled index: its fields (`t.global`, `t.local`, ...) and waits at its barrier.

use super::*;

impl BodyChecker<'_> {
    /// Whether `e` names the index of a simple kernel.
    pub(super) fn is_simple_index(&self, e: &syn::Expr) -> bool {
        match (strip(e), &self.simple_index) {
            (syn::Expr::Path(p), Some(name)) => p.path.get_ident().is_some_and(|i| i == name),
            _ => false,
        }
    }

    /// Whether `e` names the kernel's tiled index.
    pub(super) fn tiled_base(&self, e: &syn::Expr) -> bool {
        match (strip(e), &self.tiled) {
            (syn::Expr::Path(p), Some((name, _))) => {
                p.path.get_ident().is_some_and(|i| i == name) && self.lookup(name).is_none()
            }
            _ => false,
        }
    }

    /// `t.global`, `t.local`, `t.tile`, `t.tile_origin`, `t.tile_extent`.
    pub(super) fn tiled_field(&mut self, f: &syn::ExprField) -> Expr {
        let span = f.span();
        let Some((_, locals)) = self.tiled.clone() else {
            return self.internal(span, "tiled_base() found the tiled index");
        };
        let field = match &f.member {
            syn::Member::Named(n) => n.to_string(),
            syn::Member::Unnamed(_) => String::new(),
        };
        let id = match field.as_str() {
            "global" => locals.global,
            "local" => locals.local,
            "tile" => locals.tile,
            "tile_origin" => locals.tile_origin,
            "tile_extent" => locals.tile_extent,
            "barrier" => {
                self.err(
                    Diagnostic::error(Rule::BarrierCalls, span, "the tile barrier can only be waited at")
                        .with_help("call `.wait()`, `.wait_with_global_memory_fence()`, `.wait_with_tile_static_memory_fence()` or `.wait_with_all_memory_fence()` on it"),
                );
                return Self::error_expr(span);
            }
            _ => {
                self.err(
                    Diagnostic::error(Rule::TiledIndexFields, f.member.span(), format!("a tiled index has no field `{field}`"))
                        .with_help("its fields are `global`, `local`, `tile`, `tile_origin`, `tile_extent` and `barrier`"),
                );
                return Self::error_expr(span);
            }
        };
        Expr {
            kind: ExprKind::Local(id),
            ty: self.locals[id].ty.clone(),
            span,
        }
    }

    /// Whether `e` is `t.barrier` for the kernel's tiled index `t`.
    pub(super) fn is_barrier(&self, e: &syn::Expr) -> bool {
        matches!(strip(e), syn::Expr::Field(f)
            if self.tiled_base(&f.base) && matches!(&f.member, syn::Member::Named(n) if n == "barrier"))
    }

    pub(super) fn barrier_wait(&mut self, m: &syn::ExprMethodCall) -> Expr {
        let span = m.span();
        let fence = match m.method.to_string().as_str() {
            "wait" | "wait_with_all_memory_fence" => Fence::All,
            "wait_with_global_memory_fence" => Fence::Global,
            "wait_with_tile_static_memory_fence" => Fence::TileStatic,
            other => {
                self.err(
                    Diagnostic::error(Rule::BarrierCalls, m.method.span(), format!("a tile barrier has no method `{other}`"))
                        .with_help("call `wait()`, `wait_with_global_memory_fence()`, `wait_with_tile_static_memory_fence()` or `wait_with_all_memory_fence()`"),
                );
                return Self::error_expr(span);
            }
        };
        if !m.args.is_empty() {
            self.err(Diagnostic::error(
                Rule::BarrierCalls,
                m.args.span(),
                "barrier methods take no arguments",
            ));
        }
        Expr {
            kind: ExprKind::Barrier(fence),
            ty: Ty::Unit,
            span,
        }
    }
}
