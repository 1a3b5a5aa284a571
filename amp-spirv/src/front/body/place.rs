//! Places and indexing: the targets of assignments, and indexing of views, arrays and local
//! arrays.

use super::*;

impl BodyChecker<'_> {
    pub(super) fn is_buffer(&self, e: &syn::Expr) -> Option<ParamId> {
        self.param_named(e)
            .filter(|&id| matches!(self.params[id].kind, ParamKind::Buffer { .. }))
    }

    pub(super) fn buffer_info(&self, id: ParamId) -> (Elem, u32, bool) {
        match self.params[id].kind.clone() {
            ParamKind::Buffer {
                elem,
                rank,
                writable,
                ..
            } => (elem, rank, writable && !self.read_only_in_callee(id)),
            // `is_buffer()` chose it, so it is one; nothing reaches this.
            _ => (Elem::Scalar(Scalar::U32), 1, false),
        }
    }

    /// Resolves a place that is modified (compound assignment, a member, an atomic).
    pub(super) fn place(&mut self, e: &syn::Expr) -> Option<(Place, Ty)> {
        self.place_of(e, false)
    }

    /// Resolves the left side of an assignment; `assigned` when it is the left side of `=`
    /// (which may give a variable declared without a value its value).
    pub(super) fn place_of(&mut self, e: &syn::Expr, assigned: bool) -> Option<(Place, Ty)> {
        let span = e.span();
        // Peel `x[i][j]` into the root and its indices.
        let mut indices = Vec::new();
        let mut root = strip(e);
        while let syn::Expr::Index(i) = root {
            indices.push(&*i.index);
            root = strip(&i.expr);
        }
        indices.reverse();
        if let Some(param) = self.is_texture(root) {
            self.texture_assignment(param, span);
            return None;
        }
        if let Some(param) = self.is_buffer(root) {
            let (elem, _, writable) = self.buffer_info(param);
            let name = self.params[param].name.clone();
            if !writable {
                self.err(
                    Diagnostic::error(
                        Rule::Assignments,
                        span,
                        format!("cannot write to `{name}`: it is read-only"),
                    )
                    .with_help(format!(
                        "declare it as `ArrayViewMut<{}, _>` (or `&mut Array`) to write to it",
                        elem.name()
                    )),
                );
                return None;
            }
            return match indices.as_slice() {
                [index] => {
                    let idx = self.buffer_indices(param, index)?;
                    Some((Place::Buffer(param, idx), elem.ty()))
                }
                [] => {
                    self.err(
                        Diagnostic::error(
                            Rule::Assignments,
                            span,
                            format!("cannot assign to the whole of `{name}`"),
                        )
                        .with_help(format!("assign one element: `{name}[idx] = ...`")),
                    );
                    None
                }
                _ => {
                    self.err(
                        Diagnostic::error(Rule::Assignments, span, "too many indices")
                            .with_help("index a rank-2 view with `v[[i, j]]`"),
                    );
                    None
                }
            };
        }
        let syn::Expr::Path(p) = root else {
            self.err(
                Diagnostic::error(Rule::Assignments, span, "cannot assign to this expression")
                    .with_help(
                        "assign to a local variable, a local array element or a view element",
                    ),
            );
            return None;
        };
        let Some(ident) = p.path.get_ident() else {
            self.err(Diagnostic::error(
                Rule::Assignments,
                span,
                "cannot assign to this expression",
            ));
            return None;
        };
        let name = ident.to_string();
        let id = match self.lookup(&name) {
            Some(Binding::Local(id)) => id,
            Some(Binding::Subgroup) => {
                self.subgroup_as_value(span, false);
                return None;
            }
            Some(Binding::Param(_)) => {
                self.err(
                    Diagnostic::error(
                        Rule::Assignments,
                        span,
                        format!("cannot assign to kernel parameter `{name}`"),
                    )
                    .with_help(format!(
                        "copy it into a local first: `let mut {name} = {name};`"
                    )),
                );
                return None;
            }
            None => {
                self.err(Diagnostic::error(
                    Rule::Names,
                    p.span(),
                    format!("cannot find `{name}` in this kernel"),
                ));
                return None;
            }
        };
        self.check_local_write(id, &name, assigned && indices.is_empty(), span);
        let mut ty = self.locals[id].ty.clone();
        let mut idx = Vec::new();
        for index in indices {
            let i = self.expr(index);
            match self.infer.shallow(&ty) {
                Ty::Array(elem, len) => {
                    self.expect_ty(&Ty::USIZE, &i, "in this index");
                    self.check_constant_index(&i, &len);
                    ty = *elem;
                }
                Ty::Never => {}
                other => {
                    let t = self.infer.describe(&other);
                    self.err(Diagnostic::error(
                        Rule::LocalArrayIndexing,
                        index.span(),
                        format!("cannot index a value of type `{t}`"),
                    ));
                    return None;
                }
            }
            idx.push(i);
        }
        Some((Place::Local(id, idx), ty))
    }

    pub(super) fn index(&mut self, i: &syn::ExprIndex) -> Expr {
        let span = i.span();
        if let Some(param) = self.is_texture(&i.expr) {
            return self.texture_load(param, &i.index, span);
        }
        if let Some(param) = self.is_buffer(&i.expr) {
            let (elem, _, _) = self.buffer_info(param);
            return match self.buffer_indices(param, &i.index) {
                Some(idx) => Expr {
                    kind: ExprKind::BufferLoad(param, idx),
                    ty: elem.ty(),
                    span,
                },
                None => Self::error_expr(span),
            };
        }
        let base = self.expr(&i.expr);
        let index = self.expr(&i.index);
        if self.infer.shallow(&base.ty) == Ty::Never {
            // An error already reported (or a rejected parameter, which may be a view).
            return Self::error_expr(span);
        }
        self.expect_ty(&Ty::USIZE, &index, "in this index");
        match self.infer.shallow(&base.ty) {
            Ty::Array(elem, len) => {
                self.check_constant_index(&index, &len);
                Expr {
                    kind: ExprKind::Element(Box::new(base), Box::new(index)),
                    ty: *elem,
                    span,
                }
            }
            Ty::Never => Self::error_expr(span),
            other => {
                let t = self.infer.describe(&other);
                self.err(Diagnostic::error(
                    Rule::LocalArrayIndexing,
                    i.expr.span(),
                    format!("cannot index a value of type `{t}`"),
                ));
                Self::error_expr(span)
            }
        }
    }

    /// The per-dimension indices of a buffer access `v[index]`.
    pub(super) fn buffer_indices(
        &mut self,
        param: ParamId,
        index: &syn::Expr,
    ) -> Option<Vec<Expr>> {
        let rank = match self.params[param].kind {
            ParamKind::Buffer { rank, .. } | ParamKind::Texture { rank, .. } => rank,
            _ => {
                let span = Span::of(index);
                self.internal(span, "a buffer or texture param is indexed");
                return None;
            }
        };
        let name = self.params[param].name.clone();
        if let syn::Expr::Array(list) = strip(index) {
            if list.elems.len() as u32 != rank {
                self.err(
                    Diagnostic::error(
                        Rule::ViewIndexing,
                        index.span(),
                        format!(
                            "`{name}` has rank {rank} but is indexed with {} components",
                            list.elems.len()
                        ),
                    )
                    .with_help(rank_help(&name, rank)),
                );
                return None;
            }
            let mut out = Vec::new();
            for e in &list.elems {
                let i = self.expr(e);
                self.expect_ty(&Ty::USIZE, &i, "in this index");
                out.push(i);
            }
            return Some(out);
        }
        let i = self.expr(index);
        match self.infer.shallow(&i.ty) {
            Ty::Array(elem, n) if n == Len::Lit(rank) && *elem == Ty::USIZE => match i.kind {
                ExprKind::Local(id) => Some(
                    (0..rank)
                        .map(|k| {
                            let base = Expr {
                                kind: ExprKind::Local(id),
                                ty: i.ty.clone(),
                                span: i.span,
                            };
                            let k = Expr {
                                kind: ExprKind::Lit(Lit::Int(k as u128)),
                                ty: Ty::USIZE,
                                span: i.span,
                            };
                            Expr {
                                kind: ExprKind::Element(Box::new(base), Box::new(k)),
                                ty: Ty::USIZE,
                                span: i.span,
                            }
                        })
                        .collect(),
                ),
                // `idx + Index::new([0, 1])`, `idx - 1`: one expression per component.
                ExprKind::ArrayList(parts) => Some(parts),
                _ => {
                    self.err(
                        Diagnostic::error(
                            Rule::ViewIndexing,
                            i.span,
                            "index a view with a named index or with `[i, j]`",
                        )
                        .with_help("bind the index to a variable first"),
                    );
                    None
                }
            },
            Ty::Array(_, n) => {
                self.err(
                    Diagnostic::error(
                        Rule::ViewIndexing,
                        i.span,
                        format!("`{name}` has rank {rank} but the index has rank {n}"),
                    )
                    .with_help(rank_help(&name, rank)),
                );
                None
            }
            Ty::Never => None,
            _ if rank == 1 => {
                self.expect_ty(&Ty::USIZE, &i, "in this index");
                Some(vec![i])
            }
            other => {
                let t = self.infer.describe(&other);
                self.err(
                    Diagnostic::error(
                        Rule::ViewIndexing,
                        i.span,
                        format!("cannot index rank-{rank} `{name}` with a `{t}`"),
                    )
                    .with_help(format!(
                        "use an `Index<{rank}>` or `[i, j]` with `usize` components"
                    )),
                );
                None
            }
        }
    }

    fn check_constant_index(&mut self, i: &Expr, len: &Len) {
        let Some(len) = len.literal() else { return };
        if let ExprKind::Lit(Lit::Int(v)) = i.kind {
            if v >= len as u128 {
                self.err(Diagnostic::error(
                    Rule::LocalArrayIndexing,
                    i.span,
                    format!("index out of bounds: the length is {len} but the index is {v}"),
                ));
            }
        }
    }
}

/// How to index a view of rank `rank`.
fn rank_help(name: &str, rank: u32) -> String {
    match rank {
        1 => format!("index it with one `usize`: `{name}[i]`, or with an `Index<1>`"),
        2 => format!("index it with two `usize` components: `{name}[[i, j]]`, or with an `Index<2>`"),
        _ => format!("index it with {rank} `usize` components: `{name}[[i, j, k]]`, or with an `Index<{rank}>`"),
    }
}
