//! Device functions (`#[amp::device]`): calls from kernels and from other device functions.
//!
//! A call is inlined: the arguments are evaluated into fresh locals (scalars and arrays by
//! value, as Rust passes them), a view or array argument binds the callee's parameter to the
//! kernel's own buffer parameter, and the callee's body is checked in its own scope, where only
//! its parameters and outer constants are visible. Inlining keeps the IR a single body, so the
//! uniformity, race and bank-conflict analyses see through calls and the back end needs no
//! pointer parameters. A `return` inside a callee becomes a `break` out of a one-iteration loop
//! around its body (with a flag that leaves the callee's own loops too), so early returns need
//! no new IR either.
//!
//! Calls are resolved by path: a callee's path is relative to the module of the function that
//! calls it, and [`callee_path`] makes it relative to the kernel's module, which is the key the
//! kernel's [`DeviceFnSource`]s are stored under.

use super::device_sig::{
    describe_signature, device_signature, has_return, DeviceParam, DeviceParamKind, DeviceSig,
};
use super::*;
use crate::front::DeviceFnSource;
use crate::ir::build::{assign, bool_lit, never};

/// The device-function state of a body checker.
#[derive(Default)]
pub(super) struct DeviceState<'a> {
    /// The device functions the kernel may call, by path from the kernel's module.
    fns: &'a [DeviceFnSource],
    /// The callees being inlined, innermost last.
    frames: Vec<InlineFrame>,
    /// Buffer parameters a callee took as read-only views, while its body is checked.
    read_only: Vec<ParamId>,
    /// When checking a device function on its own: its name (calls to other device functions
    /// cannot be followed there, so they are left unchecked).
    pub(super) standalone: Option<String>,
}

impl DeviceState<'_> {
    /// Where the innermost callee's constant `path::ident` is read: its public copy, by the
    /// callee's path, when `#[amp::device]` left one.
    pub(super) fn accessor(
        &self,
        path: &[syn::Ident],
        ident: &proc_macro2::Ident,
    ) -> Option<(proc_macro2::TokenStream, proc_macro2::Ident)> {
        let frame = self.frames.last()?;
        // The source's `crate::` paths reach the kernel as `$crate::` (see the callback).
        let mut key: Vec<String> = path
            .iter()
            .map(|s| match s.to_string() {
                root if root == "$crate" => "crate".to_owned(),
                other => other,
            })
            .collect();
        key.push(ident.to_string());
        if !frame.accessors.as_ref()?.contains(&key.join("::")) {
            return None;
        }
        let name = crate::front::const_accessor_name(&frame.name, &key);
        Some((
            frame.module_tokens.clone(),
            proc_macro2::Ident::new(&name, ident.span()),
        ))
    }
}

/// One callee being inlined.
struct InlineFrame {
    /// Its path from the kernel's module (the recursion check compares these).
    path: Vec<String>,
    /// Its module, relative to the kernel's: where the paths in its body start.
    module: Vec<String>,
    /// The same module as Rust tokens (`a::b::`), to read its constants' public copies by.
    module_tokens: proc_macro2::TokenStream,
    /// The constants (`GAIN`, `super::GAIN`) whose public copies `#[amp::device]` left next
    /// to it; `None` for a function checked on its own.
    accessors: Option<Vec<String>>,
    /// Its name (the copies are named after it).
    name: String,
    /// The local its return value is stored in (none for `()`).
    ret: Option<LocalId>,
    /// Its return type.
    ret_ty: Ty,
    /// Set by `return`, so that the callee's own loops are left too.
    returned: Option<LocalId>,
    /// How many `return`s were checked so far.
    returns: u32,
}

impl<'a> BodyChecker<'a> {
    /// Makes these device functions callable from the body.
    pub fn set_device_fns(&mut self, fns: &'a [DeviceFnSource]) {
        self.device.fns = fns;
    }

    /// Buffer parameters the callee being checked took as read-only.
    pub(super) fn read_only_in_callee(&self, param: ParamId) -> bool {
        self.device.read_only.contains(&param)
    }

    /// A call of a function that is not one of the kernel language's: a device function when
    /// one of that path is known (or, checking a device function alone, left unchecked), an
    /// error otherwise.
    pub(super) fn device_call(&mut self, c: &syn::ExprCall) -> Expr {
        let span = c.span();
        let path = match strip(&c.func) {
            syn::Expr::Path(p) if p.qself.is_none() && is_device_fn_path(&p.path) => &p.path,
            _ => return self.unknown_function(c),
        };
        let module = self
            .device
            .frames
            .last()
            .map_or_else(Vec::new, |f| f.module.clone());
        let key = callee_path(&module, path);
        if let Some(cycle) = self.recursion(&key) {
            self.err(
                Diagnostic::error(
                    Rule::NoRecursion,
                    span,
                    format!("recursion is not allowed in kernels: {cycle}"),
                )
                .with_help(
                    "device functions are inlined into the kernel; rewrite the recursion as a loop",
                ),
            );
            return Self::error_expr(span);
        }
        if let Some(ident) = path.get_ident() {
            if let Some(Binding::Local(_)) = self.lookup(&ident.to_string()) {
                self.err(
                    Diagnostic::error(
                        Rule::NoClosures,
                        path.span(),
                        format!("`{ident}` is a variable, not a function: closures and function values cannot be called in kernels"),
                    )
                    .with_help(format!(
                        "write `{ident}` as a device function: `#[amp::device] fn {ident}(..) -> .. {{ .. }}` outside the kernel"
                    )),
                );
                for a in &c.args {
                    self.expr(a);
                }
                return Self::error_expr(span);
            }
        }
        let fns = self.device.fns;
        let Some(source) = fns.iter().find(|f| f.path == key) else {
            if self.device.standalone.is_some() {
                // Another device function: checked where a kernel calls this one.
                for a in &c.args {
                    self.expr(a);
                }
                return Self::error_expr(span);
            }
            return self.unknown_function(c);
        };
        // Its own errors are reported at its definition (by `#[amp::device]`): one error here
        // says why the call cannot be compiled, without repeating them.
        let structs = self.structs;
        let checked = check_device_fn(&source.func, structs);
        // A generic callee's arguments are checked first: their types choose the instance.
        let mut evaluated: Vec<Option<Expr>> = c.args.iter().map(|_| None).collect();
        let instance;
        let func = if checked.is_ok() && is_generic(&source.func) {
            if c.args.len() != source.func.sig.inputs.len() {
                return self.argument_count(c, &source.func, &key);
            }
            let Some(bindings) = self.generic_bindings(c, path, &source.func, &mut evaluated)
            else {
                return Self::error_expr(span);
            };
            instance = crate::front::generic::substitute(&source.func, &bindings);
            &instance
        } else {
            &source.func
        };
        let sig = match checked.and_then(|()| device_signature(func, structs)) {
            Ok(sig) => sig,
            Err(_) => {
                self.err(
                    Diagnostic::error(
                        Rule::DeviceFnBody,
                        path.span(),
                        format!(
                            "`{}` cannot be called: it breaks the kernel language's rules",
                            key.join("::")
                        ),
                    )
                    .with_help("fix the errors reported at its definition"),
                );
                return Self::error_expr(span);
            }
        };
        if c.args.len() != sig.params.len() {
            return self.argument_count(c, &source.func, &key);
        }
        let callee = source.func.sig.ident.to_string();
        let mut values = Vec::new();
        let mut buffers = Vec::new();
        let mut rejected = false;
        for ((arg, param), evaluated) in c.args.iter().zip(&sig.params).zip(evaluated) {
            match &param.kind {
                DeviceParamKind::Value(ty) => {
                    let value = evaluated.unwrap_or_else(|| self.expr(arg));
                    self.expect_ty(ty, &value, &format!("in this argument of `{callee}`"));
                    values.push((param.clone(), Some(value)));
                }
                DeviceParamKind::Buffer { .. } => match self.buffer_argument(arg, param, &callee) {
                    Some(id) => buffers.push((param.clone(), id)),
                    None => rejected = true,
                },
                DeviceParamKind::Image(kind) => {
                    match self.image_argument(arg, &param.name, kind, &callee) {
                        Some(id) => buffers.push((param.clone(), id)),
                        None => rejected = true,
                    }
                }
            }
        }
        if rejected {
            // The body would only repeat the argument's error at each use of the parameter.
            return Self::error_expr(span);
        }
        let module = key[..key.len() - 1].to_vec();
        let body = self.with_callee_scope(buffers, |checker| {
            checker.inline_body(func, &sig, key, module, Some(source), values)
        });
        Expr { span, ..body }
    }

    /// The error for a call with the wrong number of arguments.
    fn argument_count(&mut self, c: &syn::ExprCall, callee: &syn::ItemFn, key: &[String]) -> Expr {
        let span = c.span();
        let n = callee.sig.inputs.len();
        self.err(
            Diagnostic::error(
                Rule::DeviceFnCalls,
                span,
                format!(
                    "`{}` takes {n} argument{} but {} {} given",
                    key.join("::"),
                    if n == 1 { "" } else { "s" },
                    c.args.len(),
                    if c.args.len() == 1 { "was" } else { "were" },
                ),
            )
            .with_help(format!("its signature is `{}`", describe_signature(callee))),
        );
        Self::error_expr(span)
    }

    /// The error for a call of a function that is neither the kernel language's nor a known
    /// device function.
    fn unknown_function(&mut self, c: &syn::ExprCall) -> Expr {
        let name = quote::ToTokens::to_token_stream(&c.func)
            .to_string()
            .replace(' ', "");
        self.err(
            Diagnostic::error(
                Rule::DeviceFnMarked,
                c.func.span(),
                format!("calling `{name}` is not supported in kernels: it is not a device function"),
            )
            .with_help(format!(
                "mark `{name}` with `#[amp::device]` (or `#[amp::device(amp)]` for device-only code) to call it from kernels; kernels can also call `min`, `max`, `abs` and the math functions"
            )),
        );
        Self::error_expr(c.span())
    }

    /// `a -> b -> a` when calling `key` would recurse.
    fn recursion(&self, key: &[String]) -> Option<String> {
        let frames = &self.device.frames;
        let first = frames.iter().position(|f| f.path == key)?;
        let mut names: Vec<String> = frames[first..]
            .iter()
            .map(|f| format!("`{}`", f.path.join("::")))
            .collect();
        if names.len() == 1 {
            return Some(format!("{} calls itself", names[0]));
        }
        names.push(format!("`{}`", key.join("::")));
        Some(format!("the calls {} form a cycle", names.join(" -> ")))
    }

    /// The kernel buffer an argument for a view or array parameter names: a view or array
    /// parameter (`v`, `&v` or `&mut v`) of the caller, of the parameter's element type and rank,
    /// writable if the parameter is.
    fn buffer_argument(
        &mut self,
        arg: &syn::Expr,
        param: &DeviceParam,
        callee: &str,
    ) -> Option<ParamId> {
        let DeviceParamKind::Buffer {
            elem,
            rank,
            writable,
        } = param.kind.clone()
        else {
            return None;
        };
        let inner = match strip(arg) {
            syn::Expr::Reference(r) => &*r.expr,
            other => other,
        };
        let pname = &param.name;
        let Some(id) = self.is_buffer(inner) else {
            self.err(
                Diagnostic::error(Rule::DeviceFnCalls, arg.span(), format!("`{callee}` takes a view as `{pname}`: pass a view or array by its name"))
                    .with_help("views and arrays cannot be computed or stored in locals; pass a parameter of the kernel (or of the calling device function)"),
            );
            return None;
        };
        let (have_elem, have_rank, have_writable) = self.buffer_info(id);
        let arg_name = self.params[id].name.clone();
        if (&have_elem, have_rank) != (&elem, rank) {
            self.err(
                Diagnostic::error(
                    Rule::DeviceFnCalls,
                    arg.span(),
                    format!(
                        "mismatched views in this argument of `{callee}`: `{pname}` has elements `{}` and rank {rank}, `{arg_name}` has elements `{}` and rank {have_rank}",
                        elem.name(),
                        have_elem.name()
                    ),
                )
                .with_help("pass a view or array of the element type and rank the parameter declares"),
            );
            return None;
        }
        if writable && !have_writable {
            self.err(
                Diagnostic::error(
                    Rule::DeviceFnCalls,
                    arg.span(),
                    format!("`{callee}` writes to `{pname}`, but `{arg_name}` is read-only"),
                )
                .with_help(format!(
                    "declare `{arg_name}` as `ArrayViewMut` (or `&mut Array`)"
                )),
            );
            return None;
        }
        Some(id)
    }

    /// The kernel texture or sampler an argument for such a parameter names: a parameter of
    /// the caller (`t` or `&t`) of exactly the parameter's kind (texel type, rank and access).
    fn image_argument(
        &mut self,
        arg: &syn::Expr,
        pname: &str,
        kind: &ParamKind,
        callee: &str,
    ) -> Option<ParamId> {
        let inner = match strip(arg) {
            syn::Expr::Reference(r) => &*r.expr,
            other => other,
        };
        let describe = |k: &ParamKind| match k {
            ParamKind::Texture {
                texel,
                rank,
                access: TextureAccess::Read,
            } => format!("TextureView<{}, {rank}>", texel.name()),
            ParamKind::Texture { texel, rank, .. } => {
                format!("WriteonlyTextureView<{}, {rank}>", texel.name())
            }
            _ => "Sampler".to_owned(),
        };
        let want = describe(kind);
        let found = self.param_named(inner).filter(|&id| {
            matches!(
                self.params[id].kind,
                ParamKind::Texture { .. } | ParamKind::Sampler
            )
        });
        let Some(id) = found else {
            self.err(
                Diagnostic::error(Rule::DeviceFnCalls, arg.span(), format!("`{callee}` takes a `{want}` as `{pname}`: pass one by its name"))
                    .with_help("textures and samplers cannot be computed or stored in locals; pass a parameter of the kernel (or of the calling device function)"),
            );
            return None;
        };
        if &self.params[id].kind != kind {
            let have = describe(&self.params[id].kind);
            let arg_name = self.params[id].name.clone();
            self.err(
                Diagnostic::error(
                    Rule::DeviceFnCalls,
                    arg.span(),
                    format!("mismatched types in this argument of `{callee}`: `{pname}` is a `{want}`, `{arg_name}` is a `{have}`"),
                )
                .with_help("pass a texture view of the texel type, rank and access the parameter declares"),
            );
            return None;
        }
        Some(id)
    }

    /// Runs `f` in a fresh scope that sees only the callee's view parameters (bound to the
    /// kernel's buffers), with the caller's loops, index and tiled index hidden.
    fn with_callee_scope<T>(
        &mut self,
        buffers: Vec<(DeviceParam, ParamId)>,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let read_only = self.device.read_only.len();
        let mut scope = Vec::new();
        for (param, id) in buffers {
            if let DeviceParamKind::Buffer {
                writable: false, ..
            } = param.kind
            {
                self.device.read_only.push(id);
            }
            scope.push((param.name, Binding::Param(id)));
        }
        let scopes = std::mem::replace(&mut self.scopes, vec![scope]);
        let loops = std::mem::take(&mut self.loops);
        let while_conditions = std::mem::take(&mut self.while_conditions);
        let tiled = self.tiled.take();
        let simple_index = self.simple_index.take();
        let out = f(self);
        self.scopes = scopes;
        self.loops = loops;
        self.while_conditions = while_conditions;
        self.tiled = tiled;
        self.simple_index = simple_index;
        self.device.read_only.truncate(read_only);
        out
    }

    /// The callee's body as an expression: its value parameters bound to the arguments, then
    /// the body, in a loop that `return` leaves when the body has one.
    pub(super) fn inline_body(
        &mut self,
        func: &syn::ItemFn,
        sig: &DeviceSig,
        path: Vec<String>,
        module: Vec<String>,
        source: Option<&DeviceFnSource>,
        values: Vec<(DeviceParam, Option<Expr>)>,
    ) -> Expr {
        let span = Span::of(&func.block);
        let instance = crate::front::generic::is_instance(func);
        self.generic_instances += instance as u32;
        let mut stmts = Vec::new();
        for (param, value) in values {
            if let DeviceParamKind::Value(ty) = &param.kind {
                let id = self.declare(&param.name, ty.clone(), param.mutable);
                stmts.push(Stmt::Let(id, value));
            }
        }
        let returns = has_return(&func.block);
        let ret =
            (returns && !sig.ret.is_zero_sized()).then(|| self.hidden("#ret", sig.ret.clone()));
        let returned = returns.then(|| self.hidden("#returned", Ty::BOOL));
        let module_tokens =
            crate::front::path_tokens(&module, source.and_then(|s| s.crate_root.as_ref()));
        self.device.frames.push(InlineFrame {
            path,
            module,
            module_tokens,
            accessors: source.and_then(|s| const_accessors(&s.func)),
            name: func.sig.ident.to_string(),
            ret,
            ret_ty: sig.ret.clone(),
            returned,
            returns: 0,
        });
        // The callee cannot assign the caller's locals; its `return`s end its paths only.
        let before = self.deferred.save();
        let body = self.block(&func.block);
        self.generic_instances -= instance as u32;
        self.deferred.restart(before);
        self.device.frames.pop();
        let name = func.sig.ident.to_string();
        let body_ty = self.block_ty(&body);
        let tail_span = body.tail.as_ref().map_or(span, |t| t.span);
        if body.tail.is_some() || body_ty != Ty::Never {
            let checked = Expr {
                kind: ExprKind::Block(Block {
                    stmts: Vec::new(),
                    tail: None,
                }),
                ty: body_ty,
                span: tail_span,
            };
            self.expect_ty(&sig.ret, &checked, &format!("in the value of `{name}`"));
        }
        let tail = match (returned, ret) {
            (None, _) => Some(Box::new(Expr {
                kind: ExprKind::Block(body),
                ty: sig.ret.clone(),
                span,
            })),
            (Some(flag), ret) => {
                stmts.push(Stmt::Let(flag, Some(bool_lit(false, span))));
                if let Some(ret) = ret {
                    stmts.push(Stmt::Let(ret, None));
                }
                stmts.push(Stmt::Expr(Self::return_loop(body, ret, span)));
                ret.map(|id| {
                    Box::new(Expr {
                        kind: ExprKind::Local(id),
                        ty: sig.ret.clone(),
                        span,
                    })
                })
            }
        };
        Expr {
            kind: ExprKind::Block(Block { stmts, tail }),
            ty: sig.ret.clone(),
            span,
        }
    }

    /// `loop { body; ret = tail; break; }`: the loop a callee's `return` leaves.
    fn return_loop(mut body: Block, ret: Option<LocalId>, span: Span) -> Expr {
        if let Some(tail) = body.tail.take() {
            let diverges = tail.ty == Ty::Never;
            body.stmts.push(Stmt::Expr(match ret {
                Some(ret) if !diverges => assign(ret, *tail),
                _ => *tail,
            }));
        }
        body.stmts.push(Stmt::Expr(never(ExprKind::Break, span)));
        Expr {
            kind: ExprKind::Loop(body),
            ty: Ty::Unit,
            span,
        }
    }

    /// `return value` in a callee: store the value, set the flag, leave the loop.
    pub(super) fn device_return(&mut self, r: &syn::ExprReturn) -> Option<Expr> {
        let frame = self.device.frames.last()?;
        let (ret, ret_ty, flag) = (frame.ret, frame.ret_ty.clone(), frame.returned?);
        let span = r.span();
        let mut stmts = Vec::new();
        match &r.expr {
            Some(v) => {
                let value = self.expr(v);
                self.expect_ty(&ret_ty, &value, "in this `return`");
                stmts.push(Stmt::Expr(match ret {
                    Some(ret) => assign(ret, value),
                    None => value,
                }));
            }
            None => {
                let unit = Expr {
                    kind: ExprKind::Block(Block {
                        stmts: Vec::new(),
                        tail: None,
                    }),
                    ty: Ty::Unit,
                    span,
                };
                self.expect_ty(&ret_ty, &unit, "in this `return`");
            }
        }
        stmts.push(Stmt::Expr(assign(flag, bool_lit(true, span))));
        stmts.push(Stmt::Expr(never(ExprKind::Break, span)));
        if let Some(frame) = self.device.frames.last_mut() {
            frame.returns += 1;
        }
        Some(never(ExprKind::Block(Block { stmts, tail: None }), span))
    }

    /// How many `return`s the innermost callee has had so far.
    pub(super) fn device_returns(&self) -> u32 {
        self.device.frames.last().map_or(0, |f| f.returns)
    }

    /// The flag a `return` in the innermost callee sets, when it has one: a loop that such a
    /// `return` left is followed by `if returned { break; }`, up to the callee's own loop.
    pub(super) fn device_return_flag(&self) -> Option<LocalId> {
        self.device.frames.last().and_then(|f| f.returned)
    }
}

/// The constants whose public copies `#[amp::device]` left next to `func`, from the
/// `#[__amp_consts("GAIN", "super::LIMIT")]` attribute its callback adds to the source.
fn const_accessors(func: &syn::ItemFn) -> Option<Vec<String>> {
    let attr = func
        .attrs
        .iter()
        .find(|a| a.path().is_ident(crate::front::CONSTS_ATTR))?;
    let list = attr
        .parse_args_with(
            syn::punctuated::Punctuated::<syn::LitStr, syn::Token![,]>::parse_terminated,
        )
        .ok()?;
    Some(list.iter().map(syn::LitStr::value).collect())
}
