//! Device functions as items: their signatures checked (what may be passed, and how), the
//! paths calls name them by, and a device function checked on its own, once per instance of a
//! generic one. Their calls are inlined by `device_fn.rs`.

use super::*;

/// A device function's parameter.
#[derive(Clone, Debug)]
pub(crate) struct DeviceParam {
    pub(super) name: String,
    pub(super) span: Span,
    pub(super) mutable: bool,
    pub(super) kind: DeviceParamKind,
}

/// How a device function's parameter is passed.
#[derive(Clone, Debug)]
pub(super) enum DeviceParamKind {
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
    pub(super) params: Vec<DeviceParam>,
    pub(super) ret: Ty,
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
pub(super) fn has_return(block: &syn::Block) -> bool {
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
pub(super) fn describe_signature(func: &syn::ItemFn) -> String {
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
