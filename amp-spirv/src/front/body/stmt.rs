//! Blocks and statements: `let` (with its patterns, pairs and `#[tile_static]`), `const` and the
//! items kernels refuse, and expression statements.

use super::expr::macro_error;
use super::*;

impl BodyChecker<'_> {
    pub(super) fn block(&mut self, b: &syn::Block) -> Block {
        self.scopes.push(Vec::new());
        let mut stmts = Vec::new();
        let mut tail = None;
        let n = b.stmts.len();
        for (i, s) in b.stmts.iter().enumerate() {
            match s {
                // An empty statement (the second `;` of `x = 1;;`).
                syn::Stmt::Expr(syn::Expr::Verbatim(t), Some(_)) if t.is_empty() => {}
                syn::Stmt::Expr(e, None) if i + 1 == n => {
                    tail = Some(Box::new(self.expr(e)));
                }
                syn::Stmt::Expr(e, semi) => {
                    let e = self.expr(e);
                    if semi.is_none() && self.infer.unify(&e.ty, &Ty::Unit).is_none() {
                        let ty = self.infer.describe(&e.ty);
                        self.err(
                            Diagnostic::error(
                                Rule::UnitValues,
                                e.span,
                                format!("expected `()`, found `{ty}`"),
                            )
                            .with_help("add `;`"),
                        );
                    }
                    stmts.push(Stmt::Expr(e));
                }
                syn::Stmt::Local(l) => self.let_stmt(l, &mut stmts),
                syn::Stmt::Item(item) => self.item(item, &mut stmts),
                syn::Stmt::Macro(m) => self.err(macro_error(&m.mac)),
            }
        }
        self.scopes.pop();
        Block { stmts, tail }
    }

    pub(super) fn block_ty(&self, b: &Block) -> Ty {
        if let Some(t) = &b.tail {
            return t.ty.clone();
        }
        let diverges = b.stmts.iter().any(|s| match s {
            Stmt::Expr(e) => self.infer.shallow(&e.ty) == Ty::Never && !is_error_expr(e),
            Stmt::Let(..) => false,
        });
        if diverges {
            Ty::Never
        } else {
            Ty::Unit
        }
    }

    fn item(&mut self, item: &syn::Item, stmts: &mut Vec<Stmt>) {
        match item {
            syn::Item::Const(c) => {
                let ty = match self.value_type(&c.ty) {
                    Ok(t) => t,
                    Err(d) => {
                        self.err(d);
                        Ty::Never
                    }
                };
                let init = self.expr(&c.expr);
                let ty = self.expect_ty(&ty, &init, "in this constant");
                let id = self.declare(&c.ident.to_string(), ty, false);
                self.body_consts.insert(id);
                stmts.push(Stmt::Let(id, Some(init)));
            }
            syn::Item::Static(s) => self.err(
                Diagnostic::error(Rule::NoItems, s.span(), "`static` items are not allowed in kernels: there is no global mutable state on the device")
                    .with_help("use `const` for constants, or an `ArrayViewMut` for shared data"),
            ),
            syn::Item::Fn(f) => self.err(
                Diagnostic::error(Rule::NoItems, f.sig.ident.span(), "nested functions are not allowed in kernels")
                    .with_help("write the computation inline"),
            ),
            syn::Item::Macro(m) => self.err(macro_error(&m.mac)),
            syn::Item::Use(u) => self.err(Diagnostic::error(Rule::NoItems, u.span(), "`use` is not allowed inside kernels").with_help("move it outside the function")),
            other => self.err(
                Diagnostic::error(Rule::NoItems, other.span(), "items (`struct`, `impl`, `trait`, `enum`, `mod`...) are not allowed inside kernels")
                    .with_help("define them outside the kernel; kernels support local variables and arrays"),
            ),
        }
    }

    fn let_stmt(&mut self, l: &syn::Local, stmts: &mut Vec<Stmt>) {
        if let Some(attr) = l.attrs.iter().find(|a| a.path().is_ident("tile_static")) {
            return self.tile_static_let(l, attr, stmts);
        }
        if let Some(init) = &l.init {
            if let Some((_, diverge)) = &init.diverge {
                self.err(
                    Diagnostic::error(
                        Rule::LetPatterns,
                        diverge.span(),
                        "`let ... else` is not supported in kernels",
                    )
                    .with_help("use `if`"),
                );
            }
        }
        let init_expr = l.init.as_ref().map(|i| &*i.expr);
        if init_expr.is_some_and(|e| self.is_subgroup_call(e)) {
            return self.bind_subgroup(&l.pat);
        }
        // `let (a, b) = (x, y);` destructures element-wise, `let (a, b): (f32, u32);` declares
        // each name with its type (assigned later), and `let (a, b);` each without one.
        let (tuple, tuple_ty) = match &l.pat {
            syn::Pat::Tuple(pt) => (Some(pt), None),
            syn::Pat::Type(t) => match (&*t.pat, &*t.ty) {
                (syn::Pat::Tuple(pt), syn::Type::Tuple(tt)) if tt.elems.len() == pt.elems.len() => {
                    (Some(pt), Some(tt))
                }
                _ => (None, None),
            },
            _ => (None, None),
        };
        if let Some(pt) = tuple {
            let types: Vec<Option<&syn::Type>> = match tuple_ty {
                Some(tt) => tt.elems.iter().map(Some).collect(),
                None => vec![None; pt.elems.len()],
            };
            match init_expr.map(strip) {
                Some(syn::Expr::Tuple(t)) if t.elems.len() == pt.elems.len() => {
                    let inits: Vec<Expr> = t.elems.iter().map(|e| self.expr(e)).collect();
                    for ((pat, ty), init) in pt.elems.iter().zip(types).zip(inits) {
                        self.bind(pat, ty, Some(init), stmts);
                    }
                }
                None => {
                    for (pat, ty) in pt.elems.iter().zip(types) {
                        self.bind(pat, ty, None, stmts);
                    }
                }
                Some(value) => {
                    let declared = match tuple_ty {
                        Some(tt) => match self.value_type(&syn::Type::Tuple((*tt).clone())) {
                            Ok(t) => Some(t),
                            Err(d) => {
                                self.err(d);
                                None
                            }
                        },
                        None => None,
                    };
                    let init = self.expr(value);
                    self.bind_tuple(pt, declared, init, stmts);
                }
            }
            return;
        }
        let (pat, ty) = match &l.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            p => (p, None),
        };
        let init = init_expr.map(|e| self.expr(e));
        self.bind(pat, ty, init, stmts);
    }

    /// `#[tile_static] let mut name: T;`: memory shared by the threads of a tile.
    fn tile_static_let(&mut self, l: &syn::Local, attr: &syn::Attribute, stmts: &mut Vec<Stmt>) {
        if self.tiled.is_none() {
            self.err(
                Diagnostic::error(Rule::TilesOnly, attr.span(), "`#[tile_static]` is only allowed in tiled kernels")
                    .with_help("make the kernel's first parameter a `TiledIndex<..>` and launch it over `extent.tile::<..>()`"),
            );
            // Declared anyway (thread-private), so its uses report nothing more.
            if let syn::Pat::Type(pt) = &l.pat {
                if let syn::Pat::Ident(p) = &*pt.pat {
                    self.declare(&p.ident.to_string(), Ty::Never, true);
                }
            }
            return;
        }
        if let Some(init) = &l.init {
            self.err(
                Diagnostic::error(Rule::TileStaticDeclarations, init.expr.span(), "a `tile_static` variable cannot have an initializer: its contents are undefined until a thread writes them")
                    .with_help("declare it without a value, let the threads of the tile write it, then call `t.barrier.wait()`"),
            );
        }
        let syn::Pat::Type(pt) = &l.pat else {
            self.err(
                Diagnostic::error(
                    Rule::TileStaticDeclarations,
                    l.pat.span(),
                    "a `tile_static` variable needs a type",
                )
                .with_help("write for example `#[tile_static] let mut cache: [f32; 256];`"),
            );
            return;
        };
        let syn::Pat::Ident(p) = &*pt.pat else {
            self.err(Diagnostic::error(
                Rule::TileStaticDeclarations,
                pt.pat.span(),
                "a `tile_static` variable must be a plain name",
            ));
            return;
        };
        let ty = match self.value_type(&pt.ty) {
            Ok(t) => t,
            Err(d) => {
                self.err(d);
                Ty::Never
            }
        };
        self.count_tile_static(&ty, &p.ident, l);
        let id = self.declare(&p.ident.to_string(), ty, p.mutability.is_some());
        self.locals[id].storage = Storage::TileStatic;
        stmts.push(Stmt::Let(id, None));
    }

    pub(super) fn bind(
        &mut self,
        pat: &syn::Pat,
        ty: Option<&syn::Type>,
        init: Option<Expr>,
        stmts: &mut Vec<Stmt>,
    ) {
        let declared = match ty.map(|t| self.value_type(t)) {
            Some(Ok(t)) => Some(t),
            Some(Err(d)) => {
                self.err(d);
                Some(Ty::Never)
            }
            None => None,
        };
        let ty = match (&declared, &init) {
            (Some(d), Some(i)) => self.expect_ty(d, i, "in this `let`"),
            (Some(d), None) => d.clone(),
            (None, Some(i)) => {
                if self.infer.shallow(&i.ty) == Ty::Unit {
                    self.err(
                        Diagnostic::error(
                            Rule::UnitValues,
                            i.span,
                            "cannot bind `()` to a variable",
                        )
                        .with_help(
                            "the expression has no value: write it as a statement, without `let`",
                        ),
                    );
                }
                i.ty.clone()
            }
            // `let x;`: its type is what is assigned to it, as in Rust.
            (None, None) => {
                let ty = self.infer.new_unknown();
                if let syn::Pat::Ident(p) = pat {
                    self.untyped_lets.push((
                        ty.clone(),
                        Span::from(p.ident.span()),
                        p.ident.to_string(),
                    ));
                }
                ty
            }
        };
        match pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                let name = p.ident.to_string();
                let id = if init.is_none() && p.mutability.is_none() {
                    self.declare_deferred(&name, ty)
                } else {
                    self.declare(&name, ty, p.mutability.is_some())
                };
                stmts.push(Stmt::Let(id, init));
            }
            syn::Pat::Wild(_) => {
                if let Some(i) = init {
                    stmts.push(Stmt::Expr(i));
                }
            }
            syn::Pat::Tuple(pt) => match init {
                Some(i) => self.bind_tuple(pt, None, i, stmts),
                None => {
                    for p in &pt.elems {
                        self.bind(p, None, None, stmts);
                    }
                }
            },
            syn::Pat::Ident(p) if p.by_ref.is_some() => self.err(
                Diagnostic::error(Rule::LetPatterns, p.span(), "`ref` bindings are not allowed in kernels: there are no references on the device")
                    .with_help("remove `ref`"),
            ),
            other => self.err(
                Diagnostic::error(Rule::LetPatterns, other.span(), "this pattern is not supported in kernels")
                    .with_help("bind a plain name: `let x = ...;` or `let mut x = ...;`"),
            ),
        }
    }
}

impl BodyChecker<'_> {
    /// Adds a `tile_static` variable of type `ty` with a literal size to the kernel's total;
    /// the declaration that takes the total past [`MAX_TILE_STATIC_BYTES`] is an error, at the
    /// declaration. (Sizes from constants are checked by the launcher's `const` assertions.)
    fn count_tile_static(&mut self, ty: &Ty, name: &syn::Ident, decl: &syn::Local) {
        let Some(bytes) = super::super::literal_bytes(ty) else {
            return;
        };
        let before = self.tile_static_bytes;
        self.tile_static_bytes = before.saturating_add(bytes);
        let total = self.tile_static_bytes;
        if before <= MAX_TILE_STATIC_BYTES && total > MAX_TILE_STATIC_BYTES {
            let what = if before == 0 {
                format!("`{name}` needs {bytes} bytes of `tile_static` memory")
            } else {
                format!(
                    "`{name}` ({bytes} bytes) brings this kernel's `tile_static` memory to {total} bytes"
                )
            };
            self.err(
                Diagnostic::error(
                    Rule::TileStaticLimit,
                    decl.span(),
                    format!("{what}, more than the {MAX_TILE_STATIC_BYTES} bytes a tile has"),
                )
                .with_help("use smaller tiles or fewer `tile_static` arrays"),
            );
        }
    }
}
