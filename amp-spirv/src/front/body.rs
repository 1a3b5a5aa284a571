//! The body checker: resolves names, infers and checks types, enforces the kernel subset, and
//! builds the typed IR. It records every error and keeps going, so one build shows them all.

use super::infer::{Class, Infer};
use super::signature::{literal_len, literal_usize, value_type};
use crate::diag::Span;
use crate::diag::Spanned;
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::*;
use crate::math::{self, MathFn};
use crate::types::{vector_from_name, Elem, Len, Scalar, Ty};

mod structs;
mod vector;

#[path = "call.rs"]
mod call;

pub use call::{callee_path, check_device_fn, device_calls, is_device_fn_path};

#[derive(Clone, Copy)]
enum Binding {
    Local(LocalId),
    Param(ParamId),
}

struct LoopFrame {
    has_break: bool,
}

/// Checks a body against its signature and builds the IR's locals and block.
pub struct BodyChecker<'a> {
    diags: &'a mut Diagnostics,
    params: &'a [Param],
    locals: Vec<Local>,
    scopes: Vec<Vec<(String, Binding)>>,
    infer: Infer,
    loops: Vec<LoopFrame>,
    /// How many `while` conditions are being checked (the enclosing loops are hidden there).
    while_conditions: u32,
    /// Constants from outside the body, with their (inferred) types.
    consts: Vec<(OuterConst, Ty)>,
    /// The tiled index's name and the locals behind its fields, in a tiled kernel.
    tiled: Option<(String, TiledLocals)>,
    /// The simple index's name, in a simple kernel.
    simple_index: Option<String>,
    /// The device functions the body may call, and those being inlined.
    device: call::DeviceState<'a>,
}

/// The hidden locals behind `t.global`, `t.local`, `t.tile`, `t.tile_origin`, `t.tile_extent`.
#[derive(Clone, Copy)]
pub struct TiledLocals {
    /// `t.global`.
    pub global: LocalId,
    /// `t.local`.
    pub local: LocalId,
    /// `t.tile`.
    pub tile: LocalId,
    /// `t.tile_origin`.
    pub tile_origin: LocalId,
    /// `t.tile_extent`.
    pub tile_extent: LocalId,
}

impl<'a> BodyChecker<'a> {
    /// A checker for a kernel with these parameters.
    pub fn new(diags: &'a mut Diagnostics, params: &'a [Param]) -> Self {
        let mut scopes = vec![Vec::new()];
        for (i, p) in params.iter().enumerate() {
            scopes[0].push((p.name.clone(), Binding::Param(i)));
        }
        BodyChecker {
            diags,
            params,
            locals: Vec::new(),
            scopes,
            infer: Infer::default(),
            loops: Vec::new(),
            while_conditions: 0,
            consts: Vec::new(),
            tiled: None,
            simple_index: None,
            device: call::DeviceState::default(),
        }
    }

    /// Declares the kernel's const-generic parameters, so the body can read them.
    pub fn declare_const_generics(&mut self, generics: &[(proc_macro2::Ident, Scalar)]) {
        for (ident, ty) in generics {
            let c = OuterConst {
                ident: ident.clone(),
                ty: *ty,
                generic: true,
            };
            self.consts.push((c, Ty::Scalar(*ty)));
        }
    }

    /// Declares a tiled index named `name` of the given rank: its fields become hidden locals.
    pub fn declare_tiled_index(&mut self, name: &str, rank: u32) -> TiledLocals {
        let ty = Ty::array(Ty::USIZE, rank);
        let locals = TiledLocals {
            global: self.hidden_immutable("#global", ty.clone()),
            local: self.hidden_immutable("#local", ty.clone()),
            tile: self.hidden_immutable("#tile", ty.clone()),
            tile_origin: self.hidden_immutable("#tile_origin", ty.clone()),
            tile_extent: self.hidden_immutable("#tile_extent", ty),
        };
        self.tiled = Some((name.to_string(), locals));
        locals
    }

    /// Registers a tile dimension's name as an outer constant of type `usize`.
    pub fn tile_dim_const(&mut self, ident: &proc_macro2::Ident) {
        let (_, ty) = self.outer_const(ident);
        if self.infer.unify(&ty, &Ty::USIZE).is_none() {
            self.err(Diagnostic::error(
                ident.span(),
                format!("`{ident}` is used as a tile size, so it must be a `usize`"),
            ));
        }
    }

    /// Declares the index parameter as an immutable local of type `[usize; rank]`.
    pub fn declare_index(&mut self, name: &str, rank: u32) -> LocalId {
        self.simple_index = Some(name.to_string());
        self.declare(name, Ty::array(Ty::USIZE, rank), false)
    }

    /// Declares a parameter whose type was rejected, typed `!` so that its uses in the body
    /// neither report it as unknown nor cascade into type errors.
    pub fn declare_rejected(&mut self, name: &str) {
        self.declare(name, Ty::Never, true);
    }

    /// Checks the function body; returns the locals and the block with every type settled.
    pub fn check_body(mut self, body: &syn::Block) -> (Vec<Local>, Block, Vec<OuterConst>) {
        let mut block = self.block(body);
        if let Some(tail) = &block.tail {
            if self.infer.unify(&tail.ty, &Ty::Unit).is_none() {
                let ty = self.infer.describe(&tail.ty);
                self.err(
                    Diagnostic::error(
                        tail.span,
                        format!("a kernel cannot return a value (this is `{ty}`)"),
                    )
                    .with_help(
                        "end the expression with `;`, or write the value into an `ArrayViewMut`",
                    ),
                );
            }
        }
        let mut finisher = Finisher {
            infer: &self.infer,
            diags: self.diags,
        };
        finisher.block(&mut block);
        let locals = self
            .locals
            .iter()
            .map(|l| Local {
                name: l.name.clone(),
                ty: self.infer.finish(&l.ty),
                mutable: l.mutable,
                storage: l.storage,
            })
            .collect();
        let consts = self
            .consts
            .iter()
            .map(|(c, ty)| OuterConst {
                ty: self.infer.finish(ty).scalar().unwrap_or(Scalar::Usize),
                ..c.clone()
            })
            .collect();
        (locals, block, consts)
    }

    // ----- helpers -----

    fn err(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn error_expr(span: Span) -> Expr {
        // `!` unifies with everything, so one error does not cascade into more.
        Expr {
            kind: ExprKind::Lit(Lit::Bool(false)),
            ty: Ty::Never,
            span,
        }
    }

    fn declare(&mut self, name: &str, ty: Ty, mutable: bool) -> LocalId {
        self.locals.push(Local {
            name: name.to_string(),
            ty,
            mutable,
            storage: Storage::Function,
        });
        let id = self.locals.len() - 1;
        self.scopes
            .last_mut()
            .expect("a scope is always open")
            .push((name.to_string(), Binding::Local(id)));
        id
    }

    fn hidden(&mut self, name: &str, ty: Ty) -> LocalId {
        self.locals.push(Local {
            name: name.to_string(),
            ty,
            mutable: true,
            storage: Storage::Function,
        });
        self.locals.len() - 1
    }

    fn hidden_immutable(&mut self, name: &str, ty: Ty) -> LocalId {
        let id = self.hidden(name, ty);
        self.locals[id].mutable = false;
        id
    }

    /// The outer constant named `ident` (registered at its first use) and its type.
    fn outer_const(&mut self, ident: &proc_macro2::Ident) -> (usize, Ty) {
        if let Some(i) = self.consts.iter().position(|(c, _)| c.ident == *ident) {
            return (i, self.consts[i].1.clone());
        }
        let ty = self.infer.new_any();
        let c = OuterConst {
            ident: ident.clone(),
            ty: Scalar::Usize,
            generic: false,
        };
        self.consts.push((c, ty.clone()));
        (self.consts.len() - 1, ty)
    }

    /// Whether a name not bound in the kernel refers to a constant of the surroundings: a
    /// const-generic parameter, or a name in Rust's constant style (`TS`, `BLOCK_2`). Other
    /// unknown names are reported as unknown rather than guessed at.
    fn is_outer_const_name(&self, ident: &proc_macro2::Ident) -> bool {
        let name = ident.to_string();
        self.consts.iter().any(|(c, _)| c.ident == name)
            || (name.chars().any(|c| c.is_ascii_uppercase())
                && name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
    }

    /// An array length: a literal, or an outer constant (a specialization constant).
    fn array_len(&mut self, len: &syn::Expr) -> Result<Len, Diagnostic> {
        if literal_usize(len).is_some() {
            return literal_len(len);
        }
        if let syn::Expr::Path(p) = strip(len) {
            if let Some(ident) = p.path.get_ident() {
                if self.lookup(&ident.to_string()).is_none() && self.is_outer_const_name(ident) {
                    let (index, ty) = self.outer_const(ident);
                    if self.infer.unify(&ty, &Ty::USIZE).is_none() {
                        return Err(Diagnostic::error(
                            len.span(),
                            format!(
                                "`{ident}` is used as an array length, so it must be a `usize`"
                            ),
                        ));
                    }
                    return Ok(Len::Const(index as u32, ident.to_string()));
                }
            }
        }
        Err(Diagnostic::error(len.span(), "array lengths must be integer literals or constants")
            .with_help("write a literal (`[f32; 16]`) or name a `const` item or const-generic parameter (`[f32; TS]`)"))
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, b)| *b)
    }

    fn expect_ty(&mut self, expected: &Ty, e: &Expr, context: &str) -> Ty {
        match self.infer.unify(expected, &e.ty) {
            Some(t) => t,
            None => {
                let (want, got) = (self.infer.describe(expected), self.infer.describe(&e.ty));
                self.err(
                    Diagnostic::error(
                        e.span,
                        format!("mismatched types {context}: expected `{want}`, found `{got}`"),
                    )
                    .with_help("kernels do no implicit conversions; convert with `as`"),
                );
                expected.clone()
            }
        }
    }

    fn is_buffer(&self, e: &syn::Expr) -> Option<ParamId> {
        match strip(e) {
            syn::Expr::Path(p) if p.qself.is_none() => {
                let ident = p.path.get_ident()?;
                match self.lookup(&ident.to_string())? {
                    Binding::Param(id)
                        if matches!(self.params[id].kind, ParamKind::Buffer { .. }) =>
                    {
                        Some(id)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn buffer_info(&self, id: ParamId) -> (Elem, u32, bool) {
        match self.params[id].kind {
            ParamKind::Buffer {
                elem,
                rank,
                writable,
                ..
            } => (elem, rank, writable && !self.read_only_in_callee(id)),
            ParamKind::Scalar(_) | ParamKind::Value(_) => {
                unreachable!("is_buffer() checked the kind")
            }
        }
    }

    // ----- blocks and statements -----

    fn block(&mut self, b: &syn::Block) -> Block {
        self.scopes.push(Vec::new());
        let mut stmts = Vec::new();
        let mut tail = None;
        let n = b.stmts.len();
        for (i, s) in b.stmts.iter().enumerate() {
            match s {
                // An empty statement (the second `;` of `x = 1;;`).
                syn::Stmt::Expr(syn::Expr::Verbatim(t), Some(_)) if t.is_empty() => {}
                syn::Stmt::Expr(e, None) if i + 1 == n => {
                    let returns = self.device_returns();
                    let e = self.expr(e);
                    tail = self.device_tail(returns, e, &mut stmts);
                }
                syn::Stmt::Expr(e, semi) => {
                    let returns = self.device_returns();
                    let e = self.expr(e);
                    if semi.is_none() && self.infer.unify(&e.ty, &Ty::Unit).is_none() {
                        let ty = self.infer.describe(&e.ty);
                        self.err(
                            Diagnostic::error(e.span, format!("expected `()`, found `{ty}`"))
                                .with_help("add `;`"),
                        );
                    }
                    stmts.push(Stmt::Expr(e));
                    self.after_device_stmt(returns, &mut stmts);
                }
                syn::Stmt::Local(l) => self.let_stmt(l, &mut stmts),
                syn::Stmt::Item(item) => self.item(item, &mut stmts),
                syn::Stmt::Macro(m) => self.err(macro_error(&m.mac)),
            }
        }
        self.scopes.pop();
        Block { stmts, tail }
    }

    fn block_ty(&self, b: &Block) -> Ty {
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
                let ty = match value_type(&c.ty, &mut |e| self.array_len(e)) {
                    Ok(t) => t,
                    Err(d) => {
                        self.err(d);
                        Ty::Never
                    }
                };
                let init = self.expr(&c.expr);
                let ty = self.expect_ty(&ty, &init, "in this constant");
                let id = self.declare(&c.ident.to_string(), ty, false);
                stmts.push(Stmt::Let(id, Some(init)));
            }
            syn::Item::Static(s) => self.err(
                Diagnostic::error(s.span(), "`static` items are not allowed in kernels: there is no global mutable state on the device")
                    .with_help("use `const` for constants, or an `ArrayViewMut` for shared data"),
            ),
            syn::Item::Fn(f) => self.err(
                Diagnostic::error(f.sig.ident.span(), "nested functions are not allowed in kernels")
                    .with_help("write the computation inline"),
            ),
            syn::Item::Macro(m) => self.err(macro_error(&m.mac)),
            syn::Item::Use(u) => self.err(Diagnostic::error(u.span(), "`use` is not allowed inside kernels").with_help("move it outside the function")),
            other => self.err(
                Diagnostic::error(other.span(), "items (`struct`, `impl`, `trait`, `enum`, `mod`...) are not allowed inside kernels")
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
                    Diagnostic::error(diverge.span(), "`let ... else` is not supported in kernels")
                        .with_help("use `if`"),
                );
            }
        }
        let init_expr = l.init.as_ref().map(|i| &*i.expr);
        // `let (a, b) = (x, y);` destructures element-wise.
        if let syn::Pat::Tuple(pt) = &l.pat {
            match init_expr.map(strip) {
                Some(syn::Expr::Tuple(t)) if t.elems.len() == pt.elems.len() => {
                    let inits: Vec<Expr> = t.elems.iter().map(|e| self.expr(e)).collect();
                    for (pat, init) in pt.elems.iter().zip(inits) {
                        self.bind(pat, None, Some(init), stmts);
                    }
                }
                Some(call) if pt.elems.len() == 2 && pair_call(call).is_some() => {
                    self.let_pair(pt, call, stmts)
                }
                _ => self.err(
                    Diagnostic::error(
                        l.pat.span(),
                        "tuple patterns are only supported as `let (a, b) = (x, y);`",
                    )
                    .with_help("declare the variables separately"),
                ),
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

    /// `let (m, e) = precise_math::frexp(x);` (also `modf`, `sincos`, `x.sin_cos()`): the
    /// argument is evaluated once into a hidden local, then each name is bound to one of the
    /// pair's functions of it.
    fn let_pair(&mut self, pt: &syn::PatTuple, call: &syn::Expr, stmts: &mut Vec<Stmt>) {
        let Some((fns, name, args, precise)) = pair_call(call) else {
            return;
        };
        let span = call.span();
        if args.len() != 1 {
            self.err(Diagnostic::error(
                span,
                format!(
                    "`{name}` takes 1 argument counting the receiver, found {}",
                    args.len()
                ),
            ));
            return;
        }
        let arg = self.expr(args[0]);
        let ty = arg.ty.clone();
        let tmp = self.hidden_immutable(&format!("{name}_argument"), ty.clone());
        stmts.push(Stmt::Let(tmp, Some(arg)));
        for (pat, f) in pt.elems.iter().zip(fns) {
            let value = Expr {
                kind: ExprKind::Local(tmp),
                ty: ty.clone(),
                span,
            };
            let init = self.math(f, &name, vec![value], span, precise);
            self.bind(pat, None, Some(init), stmts);
        }
    }

    /// `#[tile_static] let mut name: T;`: memory shared by the threads of a tile.
    fn tile_static_let(&mut self, l: &syn::Local, attr: &syn::Attribute, stmts: &mut Vec<Stmt>) {
        if self.tiled.is_none() {
            self.err(
                Diagnostic::error(attr.span(), "`#[tile_static]` is only allowed in tiled kernels")
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
                Diagnostic::error(init.expr.span(), "a `tile_static` variable cannot have an initializer: its contents are undefined until a thread writes them")
                    .with_help("declare it without a value, let the threads of the tile write it, then call `t.barrier.wait()`"),
            );
        }
        let syn::Pat::Type(pt) = &l.pat else {
            self.err(
                Diagnostic::error(l.pat.span(), "a `tile_static` variable needs a type")
                    .with_help("write for example `#[tile_static] let mut cache: [f32; 256];`"),
            );
            return;
        };
        let syn::Pat::Ident(p) = &*pt.pat else {
            self.err(Diagnostic::error(
                pt.pat.span(),
                "a `tile_static` variable must be a plain name",
            ));
            return;
        };
        let ty = match value_type(&pt.ty, &mut |e| self.array_len(e)) {
            Ok(t) => t,
            Err(d) => {
                self.err(d);
                Ty::Never
            }
        };
        let id = self.declare(&p.ident.to_string(), ty, p.mutability.is_some());
        self.locals[id].storage = Storage::TileStatic;
        stmts.push(Stmt::Let(id, None));
    }

    fn bind(
        &mut self,
        pat: &syn::Pat,
        ty: Option<&syn::Type>,
        init: Option<Expr>,
        stmts: &mut Vec<Stmt>,
    ) {
        let declared = match ty.map(|t| value_type(t, &mut |e| self.array_len(e))) {
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
                        Diagnostic::error(i.span, "cannot bind `()` to a variable").with_help(
                            "the expression has no value: write it as a statement, without `let`",
                        ),
                    );
                }
                i.ty.clone()
            }
            (None, None) => {
                self.err(
                    Diagnostic::error(
                        pat.span(),
                        "a variable declared without a value needs a type",
                    )
                    .with_help("write `let x: f32;` or give it an initial value"),
                );
                Ty::Never
            }
        };
        match pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                let id = self.declare(&p.ident.to_string(), ty, p.mutability.is_some());
                stmts.push(Stmt::Let(id, init));
            }
            syn::Pat::Wild(_) => {
                if let Some(i) = init {
                    stmts.push(Stmt::Expr(i));
                }
            }
            syn::Pat::Ident(p) if p.by_ref.is_some() => self.err(
                Diagnostic::error(p.span(), "`ref` bindings are not allowed in kernels: there are no references on the device")
                    .with_help("remove `ref`"),
            ),
            other => self.err(
                Diagnostic::error(other.span(), "this pattern is not supported in kernels")
                    .with_help("bind a plain name: `let x = ...;` or `let mut x = ...;`"),
            ),
        }
    }

    // ----- expressions -----

    fn expr(&mut self, e: &syn::Expr) -> Expr {
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
            syn::Expr::Block(b) => {
                if let Some(l) = &b.label {
                    return self.unsupported_label(l.span());
                }
                let block = self.block(&b.block);
                let ty = self.block_ty(&block);
                Expr {
                    kind: ExprKind::Block(block),
                    ty,
                    span,
                }
            }
            syn::Expr::While(w) => {
                if let Some(l) = &w.label {
                    return self.unsupported_label(l.span());
                }
                // As in Rust (E0590), `break` and `continue` in the condition cannot refer to an
                // enclosing loop: hide the enclosing loops while checking it.
                let outer = std::mem::take(&mut self.loops);
                self.while_conditions += 1;
                let cond = self.expr(&w.cond);
                self.while_conditions -= 1;
                self.loops = outer;
                self.expect_ty(&Ty::BOOL, &cond, "in this `while` condition");
                let body = self.loop_body(&w.body);
                Expr {
                    kind: ExprKind::While(Box::new(cond), body.0),
                    ty: Ty::Unit,
                    span,
                }
            }
            syn::Expr::Loop(l) => {
                if let Some(l) = &l.label {
                    return self.unsupported_label(l.span());
                }
                let (body, has_break) = self.loop_body(&l.body);
                Expr {
                    kind: ExprKind::Loop(body),
                    ty: if has_break { Ty::Unit } else { Ty::Never },
                    span,
                }
            }
            syn::Expr::ForLoop(f) => self.for_loop(f),
            syn::Expr::Break(b) => {
                if let Some(l) = &b.label {
                    return self.unsupported_label(l.span().into());
                }
                if let Some(v) = &b.expr {
                    self.err(
                        Diagnostic::error(
                            v.span(),
                            "`break` with a value is not supported in kernels",
                        )
                        .with_help(
                            "assign the value to a variable declared before the loop, then `break`",
                        ),
                    );
                }
                match self.loops.last_mut() {
                    // A `break` with a value was reported above; leaving the loop typed `!`
                    // keeps `let v = loop { break 5; };` from cascading into more errors.
                    Some(frame) => frame.has_break |= b.expr.is_none(),
                    None => self.err(self.outside_loop(span, "break")),
                }
                Expr {
                    kind: ExprKind::Break,
                    ty: Ty::Never,
                    span,
                }
            }
            syn::Expr::Continue(c) => {
                if let Some(l) = &c.label {
                    return self.unsupported_label(l.span().into());
                }
                if self.loops.is_empty() {
                    self.err(self.outside_loop(span, "continue"));
                }
                Expr {
                    kind: ExprKind::Continue,
                    ty: Ty::Never,
                    span,
                }
            }
            syn::Expr::Return(r) => {
                if let Some(inlined) = self.device_return(r) {
                    return inlined;
                }
                if let Some(v) = &r.expr {
                    self.err(
                        Diagnostic::error(v.span(), "a kernel cannot return a value").with_help(
                            "write the value into an `ArrayViewMut` and use a plain `return;`",
                        ),
                    );
                }
                Expr {
                    kind: ExprKind::Return,
                    ty: Ty::Never,
                    span,
                }
            }
            syn::Expr::Array(a) => self.array_list(a),
            syn::Expr::Repeat(r) => {
                let value = self.expr(&r.expr);
                match super::signature::literal_usize(&r.len) {
                    Some(n) if (1..=1 << 14).contains(&n) => {
                        let ty = Ty::array(value.ty.clone(), n as u32);
                        Expr {
                            kind: ExprKind::ArrayRepeat(Box::new(value), n as u32),
                            ty,
                            span,
                        }
                    }
                    _ => {
                        self.err(Diagnostic::error(
                            r.len.span(),
                            "array lengths must be integer literals from 1 to 16384",
                        ));
                        Self::error_expr(span)
                    }
                }
            }
            syn::Expr::Macro(m) => {
                self.err(macro_error(&m.mac));
                Self::error_expr(span)
            }
            syn::Expr::Field(f) if self.tiled_base(&f.base) => self.tiled_field(f),
            // The base's type was already rejected: say nothing more about it.
            syn::Expr::Field(f) if self.is_rejected(&f.base) => Self::error_expr(span),
            syn::Expr::Field(f) if self.is_simple_index(&f.base) => {
                self.err(
                    Diagnostic::error(span, "an `Index` has no fields: `global`, `local`, `tile` and `barrier` belong to tiled kernels")
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
            _ => {
                self.err(unsupported_expr(e));
                Self::error_expr(span)
            }
        }
    }

    /// The error for a `break` or `continue` with no loop to leave.
    fn outside_loop(&self, span: Span, keyword: &str) -> Diagnostic {
        if self.while_conditions > 0 {
            Diagnostic::error(span, format!("`{keyword}` is not allowed in the condition of a `while` loop"))
                .with_help("compute the condition into a variable first, or use `loop` with `if ... { break; }`")
        } else {
            Diagnostic::error(span, format!("`{keyword}` outside of a loop")).with_help(format!(
                "`{keyword}` can only be used inside `loop`, `while` or `for`"
            ))
        }
    }

    fn unsupported_label(&mut self, span: Span) -> Expr {
        self.err(
            Diagnostic::error(span, "loop labels are not supported in kernels")
                .with_help("use a `bool` flag to leave the outer loop"),
        );
        Self::error_expr(span)
    }

    fn loop_body(&mut self, body: &syn::Block) -> (Block, bool) {
        self.loops.push(LoopFrame { has_break: false });
        let block = self.block(body);
        let frame = self.loops.pop().expect("pushed above");
        if let Some(t) = &block.tail {
            if self.infer.unify(&t.ty, &Ty::Unit).is_none() {
                self.err(
                    Diagnostic::error(t.span, "a loop body cannot produce a value")
                        .with_help("add `;`"),
                );
            }
        }
        (block, frame.has_break)
    }

    fn lit(&mut self, lit: &syn::Lit) -> Expr {
        let span = Span::from(lit.span());
        let (kind, ty) = match lit {
            syn::Lit::Bool(b) => (Lit::Bool(b.value), Ty::BOOL),
            syn::Lit::Int(i) => {
                let value = match i.base10_parse::<u128>() {
                    Ok(v) => v,
                    Err(_) => {
                        self.err(Diagnostic::error(span, "integer literal too large"));
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
                        Diagnostic::error(span, "float literal out of range")
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
                    self.err(Diagnostic::error(span, "invalid float literal"));
                    return Self::error_expr(span);
                }
            },
            _ => {
                self.err(
                    Diagnostic::error(
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
                Some(Binding::Param(id)) => match self.params[id].kind {
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
                    ParamKind::Buffer { .. } => {
                        self.err(
                            Diagnostic::error(span, format!("`{name}` is a view or array: it can only be indexed or asked for its extent"))
                                .with_help(format!("read an element with `{name}[idx]` or `{name}[[i, j]]`")),
                        );
                        Self::error_expr(span)
                    }
                },
                None if self.tiled.as_ref().is_some_and(|(t, _)| *t == name) => {
                    self.err(
                        Diagnostic::error(span, format!("`{name}` is a tiled index: use its fields"))
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
                    self.err(Diagnostic::error(span, format!("cannot find `{name}` in this kernel")).with_help(
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
                    if s == Scalar::I32 && name == "MIN" {
                        // `-2147483648`: the literal is in range for `i32` only when negated.
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
        self.err(Diagnostic::error(span, format!("`{}` is not supported in kernels", segs.join("::"))).with_help(
            "kernels can name their parameters, their locals, and constants such as `i32::MAX` or `f32::INFINITY`",
        ));
        Self::error_expr(span)
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> Expr {
        let span = u.span();
        let operand = self.expr(&u.expr);
        let class = self.component_class(&operand.ty);
        let op = match u.op {
            syn::UnOp::Neg(_) => {
                let ok = class == Class::Float
                    || class == Class::Never
                    || (class == Class::Int
                        && self
                            .infer
                            .shallow(&operand.ty)
                            .component()
                            .map_or(true, |s| s.is_signed_int()));
                if !ok {
                    let ty = self.infer.describe(&operand.ty);
                    self.err(
                        Diagnostic::error(span, format!("cannot negate a value of type `{ty}`"))
                            .with_help(
                            "negation works on i32, f32 and f64; cast unsigned values to i32 first",
                        ),
                    );
                    return Self::error_expr(span);
                }
                UnOp::Neg
            }
            syn::UnOp::Not(_) => {
                if !matches!(class, Class::Int | Class::Bool | Class::Never) {
                    let ty = self.infer.describe(&operand.ty);
                    self.err(Diagnostic::error(
                        span,
                        format!("cannot apply `!` to a value of type `{ty}`"),
                    ));
                }
                UnOp::Not
            }
            syn::UnOp::Deref(_) => {
                self.err(
                    Diagnostic::error(span, "dereferencing is not allowed in kernels: there are no references or pointers on the device")
                        .with_help("use the value directly"),
                );
                return Self::error_expr(span);
            }
            _ => {
                self.err(Diagnostic::error(
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
        let ty = self.check_operands(op, &l, &r, b.op.span());
        Expr {
            kind: ExprKind::Binary(op, Box::new(l), Box::new(r)),
            ty,
            span,
        }
    }

    /// Checks the operand types of a binary operator and returns the result type; errors point
    /// at `span`, the operator's.
    fn check_operands(&mut self, op: BinOp, l: &Expr, r: &Expr, span: Span) -> Ty {
        let symbol = op_symbol(op);
        if op.is_shift() {
            for side in [l, r] {
                if !matches!(self.infer.class(&side.ty), Class::Int | Class::Never) {
                    let ty = self.infer.describe(&side.ty);
                    self.err(
                        Diagnostic::error(
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
                let help = if int_literal_with_float(l, r) || int_literal_with_float(r, l) {
                    "kernels do no implicit conversions; write the integer literal as a float literal (`1.0`, not `1`)"
                } else {
                    "kernels do no implicit conversions; convert one side with `as`"
                };
                self.err(
                    Diagnostic::error(
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
                Class::Int | Class::Float | Class::Bool | Class::Never
            ),
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                matches!(class, Class::Int | Class::Bool | Class::Never)
            }
            _ => matches!(class, Class::Int | Class::Float | Class::Never),
        };
        if !ok {
            let t = self.infer.describe(&ty);
            self.err(Diagnostic::error(
                span,
                format!("cannot apply `{symbol}` to values of type `{t}`"),
            ));
        }
        if op.is_comparison() {
            Ty::BOOL
        } else {
            ty
        }
    }

    fn assign(&mut self, a: &syn::ExprAssign) -> Expr {
        let span = a.span();
        if let syn::Expr::Field(_) = strip(&a.left) {
            return self.member_assign(&a.left, None, &a.right, span);
        }
        let place = self.place(&a.left);
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

    /// Resolves the left side of an assignment.
    fn place(&mut self, e: &syn::Expr) -> Option<(Place, Ty)> {
        let span = e.span();
        // Peel `x[i][j]` into the root and its indices.
        let mut indices = Vec::new();
        let mut root = strip(e);
        while let syn::Expr::Index(i) = root {
            indices.push(&*i.index);
            root = strip(&i.expr);
        }
        indices.reverse();
        if let Some(param) = self.is_buffer(root) {
            let (elem, _, writable) = self.buffer_info(param);
            let name = self.params[param].name.clone();
            if !writable {
                self.err(
                    Diagnostic::error(span, format!("cannot write to `{name}`: it is read-only"))
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
                        Diagnostic::error(span, format!("cannot assign to the whole of `{name}`"))
                            .with_help(format!("assign one element: `{name}[idx] = ...`")),
                    );
                    None
                }
                _ => {
                    self.err(
                        Diagnostic::error(span, "too many indices")
                            .with_help("index a rank-2 view with `v[[i, j]]`"),
                    );
                    None
                }
            };
        }
        let syn::Expr::Path(p) = root else {
            self.err(
                Diagnostic::error(span, "cannot assign to this expression").with_help(
                    "assign to a local variable, a local array element or a view element",
                ),
            );
            return None;
        };
        let Some(ident) = p.path.get_ident() else {
            self.err(Diagnostic::error(span, "cannot assign to this expression"));
            return None;
        };
        let name = ident.to_string();
        let id = match self.lookup(&name) {
            Some(Binding::Local(id)) => id,
            Some(Binding::Param(_)) => {
                self.err(
                    Diagnostic::error(span, format!("cannot assign to kernel parameter `{name}`"))
                        .with_help(format!(
                            "copy it into a local first: `let mut {name} = {name};`"
                        )),
                );
                return None;
            }
            None => {
                self.err(Diagnostic::error(
                    p.span(),
                    format!("cannot find `{name}` in this kernel"),
                ));
                return None;
            }
        };
        if !self.locals[id].mutable {
            self.err(
                Diagnostic::error(
                    span,
                    format!("cannot assign to `{name}`: it is not declared `mut`"),
                )
                .with_help(format!("declare it with `let mut {name}`")),
            );
        }
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

    fn check_constant_index(&mut self, i: &Expr, len: &Len) {
        let Some(len) = len.literal() else { return };
        if let ExprKind::Lit(Lit::Int(v)) = i.kind {
            if v >= len as u128 {
                self.err(Diagnostic::error(
                    i.span,
                    format!("index out of bounds: the length is {len} but the index is {v}"),
                ));
            }
        }
    }

    /// The per-dimension indices of a buffer access `v[index]`.
    fn buffer_indices(&mut self, param: ParamId, index: &syn::Expr) -> Option<Vec<Expr>> {
        let (_, rank, _) = self.buffer_info(param);
        let name = self.params[param].name.clone();
        if let syn::Expr::Array(list) = strip(index) {
            if list.elems.len() as u32 != rank {
                self.err(
                    Diagnostic::error(
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
                _ => {
                    self.err(
                        Diagnostic::error(
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

    fn index(&mut self, i: &syn::ExprIndex) -> Expr {
        let span = i.span();
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
                    i.expr.span(),
                    format!("cannot index a value of type `{t}`"),
                ));
                Self::error_expr(span)
            }
        }
    }

    fn cast(&mut self, c: &syn::ExprCast) -> Expr {
        let span = c.span();
        let value = self.expr(&c.expr);
        let target = match value_type(&c.ty, &mut |e| self.array_len(e)) {
            Ok(Ty::Scalar(s)) => s,
            Ok(other) => {
                self.err(
                    Diagnostic::error(c.ty.span(), format!("cannot cast to `{other}`"))
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
        let ok = match from {
            Class::Int | Class::Float => target != Scalar::Bool,
            Class::Bool => target.is_int(),
            Class::Never => true,
            Class::Other => false,
        };
        if !ok {
            let t = self.infer.describe(&value.ty);
            self.err(
                Diagnostic::error(span, format!("cannot cast `{t}` as `{}`", target.name()))
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

    /// Whether `e` names a parameter or local whose type was rejected (typed `!`).
    fn is_rejected(&self, e: &syn::Expr) -> bool {
        match strip(e) {
            syn::Expr::Path(p) => p.path.get_ident().is_some_and(|i| {
                matches!(self.lookup(&i.to_string()), Some(Binding::Local(id)) if self.locals[id].ty == Ty::Never)
            }),
            syn::Expr::Field(f) => self.is_rejected(&f.base),
            _ => false,
        }
    }

    /// Whether `e` names the index of a simple kernel.
    fn is_simple_index(&self, e: &syn::Expr) -> bool {
        match (strip(e), &self.simple_index) {
            (syn::Expr::Path(p), Some(name)) => p.path.get_ident().is_some_and(|i| i == name),
            _ => false,
        }
    }

    /// Whether `e` names the kernel's tiled index.
    fn tiled_base(&self, e: &syn::Expr) -> bool {
        match (strip(e), &self.tiled) {
            (syn::Expr::Path(p), Some((name, _))) => {
                p.path.get_ident().is_some_and(|i| i == name) && self.lookup(name).is_none()
            }
            _ => false,
        }
    }

    /// `t.global`, `t.local`, `t.tile`, `t.tile_origin`, `t.tile_extent`.
    fn tiled_field(&mut self, f: &syn::ExprField) -> Expr {
        let span = f.span();
        let (_, locals) = self.tiled.clone().expect("tiled_base() checked");
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
                    Diagnostic::error(span, "the tile barrier can only be waited at")
                        .with_help("call `.wait()`, `.wait_with_global_memory_fence()`, `.wait_with_tile_static_memory_fence()` or `.wait_with_all_memory_fence()` on it"),
                );
                return Self::error_expr(span);
            }
            _ => {
                self.err(
                    Diagnostic::error(f.member.span(), format!("a tiled index has no field `{field}`"))
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
    fn is_barrier(&self, e: &syn::Expr) -> bool {
        matches!(strip(e), syn::Expr::Field(f)
            if self.tiled_base(&f.base) && matches!(&f.member, syn::Member::Named(n) if n == "barrier"))
    }

    fn barrier_wait(&mut self, m: &syn::ExprMethodCall) -> Expr {
        let span = m.span();
        let fence = match m.method.to_string().as_str() {
            "wait" | "wait_with_all_memory_fence" => Fence::All,
            "wait_with_global_memory_fence" => Fence::Global,
            "wait_with_tile_static_memory_fence" => Fence::TileStatic,
            other => {
                self.err(
                    Diagnostic::error(m.method.span(), format!("a tile barrier has no method `{other}`"))
                        .with_help("call `wait()`, `wait_with_global_memory_fence()`, `wait_with_tile_static_memory_fence()` or `wait_with_all_memory_fence()`"),
                );
                return Self::error_expr(span);
            }
        };
        if !m.args.is_empty() {
            self.err(Diagnostic::error(
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

    fn method_call(&mut self, m: &syn::ExprMethodCall) -> Expr {
        if self.is_barrier(&m.receiver) {
            return self.barrier_wait(m);
        }
        if let syn::Expr::Field(f) = strip(&m.receiver) {
            if self.is_rejected(&f.base) {
                return Self::error_expr(m.span());
            }
            if self.is_simple_index(&f.base)
                && matches!(&f.member, syn::Member::Named(n) if n == "barrier")
            {
                self.err(
                    Diagnostic::error(m.span(), "barriers exist only in tiled kernels: the threads of a simple kernel do not run in tiles")
                        .with_help("make the first parameter a `TiledIndex<..>` (for example `t: TiledIndex<64>`), launch over `extent.tile::<..>()`, and call `t.barrier.wait()`"),
                );
                return Self::error_expr(m.span());
            }
        }
        let span = m.span();
        let method = m.method.to_string();
        if m.turbofish.is_some() {
            self.err(Diagnostic::error(
                span,
                "turbofish method calls are not supported in kernels",
            ));
            return Self::error_expr(span);
        }
        if method == "extent" {
            if let Some(param) = self.is_buffer(&m.receiver) {
                if !m.args.is_empty() {
                    self.err(Diagnostic::error(span, "`extent()` takes no arguments"));
                }
                let (_, rank, _) = self.buffer_info(param);
                return Expr {
                    kind: ExprKind::BufferExtent(param),
                    ty: Ty::array(Ty::USIZE, rank),
                    span,
                };
            }
        }
        if let Some(e) = self.vector_method(m, &method) {
            return e;
        }
        if let Some(f) = MathFn::from_method(&method) {
            let mut args = vec![self.expr(&m.receiver)];
            args.extend(m.args.iter().map(|a| self.expr(a)));
            return self.math(f, &method, args, span, false);
        }
        if math::pair_function(&method, true).is_some() {
            return self.pair_outside_let(&format!("x.{method}()"), &method, span);
        }
        let builtin = match method.as_str() {
            "min" => Builtin::Min,
            "max" => Builtin::Max,
            "abs" => Builtin::Abs,
            "step_by" => {
                self.err(Diagnostic::error(
                    span,
                    "`step_by` is supported only as the range of a `for` loop",
                ));
                return Self::error_expr(span);
            }
            _ if self.is_vector_receiver(&m.receiver) => {
                self.err(
                    Diagnostic::error(
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
                        m.method.span(),
                        format!("method `{method}` is not supported in kernels"),
                    )
                    .with_help("kernels support `.min()`, `.max()`, `.abs()`, the float math methods (`.sqrt()`, `.sin()`, `.powf()`, ...; see docs/math.md) and `view.extent()`"),
                );
                return Self::error_expr(span);
            }
        };
        let mut args = vec![self.expr(&m.receiver)];
        args.extend(m.args.iter().map(|a| self.expr(a)));
        self.builtin(builtin, args, span)
    }

    fn call(&mut self, c: &syn::ExprCall) -> Expr {
        let span = c.span();
        let name = match strip(&c.func) {
            syn::Expr::Path(p) if p.qself.is_none() => {
                let segs: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                if let Some(e) = self.vector_call(c, &segs) {
                    return e;
                }
                let last = segs.last().cloned().unwrap_or_default();
                let prefix = &segs[..segs.len() - 1];
                // `fast_math::sqrt(x)`, `amp::precise_math::pow(x, y)`: C++ AMP's names.
                let amp_math =
                    matches!(prefix, [m] | [_, m] if m == "fast_math" || m == "precise_math");
                if amp_math {
                    let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a)).collect();
                    if let Some(f) = MathFn::from_amp(&last) {
                        let precise = prefix.last().is_some_and(|m| m == "precise_math");
                        return self.math(f, &last, args, span, precise);
                    }
                    if math::pair_function(&last, false).is_some() {
                        let call = format!("{}::{last}(x)", prefix.join("::"));
                        return self.pair_outside_let(&call, &last, span);
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
                    c.func.span(),
                    "closures and function values are not allowed in kernels",
                ));
                return Self::error_expr(span);
            }
            _ => {
                self.err(Diagnostic::error(
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
                    Diagnostic::error(span, format!("`{name}` takes the tile barrier")).with_help(
                        format!("write `{name}(t.barrier)` with the kernel's tiled index `t`"),
                    ),
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

    /// `atomic_fetch_add(&mut v[i], x)` and the other C++ AMP atomics: the target is an `i32` or
    /// `u32` element (or `f32`, for add and exchange) of a writable view or array, or of
    /// `tile_static` memory.
    fn atomic(&mut self, op: AtomicOp, name: &str, c: &syn::ExprCall) -> Expr {
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
                Diagnostic::error(span, format!("`{name}` takes {arity} argument(s)"))
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
                            c.args[1].span(),
                            "the expected value of a compare-exchange must be a local variable",
                        ));
                    }
                    self.unify_or_report(&ty, ety, c.args[1].span());
                } else if expected.is_some() {
                    self.err(
                        Diagnostic::error(
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
                        e.span(),
                        format!("`{name}` takes a mutable reference to the element"),
                    )
                    .with_help(format!("write `{name}(&mut v[i], ...)`")),
                );
                None
            }
        }
    }

    fn unify_or_report(&mut self, want: &Ty, got: &Ty, span: Span) {
        if self.infer.unify(want, got).is_none() {
            let (a, b) = (self.infer.describe(want), self.infer.describe(got));
            self.err(Diagnostic::error(
                span,
                format!("mismatched types: expected `{a}`, found `{b}`"),
            ));
        }
    }

    /// A math function: float arguments of one type (and the `i32` exponent of `ldexp`).
    /// `precise` (`precise_math::`) computes the `f32` transcendental functions in `f64`.
    fn math(&mut self, f: MathFn, name: &str, args: Vec<Expr>, span: Span, precise: bool) -> Expr {
        if args.len() != f.arity() {
            self.err(Diagnostic::error(
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
            _ => {
                let t = self.infer.describe(&ty);
                self.err(
                    Diagnostic::error(
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

    /// `frexp`, `modf`, `sincos` or `sin_cos` where a single value is expected; `call` is the
    /// call as written (`precise_math::frexp(x)`, `x.sin_cos()`).
    fn pair_outside_let(&mut self, call: &str, name: &str, span: Span) -> Expr {
        self.err(
            Diagnostic::error(
                span,
                format!("`{name}` returns two values, and kernels have no tuple values"),
            )
            .with_help(format!("bind both at once: `let (a, b) = {call};`")),
        );
        Self::error_expr(span)
    }

    fn builtin(&mut self, builtin: Builtin, args: Vec<Expr>, span: Span) -> Expr {
        let (name, arity) = match builtin {
            Builtin::Min => ("min", 2),
            Builtin::Max => ("max", 2),
            Builtin::Abs => ("abs", 1),
            _ => unreachable!("the geometric functions are checked in front::body::vector"),
        };
        if args.len() != arity {
            self.err(Diagnostic::error(
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
        let ok = match builtin {
            Builtin::Abs => {
                class == Class::Float
                    || class == Class::Never
                    || (class == Class::Int
                        && self
                            .infer
                            .shallow(&ty)
                            .component()
                            .map_or(true, |s| s.is_signed_int()))
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
                Diagnostic::error(span, format!("`{name}` is not defined for `{t}`"))
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

    fn if_expr(&mut self, i: &syn::ExprIf) -> Expr {
        let span = i.span();
        if let syn::Expr::Let(l) = &*i.cond {
            self.err(
                Diagnostic::error(l.span(), "`if let` is not supported in kernels")
                    .with_help("use a plain `if`"),
            );
            return Self::error_expr(span);
        }
        let cond = self.expr(&i.cond);
        self.expect_ty(&Ty::BOOL, &cond, "in this `if` condition");
        let then = self.block(&i.then_branch);
        let then_ty = self.block_ty(&then);
        let (els, ty) = match &i.else_branch {
            None => {
                if self.infer.unify(&then_ty, &Ty::Unit).is_none() {
                    let t = self.infer.describe(&then_ty);
                    self.err(
                        Diagnostic::error(
                            i.then_branch.span(),
                            format!("`if` without `else` cannot produce a value (this is `{t}`)"),
                        )
                        .with_help("add an `else` branch, or end the expression with `;`"),
                    );
                    // Reported: `!` keeps `let v = if c { 1.0 };` from cascading.
                    (None, Ty::Never)
                } else {
                    (None, Ty::Unit)
                }
            }
            Some((_, e)) => {
                let els = self.expr(e);
                let ty = match self.infer.unify(&then_ty, &els.ty) {
                    Some(t) => t,
                    None => {
                        let (a, b) = (self.infer.describe(&then_ty), self.infer.describe(&els.ty));
                        self.err(
                            Diagnostic::error(
                                span,
                                format!("`if` and `else` have different types: `{a}` and `{b}`"),
                            )
                            .with_help(
                                "both branches must produce the same type; convert one with `as`",
                            ),
                        );
                        Ty::Never
                    }
                };
                (Some(Box::new(els)), ty)
            }
        };
        Expr {
            kind: ExprKind::If(Box::new(cond), then, els),
            ty,
            span,
        }
    }

    fn array_list(&mut self, a: &syn::ExprArray) -> Expr {
        let span = a.span();
        if a.elems.is_empty() {
            self.err(Diagnostic::error(
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

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> Expr {
        let span = f.span();
        if let Some(l) = &f.label {
            return self.unsupported_label(l.span());
        }
        let (pat_name, pat_mut) = match &*f.pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                (p.ident.to_string(), p.mutability.is_some())
            }
            syn::Pat::Wild(_) => ("_".to_string(), false),
            other => {
                self.err(Diagnostic::error(
                    other.span(),
                    "a `for` loop variable must be a plain name",
                ));
                return Self::error_expr(span);
            }
        };
        // `(a..b).step_by(s)`
        let (range_expr, step) = match strip(&f.expr) {
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let s = self.expr(&m.args[0]);
                self.expect_ty(&Ty::USIZE, &s, "in this `step_by`");
                if let ExprKind::Lit(Lit::Int(0)) = s.kind {
                    self.err(
                        Diagnostic::error(s.span, "`step_by(0)` would loop forever")
                            .with_help("use a step of at least 1"),
                    );
                }
                (strip(&m.receiver), Some(Box::new(s)))
            }
            other => (other, None),
        };
        let syn::Expr::Range(range) = range_expr else {
            self.err(
                Diagnostic::error(
                    f.expr.span(),
                    "`for` loops in kernels iterate over integer ranges only",
                )
                .with_help(
                    "write `for i in a..b`, `for i in a..=b` or `for i in (a..b).step_by(s)`",
                ),
            );
            return Self::error_expr(span);
        };
        let (Some(start), Some(end)) = (&range.start, &range.end) else {
            self.err(Diagnostic::error(
                range.span(),
                "a `for` range needs a start and an end",
            ));
            return Self::error_expr(span);
        };
        let start = self.expr(start);
        let end = self.expr(end);
        let ty = self.expect_ty(&start.ty, &end, "in this range");
        if !matches!(self.infer.class(&ty), Class::Int | Class::Never) {
            let t = self.infer.describe(&ty);
            self.err(
                Diagnostic::error(
                    range.span(),
                    format!("cannot iterate over a range of `{t}`"),
                )
                .with_help("ranges in kernels are over integers"),
            );
        }
        let inclusive = matches!(range.limits, syn::RangeLimits::Closed(_));
        let counter = self.hidden("#counter", ty.clone());
        let done = self.hidden("#done", Ty::BOOL);
        self.scopes.push(Vec::new());
        let var = self.declare(&pat_name, ty, pat_mut);
        let (body, _) = self.loop_body(&f.body);
        self.scopes.pop();
        let range = RangeLoop {
            var,
            counter,
            done,
            start: Box::new(start),
            end: Box::new(end),
            inclusive,
            step,
            body,
        };
        Expr {
            kind: ExprKind::For(Box::new(range)),
            ty: Ty::Unit,
            span,
        }
    }
}

/// Settles every type in the IR and checks literals against their final types.
struct Finisher<'a> {
    infer: &'a Infer,
    diags: &'a mut Diagnostics,
}

impl Finisher<'_> {
    /// Checks a literal against its settled type, as rustc's `overflowing_literals` does.
    fn literal(&mut self, e: &Expr, negated: bool) {
        let Ty::Scalar(s) = e.ty else { return };
        let out_of_range = match e.kind {
            ExprKind::Lit(Lit::Int(v)) => {
                let max: u128 = match s {
                    Scalar::I32 if negated => 1 << 31,
                    Scalar::I32 => i32::MAX as u128,
                    Scalar::U32 | Scalar::Usize => u32::MAX as u128,
                    _ => u128::MAX,
                };
                v > max
            }
            // Rust accepts any literal that rounds to a finite `f32`.
            ExprKind::Lit(Lit::Float(v, v32)) => {
                s == Scalar::F32 && v.is_finite() && v32.is_infinite()
            }
            _ => false,
        };
        if out_of_range {
            let help = match s {
                Scalar::F32 => "the value is beyond `f32::MAX`; use `f32::INFINITY` or an `f64`",
                Scalar::I32 => "the value does not fit in `i32`; use a `u32` or a smaller value",
                _ => "indices and `usize` values are 32-bit on the device",
            };
            self.diags.push(
                Diagnostic::error(e.span, format!("literal out of range for `{}`", s.name()))
                    .with_help(help),
            );
        }
    }

    fn block(&mut self, b: &mut Block) {
        for s in &mut b.stmts {
            match s {
                Stmt::Let(_, Some(e)) | Stmt::Expr(e) => self.expr(e),
                Stmt::Let(_, None) => {}
            }
        }
        if let Some(t) = &mut b.tail {
            self.expr(t);
        }
    }

    fn place(&mut self, p: &mut Place) {
        match p {
            Place::Local(_, idx) | Place::Buffer(_, idx) => {
                idx.iter_mut().for_each(|e| self.expr(e))
            }
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        e.ty = self.infer.finish(&e.ty);
        match &mut e.kind {
            ExprKind::Lit(_) => self.literal(e, false),
            ExprKind::Unary(UnOp::Neg, a) => {
                if let Some(s) = e.ty.scalar().filter(|s| s.is_int() && !s.is_signed_int()) {
                    self.diags.push(
                        Diagnostic::error(
                            e.span,
                            format!("cannot negate a value of type `{}`", s.name()),
                        )
                        .with_help(
                            "negation works on i32, f32 and f64; cast unsigned values to i32 first",
                        ),
                    );
                }
                if matches!(a.kind, ExprKind::Lit(_)) {
                    // `-2147483648` is `i32::MIN`: the literal may exceed `i32::MAX` by one.
                    a.ty = self.infer.finish(&a.ty);
                    self.literal(a, true);
                } else {
                    self.expr(a);
                }
            }
            ExprKind::Builtin(Builtin::Abs, list)
                if e.ty
                    .scalar()
                    .is_some_and(|s| s.is_int() && !s.is_signed_int()) =>
            {
                let t = e.ty.scalar().map_or("", |s| s.name());
                self.diags.push(
                    Diagnostic::error(e.span, format!("`abs` is not defined for `{t}`"))
                        .with_help("unsigned values are never negative; remove `abs`"),
                );
                list.iter_mut().for_each(|e| self.expr(e));
            }
            ExprKind::Local(_) | ExprKind::ScalarParam(_) | ExprKind::BufferExtent(_) => {}
            ExprKind::Break | ExprKind::Continue | ExprKind::Return => {}
            ExprKind::OuterConst(_) | ExprKind::Barrier(_) | ExprKind::MemoryFence(_) => {}
            ExprKind::Atomic(a) => {
                self.place(&mut a.target);
                if let Some(v) = &mut a.value {
                    self.expr(v);
                }
                if let Some(p) = &mut a.expected {
                    self.place(p);
                }
            }
            ExprKind::Unary(UnOp::Not, a) | ExprKind::Cast(a) | ExprKind::ArrayRepeat(a, _) => {
                self.expr(a)
            }
            ExprKind::Binary(_, a, b) | ExprKind::Logic(_, a, b) | ExprKind::Element(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::BufferLoad(_, list)
            | ExprKind::ArrayList(list)
            | ExprKind::Builtin(_, list)
            | ExprKind::Math(_, list) => list.iter_mut().for_each(|e| self.expr(e)),
            ExprKind::If(c, t, e) => {
                self.expr(c);
                self.block(t);
                if let Some(e) = e {
                    self.expr(e);
                }
            }
            ExprKind::Block(b) | ExprKind::Loop(b) => self.block(b),
            ExprKind::While(c, b) => {
                self.expr(c);
                self.block(b);
            }
            ExprKind::For(r) => {
                self.expr(&mut r.start);
                self.expr(&mut r.end);
                if let Some(s) = &mut r.step {
                    self.expr(s);
                }
                self.block(&mut r.body);
            }
            ExprKind::Assign(p, v) | ExprKind::CompoundAssign(_, p, v) => {
                self.place(p);
                self.expr(v);
            }
        }
    }
}

fn strip(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip(&p.expr),
        syn::Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

fn is_error_expr(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Lit(Lit::Bool(false))) && e.ty == Ty::Never
}

fn op_symbol(op: BinOp) -> &'static str {
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
        (Scalar::I32, "MAX") => Lit::Int(i32::MAX as u128),
        // i32::MIN's magnitude: path() negates it, as in `-2147483648`.
        (Scalar::I32, "MIN") => Lit::Int(1 << 31),
        (Scalar::U32 | Scalar::Usize, "MAX") => Lit::Int(u32::MAX as u128),
        (Scalar::U32 | Scalar::Usize, "MIN") => Lit::Int(0),
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
        _ => return None,
    })
}

/// How to index a view of rank `rank`.
fn rank_help(name: &str, rank: u32) -> String {
    match rank {
        1 => format!("index it with one `usize`: `{name}[i]`, or with an `Index<1>`"),
        2 => format!("index it with two `usize` components: `{name}[[i, j]]`, or with an `Index<2>`"),
        _ => format!("index it with {rank} `usize` components: `{name}[[i, j, k]]`, or with an `Index<{rank}>`"),
    }
}

fn unsupported_suffix(span: Span, suffix: &str) -> Diagnostic {
    Diagnostic::error(
        span,
        format!("literals of type `{suffix}` are not supported in kernels"),
    )
    .with_help("use an unsuffixed literal or one of i32, u32, usize, f32, f64")
}

fn macro_error(mac: &syn::Macro) -> Diagnostic {
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
        mac.path.span(),
        format!("macros are not allowed in amp kernels (`{name}!` cannot run on the device)"),
    )
    .with_help(help)
}

fn unsupported_expr(e: &syn::Expr) -> Diagnostic {
    // Point at the token that makes the expression unsupported where it is not the first one.
    let span = match e {
        syn::Expr::Field(f) => f.member.span(),
        syn::Expr::Try(t) => t.question_token.span(),
        syn::Expr::Range(r) => r.limits.span(),
        syn::Expr::Await(a) => a.await_token.span(),
        _ => e.span(),
    };
    let (what, help) = match e {
        syn::Expr::Closure(_) => (
            "closures are not allowed in kernels",
            "write the computation inline",
        ),
        syn::Expr::Reference(_) => (
            "references are not allowed in kernels",
            "use the value directly; only views and arrays are passed by reference",
        ),
        syn::Expr::RawAddr(_) => (
            "raw pointers are not allowed in kernels",
            "index an `ArrayView` instead",
        ),
        syn::Expr::Unsafe(_) => (
            "`unsafe` is not allowed in kernels",
            "amp kernels are checked code; remove the `unsafe` block",
        ),
        syn::Expr::Async(_) | syn::Expr::Await(_) => (
            "`async` and `.await` are not allowed in kernels",
            "a kernel runs to completion on the device",
        ),
        syn::Expr::Try(_) | syn::Expr::TryBlock(_) => (
            "the `?` operator is not allowed in kernels",
            "there is no `Result` on the device; report failures through an output view",
        ),
        syn::Expr::Tuple(_) => (
            "tuples are not supported in kernels",
            "use separate variables, or `let (a, b) = (x, y);`",
        ),
        syn::Expr::Field(_) => (
            "field access is not supported in kernels",
            "kernels work with scalars, arrays, indices and views",
        ),
        syn::Expr::Range(_) => (
            "ranges are only allowed as the iterator of a `for` loop",
            "write `for i in a..b { ... }`",
        ),
        syn::Expr::Struct(_) => (
            "struct expressions are not supported in kernels",
            "use scalars and arrays",
        ),
        syn::Expr::Match(_) => (
            "`match` is not supported in kernels",
            "use `if` / `else if`",
        ),
        syn::Expr::Let(_) => (
            "`let` expressions are not supported in kernels",
            "use a plain `if`",
        ),
        syn::Expr::Yield(_) => ("`yield` is not allowed in kernels", "remove it"),
        _ => (
            "this expression is not supported in kernels",
            "see the kernel language reference in docs/kernel-language.md",
        ),
    };
    Diagnostic::error(span, what).with_help(help)
}

/// A call of a two-valued math function (`precise_math::frexp(x)`, `x.sin_cos()`): its two
/// functions, its name, its arguments (the receiver first), and whether it is `precise_math`.
fn pair_call(e: &syn::Expr) -> Option<([MathFn; 2], String, Vec<&syn::Expr>, bool)> {
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
