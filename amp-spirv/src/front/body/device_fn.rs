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

use super::*;
use crate::front::DeviceFnSource;

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
    standalone: Option<String>,
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

/// A device function's parameter.
#[derive(Clone, Debug)]
pub(crate) struct DeviceParam {
    name: String,
    span: Span,
    mutable: bool,
    kind: DeviceParamKind,
}

/// How a device function's parameter is passed.
#[derive(Clone, Debug)]
enum DeviceParamKind {
    /// By value: a scalar, a fixed-size array, an `Index<N>`.
    Value(Ty),
    /// A view or array of the kernel, by name.
    Buffer {
        elem: Elem,
        rank: u32,
        writable: bool,
    },
    /// A texture view or sampler of the kernel, by name: its `ParamKind::Texture` or
    /// `ParamKind::Sampler`, which the argument's must equal.
    Image(ParamKind),
}

/// A device function's checked signature.
pub(crate) struct DeviceSig {
    params: Vec<DeviceParam>,
    ret: Ty,
}

/// The path a call names, relative to the kernel's module: `module` is the calling function's
/// module relative to the kernel's (empty for the kernel itself). `self::` is dropped,
/// `super::` steps out of `module` while it can, and `crate::`/`::` paths are kept whole.
pub fn callee_path(module: &[String], call: &syn::Path) -> Vec<String> {
    let segs: Vec<String> = call.segments.iter().map(|s| s.ident.to_string()).collect();
    if call.leading_colon.is_some() || segs.first().is_some_and(|s| s == "crate" || s == "$crate") {
        let mut out = segs;
        if call.leading_colon.is_some() {
            out.insert(0, String::new());
        }
        return out;
    }
    let mut out = module.to_vec();
    for seg in segs {
        match seg.as_str() {
            "self" => {}
            "super" if out.last().is_some_and(|s| s != "super" && !s.is_empty()) => {
                out.pop();
            }
            _ => out.push(seg),
        }
    }
    out
}

/// Whether a call path can name a device function: lower-case module and function names, no
/// generic arguments but a turbofish on the function (`square::<f32>`), and not one of the
/// kernel language's own functions (math, `min`, atomics, fences), which always win.
pub fn is_device_fn_path(path: &syn::Path) -> bool {
    let last = path.segments.len() - 1;
    let plain = path.segments.iter().enumerate().all(|(i, s)| {
        let args_ok = s.arguments.is_empty()
            || (i == last && matches!(s.arguments, syn::PathArguments::AngleBracketed(_)));
        args_ok && !starts_upper(&s.ident.to_string())
    });
    plain && !is_kernel_function(path)
}

/// The paths of the calls in `block` that can name device functions, in source order.
pub fn device_calls(block: &syn::Block) -> Vec<syn::Path> {
    struct Calls(Vec<syn::Path>);
    impl<'ast> syn::visit::Visit<'ast> for Calls {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if let syn::Expr::Path(p) = strip(&c.func) {
                if p.qself.is_none() && is_device_fn_path(&p.path) {
                    self.0.push(p.path.clone());
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
    }
    let mut calls = Calls(Vec::new());
    syn::visit::Visit::visit_block(&mut calls, block);
    calls.0
}

/// The names a body binds to closures (`let sq = |x: f32| x * x;`): a call of one calls the
/// closure, not a device function (and the body checker reports the closure).
pub fn closure_names(block: &syn::Block) -> std::collections::HashSet<String> {
    struct Names(std::collections::HashSet<String>);
    impl<'ast> syn::visit::Visit<'ast> for Names {
        fn visit_local(&mut self, l: &'ast syn::Local) {
            let pat = match &l.pat {
                syn::Pat::Type(t) => &*t.pat,
                p => p,
            };
            if let (syn::Pat::Ident(p), Some(init)) = (pat, &l.init) {
                if matches!(strip(&init.expr), syn::Expr::Closure(_)) {
                    self.0.insert(p.ident.to_string());
                }
            }
            syn::visit::visit_local(self, l);
        }
    }
    let mut names = Names(std::collections::HashSet::new());
    syn::visit::Visit::visit_block(&mut names, block);
    names.0
}

fn starts_upper(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
}

/// The functions the kernel language provides, by the rules of `BodyChecker::call`.
fn is_kernel_function(path: &syn::Path) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let Some((last, prefix)) = segs.split_last() else {
        return false;
    };
    let math_module = |m: &String| m == "fast_math" || m == "precise_math" || m == "direct3d";
    match prefix {
        [] => {
            matches!(
                last.as_str(),
                "min"
                    | "max"
                    | "abs"
                    | "all_memory_fence"
                    | "global_memory_fence"
                    | "tile_static_memory_fence"
                    | "dot"
                    | "cross"
                    | "length"
                    | "normalize"
            ) || AtomicOp::from_name(last).is_some()
        }
        [m] => {
            // `norm` and `unorm` are also plausible module names: as C++ AMP's names of the
            // normalized types they prefix only the conversions.
            let type_prefix = match Scalar::from_name(m) {
                Some(s) if s.is_normalized() && !starts_upper(m) => {
                    matches!(last.as_str(), "new" | "from")
                }
                other => other.is_some(),
            };
            math_module(m)
                || type_prefix
                || m == "cmp"
                || crate::types::vector_from_name(m).is_some()
        }
        [a, b] => math_module(b) || ((a == "std" || a == "core") && b == "cmp"),
        _ => false,
    }
}

/// Whether a function body contains `return` (then its inlined body needs the loop that
/// `return` leaves).
fn has_return(block: &syn::Block) -> bool {
    fn walk(tokens: proc_macro2::TokenStream) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == "return",
            proc_macro2::TokenTree::Group(g) => walk(g.stream()),
            _ => false,
        })
    }
    walk(quote::ToTokens::to_token_stream(block))
}

/// Checks a device function's signature: plain parameter names of value, view or array types,
/// and a value return type.
pub(crate) fn device_signature(
    func: &syn::ItemFn,
    structs: &StructTable,
) -> Result<DeviceSig, Diagnostics> {
    let mut diags = Diagnostics::default();
    check_qualifiers(&func.sig, &mut diags);
    // Type parameters were replaced by their scalars before (see `generic`); what is left
    // (const generics) has no meaning in a device function.
    if !func.sig.generics.params.is_empty() || func.sig.generics.where_clause.is_some() {
        diags.push(
            Diagnostic::error(
                Rule::DeviceFnSignature,
                func.sig.generics.span(),
                "device functions can only be generic over types bounded by `DeviceScalar`, `DeviceInt` or `DeviceFloat`",
            )
            .with_help("write `fn name<T: DeviceFloat>(x: T) -> T`; use a parameter instead of a const generic"),
        );
    }
    let mut params = Vec::new();
    for input in &func.sig.inputs {
        match device_param(input, structs) {
            Ok(p) => params.push(p),
            Err(d) => diags.push(d),
        }
    }
    let ret = match &func.sig.output {
        syn::ReturnType::Default => Ty::Unit,
        syn::ReturnType::Type(_, ty) => {
            value_type(ty, structs, &mut literal_len).unwrap_or_else(|d| {
                diags.push(d);
                Ty::Never
            })
        }
    };
    if diags.is_empty() {
        Ok(DeviceSig { params, ret })
    } else {
        Err(diags)
    }
}

fn check_qualifiers(sig: &syn::Signature, diags: &mut Diagnostics) {
    let qualifiers: [(Option<Span>, &str); 4] = [
        (sig.asyncness.map(|t| Span::from(t.span)), "async"),
        (sig.unsafety.map(|t| Span::from(t.span)), "unsafe"),
        (sig.constness.map(|t| Span::from(t.span)), "const"),
        (sig.abi.as_ref().map(|a| a.span()), "extern"),
    ];
    for (span, word) in qualifiers {
        if let Some(span) = span {
            diags.push(
                Diagnostic::error(
                    Rule::DeviceFnSignature,
                    span,
                    format!("a device function cannot be `{word}`"),
                )
                .with_help(format!("remove `{word}`")),
            );
        }
    }
    if let Some(v) = &sig.variadic {
        diags.push(Diagnostic::error(
            Rule::DeviceFnSignature,
            v.span(),
            "a device function cannot be variadic",
        ));
    }
}

fn device_param(input: &syn::FnArg, structs: &StructTable) -> Result<DeviceParam, Diagnostic> {
    let span = input.span();
    let syn::FnArg::Typed(pt) = input else {
        return Err(Diagnostic::error(
            Rule::DeviceFnSignature,
            span,
            "a device function cannot take `self`",
        )
        .with_help("device functions are free functions"));
    };
    let syn::Pat::Ident(p) = &*pt.pat else {
        return Err(Diagnostic::error(
            Rule::DeviceFnSignature,
            pt.pat.span(),
            "device function parameters must be plain names",
        )
        .with_help("write `name: Type`"));
    };
    if p.by_ref.is_some() || p.subpat.is_some() {
        return Err(Diagnostic::error(
            Rule::DeviceFnSignature,
            pt.pat.span(),
            "device function parameters must be plain names",
        ));
    }
    let kind = match buffer_type(&pt.ty, structs)? {
        Some(buffer) => buffer,
        None => match image_type(&pt.ty, structs)? {
            Some(image) => DeviceParamKind::Image(image),
            None => DeviceParamKind::Value(value_type(&pt.ty, structs, &mut literal_len)?),
        },
    };
    Ok(DeviceParam {
        name: p.ident.to_string(),
        span,
        mutable: p.mutability.is_some(),
        kind,
    })
}

/// `TextureView<T, N>`, `WriteonlyTextureView<T, N>` and `Sampler`, by value or by shared
/// reference, as host code passes them.
fn image_type(ty: &syn::Type, structs: &StructTable) -> Result<Option<ParamKind>, Diagnostic> {
    let inner = match ty {
        syn::Type::Reference(r) if r.mutability.is_none() => &*r.elem,
        other => other,
    };
    let Some((ident, args)) = crate::front::signature::last_segment(inner) else {
        return Ok(None);
    };
    let access = match ident.as_str() {
        "TextureView" => TextureAccess::Read,
        "WriteonlyTextureView" => TextureAccess::Write,
        "Sampler" if args.is_empty() => return Ok(Some(ParamKind::Sampler)),
        _ => return Ok(None),
    };
    let args: Vec<_> = args
        .into_iter()
        .filter(|a| !matches!(a, syn::GenericArgument::Lifetime(_)))
        .collect();
    let (texel, rank) = crate::front::signature::texel_and_rank(&args, structs, inner.span())?;
    Ok(Some(ParamKind::Texture {
        texel,
        rank,
        access,
    }))
}

/// `ArrayView<T, N>`, `ArrayViewMut<T, N>`, `&Array<T, N>`, `&mut Array<T, N>`, and the views
/// by reference (`&ArrayView<T, N>`, `&mut ArrayViewMut<T, N>`), as host code passes them.
fn buffer_type(
    ty: &syn::Type,
    structs: &StructTable,
) -> Result<Option<DeviceParamKind>, Diagnostic> {
    let (inner, reference) = match ty {
        syn::Type::Reference(r) => (&*r.elem, Some(r.mutability.is_some())),
        other => (other, None),
    };
    let Some((ident, args)) = crate::front::signature::last_segment(inner) else {
        return Ok(None);
    };
    let writable = match (ident.as_str(), reference) {
        ("ArrayView", None | Some(false)) => false,
        ("ArrayViewMut", None | Some(true)) => true,
        ("Array", Some(mutable)) => mutable,
        ("Array", None) => {
            return Err(Diagnostic::error(
                Rule::DeviceFnSignature,
                ty.span(),
                "an `Array` parameter must be taken by reference",
            )
            .with_help("write `&Array<T, N>` to read it or `&mut Array<T, N>` to write it"))
        }
        ("ArrayViewMut", Some(false)) => {
            return Err(Diagnostic::error(Rule::DeviceFnSignature, ty.span(), "take a writable view as `&mut ArrayViewMut<T, N>` or by value")
                .with_help("or take `ArrayView<T, N>` to only read it"))
        }
        ("TiledIndex", _) => {
            return Err(Diagnostic::error(Rule::DeviceFnSignature, ty.span(), "a device function cannot take a `TiledIndex`: barriers and `tile_static` memory belong to the kernel")
                .with_help("pass the index values it needs, such as `t.local` or `t.global`"))
        }
        _ => return Ok(None),
    };
    let (elem, rank) = crate::front::signature::elem_and_rank(&args, structs, inner.span())?;
    Ok(Some(DeviceParamKind::Buffer {
        elem,
        rank,
        writable,
    }))
}

/// `fn name(a: T, ..) -> R`, for messages.
fn describe_signature(func: &syn::ItemFn) -> String {
    let mut sig = func.sig.clone();
    sig.generics = Default::default();
    quote::ToTokens::to_token_stream(&sig)
        .to_string()
        .replace(" (", "(")
        .replace(" ,", ",")
        .replace(" :", ":")
        .replace("< ", "<")
        .replace(" <", "<")
        .replace(" >", ">")
        .replace("( ", "(")
        .replace(" )", ")")
        .replace("& ", "&")
}

/// Checks one `#[amp::device]` function on its own, as it is defined: its signature and its
/// body under the kernel language's rules. Calls to other device functions are checked where a
/// kernel uses them (only then are their bodies known); direct recursion is reported here.
pub fn check_device_fn(func: &syn::ItemFn, structs: &StructTable) -> Result<(), Diagnostics> {
    if func
        .sig
        .generics
        .params
        .iter()
        .any(|p| !matches!(p, syn::GenericParam::Const(_)))
    {
        // Generic: every instance is checked, and an error only some have names them.
        let instances = match crate::front::generic::instantiate(func) {
            Ok(instances) => instances,
            Err(mut diags) => {
                // The rest of its errors too, checked with the bounds recovered (no error at
                // every use of a badly bounded parameter).
                if let Some(r) = crate::front::generic::recovered_instance(func) {
                    if let Err(more) = check_concrete_device_fn(&r, structs) {
                        for d in more {
                            if d.rule != Rule::Generics {
                                diags.push(d);
                            }
                        }
                    }
                }
                return Err(diags);
            }
        };
        let results = instances
            .into_iter()
            .map(|i| {
                let diags = check_concrete_device_fn(&i.func, structs).err();
                (i.label(), diags.unwrap_or_default())
            })
            .collect();
        let diags = crate::front::generic::merge_instance_errors(results);
        return if diags.is_empty() { Ok(()) } else { Err(diags) };
    }
    check_concrete_device_fn(func, structs)
}

/// [`check_device_fn`] for a function without type parameters.
fn check_concrete_device_fn(func: &syn::ItemFn, structs: &StructTable) -> Result<(), Diagnostics> {
    check_concrete(func, structs).map(|_| ())
}

/// The constants a device function's body reads (`"GAIN"`, `"super::LIMIT"`; of every
/// instance of a generic one): those `#[amp::device]` leaves public copies of, so that
/// kernels anywhere read them where the function is written. Empty for a function with errors
/// (they are reported by [`check_device_fn`]).
pub fn device_fn_consts(func: &syn::ItemFn, structs: &StructTable) -> Vec<String> {
    let generic = func
        .sig
        .generics
        .params
        .iter()
        .any(|p| !matches!(p, syn::GenericParam::Const(_)));
    let instances: Vec<syn::ItemFn> = if generic {
        match crate::front::generic::instantiate(func) {
            Ok(instances) => instances.into_iter().map(|i| i.func).collect(),
            Err(_) => return Vec::new(),
        }
    } else {
        vec![func.clone()]
    };
    let mut all: Vec<String> = Vec::new();
    for instance in &instances {
        let Ok(consts) = check_concrete(instance, structs) else {
            return Vec::new();
        };
        for c in consts {
            if !all.contains(&c) {
                all.push(c);
            }
        }
    }
    all
}

/// Checks a function without type parameters; the constants its body reads (see
/// [`device_fn_consts`]).
fn check_concrete(func: &syn::ItemFn, structs: &StructTable) -> Result<Vec<String>, Diagnostics> {
    let sig = device_signature(func, structs)?;
    let mut diags = Diagnostics::default();
    // The view and array parameters play the kernel's buffer parameters.
    let buffers: Vec<Param> = sig
        .params
        .iter()
        .filter_map(|p| match p.kind.clone() {
            DeviceParamKind::Buffer {
                elem,
                rank,
                writable,
            } => Some(Param {
                name: p.name.clone(),
                span: p.span,
                kind: ParamKind::Buffer {
                    elem,
                    rank,
                    writable,
                    container: Container::View,
                },
            }),
            DeviceParamKind::Image(kind) => Some(Param {
                name: p.name.clone(),
                span: p.span,
                kind,
            }),
            DeviceParamKind::Value(_) => None,
        })
        .collect();
    let mut checker = BodyChecker::new(&mut diags, &buffers, structs);
    let name = func.sig.ident.to_string();
    checker.device.standalone = Some(name.clone());
    let values: Vec<(DeviceParam, Option<Expr>)> = sig
        .params
        .iter()
        .filter(|p| matches!(p.kind, DeviceParamKind::Value(_)))
        .map(|p| (p.clone(), None))
        .collect();
    let _ = checker.inline_body(func, &sig, vec![name], Vec::new(), None, values);
    let consts: Vec<String> = checker
        .consts
        .iter()
        .filter(|(c, _)| !c.generic)
        .map(|(c, _)| format!("{}{}", c.path.to_string().replace(' ', ""), c.ident))
        .collect();
    if diags.is_empty() {
        Ok(consts)
    } else {
        Err(diags)
    }
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
    fn inline_body(
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

    /// The tail of a callee's block: a loop that a `return` left becomes a statement, followed
    /// by the check that leaves the enclosing loop.
    pub(super) fn device_tail(
        &mut self,
        before: u32,
        tail: Expr,
        stmts: &mut Vec<Stmt>,
    ) -> Option<Box<Expr>> {
        let is_loop = matches!(
            tail.kind,
            ExprKind::Loop(_) | ExprKind::While(..) | ExprKind::For(_)
        );
        if !is_loop || self.device_returns() == before {
            return Some(Box::new(tail));
        }
        stmts.push(Stmt::Expr(tail));
        self.after_device_stmt(before, stmts);
        None
    }

    /// After a statement of a callee: a loop that a `return` left is left by the enclosing
    /// loop too, up to the callee's own (`if returned { break; }`).
    pub(super) fn after_device_stmt(&mut self, before: u32, stmts: &mut Vec<Stmt>) {
        let Some(frame) = self.device.frames.last() else {
            return;
        };
        let (Some(flag), true) = (frame.returned, frame.returns > before) else {
            return;
        };
        let is_loop = matches!(
            stmts.last(),
            Some(Stmt::Expr(Expr {
                kind: ExprKind::Loop(_) | ExprKind::While(..) | ExprKind::For(_),
                ..
            }))
        );
        if is_loop {
            let Some(Stmt::Expr(Expr { span, .. })) = stmts.last() else {
                return;
            };
            let span = *span;
            let leave = Block {
                stmts: vec![Stmt::Expr(never(ExprKind::Break, span))],
                tail: None,
            };
            let cond = Expr {
                kind: ExprKind::Local(flag),
                ty: Ty::BOOL,
                span,
            };
            stmts.push(Stmt::Expr(Expr {
                kind: ExprKind::If(Box::new(cond), leave, None),
                ty: Ty::Unit,
                span,
            }));
        }
    }
}

fn assign(local: LocalId, value: Expr) -> Expr {
    let span = value.span;
    Expr {
        kind: ExprKind::Assign(Place::Local(local, Vec::new()), Box::new(value)),
        ty: Ty::Unit,
        span,
    }
}

fn never(kind: ExprKind, span: Span) -> Expr {
    Expr {
        kind,
        ty: Ty::Never,
        span,
    }
}

fn bool_lit(value: bool, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Lit(Lit::Bool(value)),
        ty: Ty::BOOL,
        span,
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
