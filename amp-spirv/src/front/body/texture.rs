//! Texture views and samplers in kernel bodies: `tex[idx]`, `tex.extent()`,
//! `tex.sample(&sampler, coord)` on a `TextureView`, `tex.set(idx, value)` on a
//! `WriteonlyTextureView`.

use super::*;

impl BodyChecker<'_> {
    /// The texture parameter `e` names, if it names one.
    pub(super) fn is_texture(&self, e: &syn::Expr) -> Option<ParamId> {
        self.param_named(e)
            .filter(|&id| matches!(self.params[id].kind, ParamKind::Texture { .. }))
    }

    /// The sampler parameter `e` (`&s` or `s`) names, if it names one.
    fn is_sampler(&self, e: &syn::Expr) -> Option<ParamId> {
        let e = match strip(e) {
            syn::Expr::Reference(r) => &*r.expr,
            other => other,
        };
        self.param_named(e)
            .filter(|&id| matches!(self.params[id].kind, ParamKind::Sampler))
    }

    /// The sampler parameter `arg` names, the first argument of `method`; an error if none.
    fn sampler_arg(&mut self, arg: &syn::Expr, method: &str) -> Option<ParamId> {
        let sampler = self.is_sampler(arg);
        if sampler.is_none() {
            self.err(
                Diagnostic::error(
                    Rule::Textures,
                    arg.span(),
                    format!(
                        "the first argument of `{method}` is a `Sampler` parameter of the kernel"
                    ),
                )
                .with_help(format!(
                    "add a parameter `s: Sampler` and write `tex.{method}(&s, coord)`"
                )),
            );
        }
        sampler
    }

    /// The parameter `e` names, if it is a plain name of one.
    pub(super) fn param_named(&self, e: &syn::Expr) -> Option<ParamId> {
        match strip(e) {
            syn::Expr::Path(p) if p.qself.is_none() => {
                match self.lookup(&p.path.get_ident()?.to_string())? {
                    Binding::Param(id) => Some(id),
                    Binding::Local(_) | Binding::Subgroup => None,
                }
            }
            _ => None,
        }
    }

    /// Texture `id`'s texel type, rank and access (`is_texture()` chose it, so it is one; a
    /// float texel of rank 1 read otherwise, which nothing reaches).
    fn texture_info(&self, id: ParamId) -> (Elem, u32, TextureAccess) {
        match &self.params[id].kind {
            ParamKind::Texture {
                texel,
                rank,
                access,
            } => (texel.clone(), *rank, *access),
            _ => (Elem::Scalar(Scalar::F32), 1, TextureAccess::Read),
        }
    }

    /// `tex = ..` or `tex[idx] = ..`: textures are written with `set`.
    pub(super) fn texture_assignment(&mut self, id: ParamId, span: Span) {
        let name = self.params[id].name.clone();
        let (_, _, access) = self.texture_info(id);
        let help = match access {
            TextureAccess::Write => format!("write a texel with `{name}.set(idx, value)`"),
            TextureAccess::Read => format!(
                "`{name}` is a read-only `TextureView`: pass `texture.writeonly_view()` as a `WriteonlyTextureView` to write, and write with `.set(idx, value)`"
            ),
        };
        self.err(
            Diagnostic::error(
                Rule::Textures,
                span,
                format!("cannot assign to texture `{name}`"),
            )
            .with_help(help),
        );
    }

    /// `tex[idx]`.
    pub(super) fn texture_load(&mut self, id: ParamId, index: &syn::Expr, span: Span) -> Expr {
        let (texel, _, access) = self.texture_info(id);
        if access == TextureAccess::Write {
            let name = self.params[id].name.clone();
            self.err(
                Diagnostic::error(
                    Rule::Textures,
                    span,
                    format!("cannot read `{name}`: it is a `WriteonlyTextureView`"),
                )
                .with_help("pass `texture.view()` as a `TextureView` to read texels"),
            );
            return Self::error_expr(span);
        }
        match self.buffer_indices(id, index) {
            Some(idx) => Expr {
                kind: ExprKind::Texture(TextureOp::Load, id, idx),
                ty: texel.ty(),
                span,
            },
            None => Self::error_expr(span),
        }
    }

    /// `tex.extent()`, `tex.sample(&sampler, coord)`, `tex.set(idx, value)`.
    pub(super) fn texture_method(
        &mut self,
        id: ParamId,
        m: &syn::ExprMethodCall,
        method: &str,
    ) -> Expr {
        let span = m.span();
        let (texel, rank, access) = self.texture_info(id);
        let name = self.params[id].name.clone();
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        let arity = |this: &mut Self, n: usize, usage: &str| {
            if args.len() == n {
                return true;
            }
            this.err(Diagnostic::error(
                Rule::Textures,
                span,
                format!("`{method}` takes {n} arguments: `{name}.{usage}`"),
            ));
            false
        };
        match method {
            "extent" => {
                if !arity(self, 0, "extent()") {
                    return Self::error_expr(span);
                }
                Expr {
                    kind: ExprKind::Texture(TextureOp::Extent, id, Vec::new()),
                    ty: Ty::array(Ty::USIZE, rank),
                    span,
                }
            }
            "sample" if access == TextureAccess::Read => {
                if !arity(self, 2, "sample(&sampler, coord)") {
                    return Self::error_expr(span);
                }
                let Some(sampler) = self.sampler_arg(args[0], method) else {
                    return Self::error_expr(span);
                };
                if texel.ty().component().is_some_and(Scalar::is_int) {
                    self.err(
                        Diagnostic::error(
                            Rule::Textures,
                            span,
                            format!("cannot sample `{name}`: its texels are integers ({})", texel.name()),
                        )
                        .with_help("sample float, Norm or Unorm textures; read integer texels with `tex[idx]`"),
                    );
                    return Self::error_expr(span);
                }
                let coord = self.expr(args[1]);
                self.expect_coord(rank, &coord, &name, method);
                Expr {
                    kind: ExprKind::Texture(TextureOp::Sample(sampler), id, vec![coord]),
                    ty: texel.ty(),
                    span,
                }
            }
            "gather_red" | "gather_green" | "gather_blue" | "gather_alpha"
                if access == TextureAccess::Read =>
            {
                let usage = format!("{method}(&sampler, coord)");
                if !arity(self, 2, &usage) {
                    return Self::error_expr(span);
                }
                let component = match method {
                    "gather_red" => 0,
                    "gather_green" => 1,
                    "gather_blue" => 2,
                    _ => 3,
                };
                let scalar = texel.ty().component().unwrap_or(Scalar::F32);
                let components = match texel.ty() {
                    Ty::Vector(_, n) => n,
                    _ => 1,
                };
                if rank != 2 || component >= components {
                    self.err(
                        Diagnostic::error(
                            Rule::Textures,
                            span,
                            format!("cannot `{method}` `{name}`: gathers read rank-2 textures, and `{}` texels have {components} component(s)", texel.name()),
                        )
                        .with_help("gather from a `TextureView<T, 2>` whose texels have the component (`gather_red` for every texel type, `gather_alpha` for 4-component texels)"),
                    );
                    return Self::error_expr(span);
                }
                let Some(sampler) = self.sampler_arg(args[0], method) else {
                    return Self::error_expr(span);
                };
                let coord = self.expr(args[1]);
                self.expect_coord(2, &coord, &name, method);
                Expr {
                    kind: ExprKind::Texture(TextureOp::Gather(sampler, component), id, vec![coord]),
                    ty: Ty::Vector(scalar, 4),
                    span,
                }
            }
            "set" if access == TextureAccess::Write => {
                if !arity(self, 2, "set(idx, value)") {
                    return Self::error_expr(span);
                }
                let Some(mut operands) = self.buffer_indices(id, args[0]) else {
                    return Self::error_expr(span);
                };
                let value = self.expr(args[1]);
                self.expect_ty(&texel.ty(), &value, "in this texel");
                operands.push(value);
                Expr {
                    kind: ExprKind::Texture(TextureOp::Store, id, operands),
                    ty: Ty::Unit,
                    span,
                }
            }
            _ => {
                let help = match access {
                    TextureAccess::Read => format!("a `TextureView` supports `{name}[idx]`, `{name}.sample(&sampler, coord)`, `{name}.gather_red(&sampler, coord)` (and `_green`, `_blue`, `_alpha`) and `{name}.extent()`; to write, pass a `WriteonlyTextureView`"),
                    TextureAccess::Write => format!("a `WriteonlyTextureView` supports `{name}.set(idx, value)` and `{name}.extent()`; to read or sample, pass a `TextureView`"),
                };
                self.err(
                    Diagnostic::error(
                        Rule::Textures,
                        m.method.span(),
                        format!("method `{method}` is not supported on texture `{name}`"),
                    )
                    .with_help(help),
                );
                Self::error_expr(span)
            }
        }
    }
}

impl BodyChecker<'_> {
    /// Checks a sampling coordinate: `f32` for rank 1, else a `Float2`/`Float3`. An index or
    /// integers get their own message: sampling takes normalized coordinates, and the help
    /// shows the conversion from a texel index (x is the last dimension).
    fn expect_coord(&mut self, rank: u32, coord: &Expr, name: &str, method: &str) {
        let want = match rank {
            1 => Ty::Scalar(Scalar::F32),
            n => Ty::Vector(Scalar::F32, n),
        };
        if self.infer.unify(&want, &coord.ty).is_some() {
            return;
        }
        let (want_name, got) = (self.infer.describe(&want), self.infer.describe(&coord.ty));
        let centre = |d: u32| format!("(idx[{d}] as f32 + 0.5) / ext[{d}] as f32");
        let conversion = match rank {
            1 => centre(0),
            n => format!(
                "{want_name}::new({})",
                (0..n).rev().map(centre).collect::<Vec<_>>().join(", ")
            ),
        };
        self.err(
            Diagnostic::error(
                Rule::MismatchedTypes,
                coord.span,
                format!(
                    "`{method}` takes normalized coordinates (`{want_name}`, each in [0, 1]), \
                     found `{got}`"
                ),
            )
            .with_help(format!(
                "for the centre of texel `idx`, write `let ext = {name}.extent();` and \
                 `{conversion}` (x is the last dimension); to read a texel by its index, \
                 use `{name}[idx]`"
            )),
        );
    }
}
