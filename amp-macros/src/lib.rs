//! The `#[kernel(amp)]` attribute of amp-rs.
//!
//! Thin by design: it parses the function with `syn`, has [`amp_spirv::check`] check it once
//! (per instance of a generic kernel), runs both back ends on that check, and emits either the
//! SPIR-V as a static, the native CPU accelerator's entry (or why there is none) and a typed
//! launcher with the kernel's name, or one `compile_error!` per problem at the offending
//! tokens. See the `amp` crate for the user guide.

mod callback;
mod device_fn;
mod imports;
mod native;
mod source_file;

use amp_spirv::{
    CompiledKernel, Container, Diagnostic, Elem, Len, Lint, Options, ParamKind, Rule, Scalar,
    TextureAccess, TileDim, Warning,
};
use proc_macro::TokenStream;
use proc_macro2::{Delimiter, Group, Literal, Span, TokenStream as TokenStream2};
use quote::{format_ident, quote, quote_spanned};

/// `#[derive(DeviceStruct)]` on a `#[repr(C)]` struct (which also derives `Clone`, `Copy`,
/// `Debug`, `bytemuck::Pod` and `bytemuck::Zeroable`) makes it a view and array element type
/// whose fields kernels read and write; see `docs/kernel-language.md`.
#[proc_macro_derive(DeviceStruct)]
pub fn device_struct(input: TokenStream) -> TokenStream {
    callback::derive_device_struct(input.into()).into()
}

/// Compiles a Rust function to a GPU kernel at build time.
///
/// The function must take an `Index<N>` first, then views, arrays and scalars; its body must stay
/// within the kernel language (see `docs/kernel-language.md`). The attribute replaces the
/// function with a launcher of the same name that takes `&` views and arrays (`&mut` for the
/// writable ones) and scalars by value, and returns a call to pass to `parallel_for_each`.
///
/// Set the environment variable `AMP_DUMP_SPIRV=<dir>` while building to get every kernel's
/// module as `<dir>/<kernel>.spv`, and `AMP_DUMP_NATIVE=<dir>` to get the Rust each kernel
/// became for the native CPU accelerator, formatted, as `<dir>/<kernel>.rs`.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let (attr, mut imported) = imports::take_arg(TokenStream2::from(attr));
    let mut func = match syn::parse::<syn::ItemFn>(item) {
        Ok(f) => f,
        Err(e) => {
            let msg = format!("#[kernel(amp)] applies to free functions: {e}");
            return syn::Error::new(e.span(), msg).to_compile_error().into();
        }
    };
    // What the kernel imports with `use`, named by path: in the first round only (later ones
    // carry device function or struct sources, and the rewritten kernel).
    let first_round =
        !imports::has_arg(&attr, "__device") && !imports::has_arg(&attr, callback::DEFINITIONS_ARG);
    if first_round {
        imported.extend(source_file::resolve_imports(&mut func));
    }
    // The arguments the callbacks re-invoke the attribute with.
    let original_attr = imports::with_arg(attr.clone(), &imported);
    let mut errors = TokenStream2::new();
    let options = match parse_options(attr.clone()) {
        Ok(o) => o,
        Err(d) => {
            errors.extend(error_tokens(&d));
            Options::default()
        }
    };
    if errors.is_empty() {
        if let Some(path) = callback::missing_struct(&func, &options.structs) {
            return callback::request_definition(&path, original_attr, &func).into();
        }
        if let Some(fetch) = device_fn::fetch_missing(&original_attr, &func, &options.device_fns) {
            return fetch.into();
        }
    }
    // The launcher is generated inside the guard too: its code relies on facts of the compiled
    // kernels (bindings, type names), and a bug there is an internal error like one in the
    // compiler.
    let expanded = guarded(&func, || {
        let instances = compile_instances(&func, &options)?;
        let code = errors.is_empty().then(|| {
            let mut out = launcher(&func, &instances, options.unchecked);
            out.extend(callback::layout_assertions(
                &func,
                &options.structs,
                &instances[0].kernel,
            ));
            out
        });
        Ok((instances, code))
    });
    match expanded {
        Ok((instances, Some(mut out))) => {
            let report = match build_flag("AMP_REPORT") {
                Ok(on) => on,
                Err(message) => {
                    return syn::Error::new(func.sig.ident.span(), message)
                        .to_compile_error()
                        .into()
                }
            };
            for i in &instances {
                dump_spirv(&i.kernel, &i.bindings);
                if report {
                    eprint!("{}", i.kernel.report);
                }
            }
            out.extend(imports::markers(&imported));
            out.into()
        }
        Ok((_, None)) => errors.into(),
        Err(diags) => {
            for d in diags.iter() {
                errors.extend(error_tokens(d));
            }
            errors.into()
        }
    }
}

/// Build-time flag `name` (`amp_abi::settings`' one grammar for flags); an error message
/// naming the variable when its value is not a flag.
fn build_flag(name: &str) -> Result<bool, String> {
    use amp_spirv::abi::settings::{parse, Kind, Value};
    let Ok(raw) = std::env::var(name) else {
        return Ok(false);
    };
    match parse(Kind::Flag, &raw) {
        Some(v) => Ok(v == Value::Flag(true)),
        None => Err(format!(
            "environment variable {name}={raw:?} is invalid: expected {}",
            Kind::Flag.expected()
        )),
    }
}

/// Runs `compile` (the compiler, on `func`), turning a panic in it, which can only be a bug in
/// amp-rs, into an internal-error diagnostic at the function's name: the user never sees
/// "proc macro panicked".
pub(crate) fn guarded<T>(
    func: &syn::ItemFn,
    compile: impl FnOnce() -> Result<T, amp_spirv::Diagnostics>,
) -> Result<T, amp_spirv::Diagnostics> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(compile)) {
        Ok(result) => result,
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Err(amp_spirv::internal_error(
                &func.sig.ident.to_string(),
                "SPIR-V and native code",
                &format!("the compiler panicked: {message}"),
                amp_spirv::Span::of(&func.sig.ident),
            ))
        }
    }
}

/// Compiles every instance of the kernel (one, unless it has type parameters); all errors of
/// all instances otherwise, each once, naming the instances it is limited to.
fn compile_instances(
    func: &syn::ItemFn,
    options: &Options,
) -> Result<Vec<Instance>, amp_spirv::Diagnostics> {
    let instances = match amp_spirv::instantiate(func) {
        Ok(i) => i,
        Err(mut diags) => {
            // Still report the rest of the kernel's errors in this build, checked as one
            // instance with the type parameters' bounds recovered (no error at every use of a
            // badly bounded parameter); the signature's own check would repeat the generics
            // ones.
            let recovered = amp_spirv::recovered_instance(func);
            if let Err(more) = amp_spirv::compile_with(recovered.as_ref().unwrap_or(func), options)
            {
                for d in more {
                    if d.rule != Rule::Generics {
                        diags.push(d);
                    }
                }
            }
            return Err(diags);
        }
    };
    // Each instance is checked once; both back ends start from that.
    let results: Vec<_> = instances
        .into_iter()
        .enumerate()
        .map(|(n, i)| {
            let compiled = amp_spirv::check(&i.func, options).and_then(|checked| {
                let mut kernel = checked.spirv()?;
                let native =
                    native::entry(&checked, &i.func, &i.bindings, kernel.tile.is_some(), n)?;
                kernel.report.push_str(&native.2);
                Ok((kernel, native))
            });
            (compiled, i)
        })
        .collect();
    if results.iter().all(|(r, _)| r.is_ok()) {
        return Ok(results
            .into_iter()
            .filter_map(|(r, i)| {
                let (kernel, (native_item, native_code, _)) = r.ok()?;
                Some(Instance {
                    bindings: i.bindings,
                    kernel,
                    native_item,
                    native_code,
                })
            })
            .collect());
    }
    Err(amp_spirv::merge_instance_errors(
        results
            .into_iter()
            .map(|(r, i)| (i.label(), r.err().unwrap_or_default()))
            .collect(),
    ))
}

/// Marks a function for use in kernels (C++ AMP's `restrict(cpu, amp)`).
///
/// The function stays an ordinary Rust function for the host, is checked against the kernel
/// language's rules, and can be called from `#[kernel(amp)]` kernels and from other device
/// functions, in the same module or another module of the crate (by path: `util::square(x)`).
/// `#[amp::device(amp)]` makes it device-only (C++ AMP's `restrict(amp)`): no host function is
/// left. Calls are inlined; recursion is a compile error. See "Device functions" in
/// `docs/kernel-language.md`.
///
/// ```ignore
/// #[amp::device]
/// fn square(x: f32) -> f32 {
///     x * x
/// }
///
/// #[kernel(amp)]
/// fn squares(idx: Index<1>, v: ArrayViewMut<f32, 1>) {
///     v[idx] = square(v[idx]);
/// }
/// ```
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    device_fn::device(attr.into(), item.into()).into()
}

/// `compile_error!` spanning the diagnostic's whole range: rustc reports an error at a macro
/// invocation from its first token (the path) to its last (the group), which is how a stable
/// proc macro underlines more than one token.
/// `amp`, optionally followed by `unchecked`, `fast_math` and `allow(lint, ...)`, in any order.
fn parse_options(attr: TokenStream2) -> Result<Options, Diagnostic> {
    // The first argument names the restriction; later ones are options.
    let usage = |rule: Rule, span: Span| {
        Diagnostic::error(
            rule,
            span,
            "expected `#[kernel(amp)]`, optionally with `unchecked`, `fast_math` and `allow(...)`: `#[kernel(amp, unchecked, allow(...))]`",
        )
        .with_help(format!(
            "amp kernels are marked with `#[kernel(amp)]`; `unchecked` turns off the bounds checks of view and array accesses; `fast_math` uses the device's own `f32` division, square root and trigonometry; warnings can be allowed by name: {}",
            Lint::ALL.map(|l| l.name()).join(", ")
        ))
    };
    let parser = syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated;
    let first_span = attr
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span());
    let metas = syn::parse::Parser::parse2(parser, attr)
        .map_err(|e| usage(Rule::AttributeIsAmp, e.span()))?;
    let mut metas = metas.into_iter();
    match metas.next() {
        Some(syn::Meta::Path(p)) if p.is_ident("amp") => {}
        Some(other) => {
            return Err(usage(
                Rule::AttributeIsAmp,
                syn::spanned::Spanned::span(&other),
            ))
        }
        None => return Err(usage(Rule::AttributeIsAmp, first_span)),
    }
    let mut options = Options::default();
    for meta in metas {
        if let syn::Meta::Path(path) = &meta {
            let switch = if path.is_ident("unchecked") {
                Some(("unchecked", &mut options.unchecked))
            } else if path.is_ident("fast_math") {
                Some(("fast_math", &mut options.fast_math))
            } else {
                None
            };
            if let Some((name, on)) = switch {
                if *on {
                    return Err(Diagnostic::error(
                        Rule::UncheckedOnce,
                        syn::spanned::Spanned::span(path),
                        format!("`{name}` is given twice"),
                    )
                    .with_help(format!("remove one `{name}`")));
                }
                *on = true;
                continue;
            }
        }
        let syn::Meta::List(list) = &meta else {
            return Err(usage(
                Rule::AttributeOptions,
                syn::spanned::Spanned::span(&meta),
            ));
        };
        if list.path.is_ident("__device") {
            let source = device_fn::parse_device_arg(list).map_err(|e| {
                Diagnostic::error(
                    Rule::DeviceFnCalls,
                    e.span(),
                    format!("malformed device function argument: {e}"),
                )
            })?;
            options.device_fns.push(source);
            continue;
        }
        if list.path.is_ident(callback::DEFINITIONS_ARG) {
            let defs = callback::parse_definitions(list.tokens.clone())
                .map_err(|e| usage(Rule::AttributeOptions, e.span()))?;
            options.structs.extend(defs);
            continue;
        }
        if !list.path.is_ident("allow") {
            return Err(usage(
                Rule::AttributeOptions,
                syn::spanned::Spanned::span(&list.path),
            ));
        }
        let names = list
            .parse_args_with(
                syn::punctuated::Punctuated::<syn::Ident, syn::Token![,]>::parse_terminated,
            )
            .map_err(|e| usage(Rule::AttributeOptions, e.span()))?;
        for name in names {
            match Lint::from_name(&name.to_string()) {
                Some(lint) => options.allow.push(lint),
                None => {
                    return Err(Diagnostic::error(
                        Rule::AllowKnownLint,
                        name.span(),
                        format!("unknown amp warning `{name}`"),
                    )
                    .with_help(format!(
                        "the warnings are: {}",
                        Lint::ALL.map(|l| l.name()).join(", ")
                    )))
                }
            }
        }
    }
    Ok(options)
}

/// A warning on stable Rust: the use of a deprecated constant, spanned at the finding; rustc
/// prints the deprecation note, which carries the message, the fix, and how to silence it.
fn warning_tokens(index: usize, w: &Warning) -> TokenStream2 {
    let name = format_ident!("{}_{}", w.lint.name(), index);
    let note = format!(
        "amp: {}; help: {}; silence with `#[kernel(amp, allow({}))]`",
        w.message,
        w.help,
        w.lint.name()
    );
    let use_site = syn::Ident::new(&name.to_string(), w.span.start);
    quote! {
        #[deprecated(note = #note)]
        #[allow(non_upper_case_globals)]
        const #name: () = ();
        let _ = #use_site;
    }
}

/// `compile_error!` spanning the diagnostic's whole range: rustc reports an error at a macro
/// invocation from its first token (the path) to its last (the group), which is how a stable
/// proc macro underlines more than one token.
fn error_tokens(d: &Diagnostic) -> TokenStream2 {
    let msg = d.to_string();
    let mut body = Group::new(Delimiter::Brace, quote!(#msg));
    body.set_span(d.span.end);
    let path = quote_spanned!(d.span.start=> ::core::compile_error!);
    quote!(#path #body)
}

/// Writes the module to `$AMP_DUMP_SPIRV/<name>.spv` (`<name>-f32.spv` and so on for the
/// instances of a generic kernel) when that variable is set.
fn dump_spirv(kernel: &CompiledKernel, bindings: &[(syn::Ident, Scalar)]) {
    let bytes: Vec<u8> = kernel.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    dump("AMP_DUMP_SPIRV", &kernel.name, bindings, "spv", &bytes);
}

/// Writes `bytes` to `$<variable>/<name><instance>.<extension>` when `variable` is set, where
/// `<instance>` names a generic kernel's instance (`-f32`, ...). Best effort: a failed dump
/// must not fail the user's build.
pub(crate) fn dump(
    variable: &str,
    name: &str,
    bindings: &[(syn::Ident, Scalar)],
    extension: &str,
    bytes: &[u8],
) {
    let Some(dir) = std::env::var_os(variable) else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let suffix: String = bindings
        .iter()
        .map(|(_, s)| format!("-{}", s.name()))
        .collect();
    let _ = std::fs::create_dir_all(&dir)
        .and_then(|_| std::fs::write(dir.join(format!("{name}{suffix}.{extension}")), bytes));
}

pub(crate) fn scalar_tokens(s: Scalar) -> TokenStream2 {
    let ident = format_ident!("{}", s.name());
    if s.is_normalized() {
        // `Norm`, `Unorm`: the runtime's types, re-exported by `amp`.
        return quote!(::amp::#ident);
    }
    quote!(::core::primitive::#ident)
}

/// The runtime's `ScalarType` of `s`, as the kernel ABI maps it.
fn scalar_type_tokens(s: Scalar) -> TokenStream2 {
    abi_scalar_tokens(s.abi())
}

/// Tokens naming an ABI `ScalarType` value.
fn abi_scalar_tokens(s: amp_spirv::abi::ScalarType) -> TokenStream2 {
    use amp_spirv::abi::ScalarType;
    // Exhaustive over the ABI's variants: a new one fails to compile here.
    let variant = match s {
        ScalarType::Bool => quote!(Bool),
        ScalarType::I32 => quote!(I32),
        ScalarType::U32 => quote!(U32),
        ScalarType::F32 => quote!(F32),
        ScalarType::F64 => quote!(F64),
        ScalarType::Norm => quote!(Norm),
        ScalarType::Unorm => quote!(Unorm),
    };
    quote!(::amp::__private::ScalarType::#variant)
}

/// The host type of a view or array element: a primitive, one of `amp`'s short vectors, or
/// a struct as the kernel's signature names it.
fn elem_tokens(func: &syn::ItemFn, param: &str, elem: &Elem) -> TokenStream2 {
    match *elem {
        Elem::Scalar(s) => scalar_tokens(s),
        Elem::Vector(s, n) => {
            let ident = format_ident!("{}", amp_spirv::vector_name(s, n));
            quote!(::amp::#ident)
        }
        Elem::Struct(_) => {
            callback::written_elem_type(func, param).expect("struct params name their type")
        }
    }
}

/// The runtime's `ElemType` of a view or array element of host type `host`.
fn elem_type_tokens(elem: &Elem, host: &TokenStream2) -> TokenStream2 {
    use amp_spirv::abi::ElemType;
    match elem.abi() {
        Some(ElemType::Scalar(s)) => {
            let s = abi_scalar_tokens(s);
            quote!(::amp::ElemType::Scalar(#s))
        }
        Some(ElemType::Vector(s, n)) => {
            let s = abi_scalar_tokens(s);
            quote!(::amp::ElemType::Vector(#s, #n))
        }
        // A struct's layout is its host type's, which only the host type knows.
        Some(ElemType::Struct { .. }) | None => quote!(<#host as ::amp::DeviceElement>::ELEM),
    }
}

/// One compiled instance of a kernel: the scalars its type parameters stand for (none for a
/// kernel without type parameters) and its module.
struct Instance {
    bindings: Vec<(syn::Ident, Scalar)>,
    kernel: CompiledKernel,
    /// The native entry function (an item; empty without native code).
    native_item: TokenStream2,
    /// The instance's `NativeCode`.
    native_code: TokenStream2,
}

/// The element type a parameter's written type names when it is one of the kernel's type
/// parameters (`x: ArrayView<T, 1>` or `a: T`): the launcher takes that parameter generically.
fn written_type_param(
    func: &syn::ItemFn,
    param: &str,
    type_params: &[syn::Ident],
) -> Option<TokenStream2> {
    let is_param = |ty: &TokenStream2| {
        let written = ty.to_string();
        type_params.iter().any(|t| t == written.as_str())
    };
    callback::written_elem_type(func, param)
        .or_else(|| callback::written_param_type(func, param))
        .filter(is_param)
}

/// The `# Safety` section of an unchecked kernel's launcher.
const UNCHECKED_SAFETY_DOC: &str = "\n\n# Safety\n\n\
This kernel is compiled with `#[kernel(amp, unchecked)]`: its view and array accesses are not \
bounds-checked. The caller promises that every access of every thread of every launch of the \
returned call lies inside the view or array it indexes (for a view, inside its extent). An \
access outside is undefined behaviour: on the native CPU accelerator it reads or writes host \
memory outside the data, and on a Vulkan device without robust buffer access it reaches \
whatever device memory lies there.";

fn launcher(func: &syn::ItemFn, instances: &[Instance], unchecked: bool) -> TokenStream2 {
    // Instances share their shape (parameters, rank, tile), which the signature fixes.
    let kernel = &instances[0].kernel;
    let type_params: Vec<syn::Ident> = instances[0]
        .bindings
        .iter()
        .map(|(i, _)| i.clone())
        .collect();
    let name = &func.sig.ident;
    let vis = &func.vis;
    let attrs = func.attrs.iter().filter(|a| !amp_spirv::is_kernel_attr(a));
    let rank = Literal::usize_unsuffixed(kernel.rank as usize);

    let mut inputs = Vec::new();
    let mut args = Vec::new();
    for p in &kernel.params {
        let ident = format_ident!("{}", p.name);
        let pname = &p.name;
        let generic = written_type_param(func, pname, &type_params);
        match &p.kind {
            &ParamKind::Buffer {
                ref elem,
                rank,
                writable,
                container,
            } => {
                let t = generic.unwrap_or_else(|| elem_tokens(func, pname, elem));
                let r = Literal::usize_unsuffixed(rank as usize);
                let ty = match (container, writable) {
                    (Container::View, false) => quote!(&'k ::amp::ArrayView<'_, #t, #r>),
                    (Container::View, true) => quote!(&'k mut ::amp::ArrayViewMut<'_, #t, #r>),
                    (Container::Array, false) => quote!(&'k ::amp::Array<#t, #r>),
                    (Container::Array, true) => quote!(&'k mut ::amp::Array<#t, #r>),
                };
                inputs.push(quote!(#ident: #ty));
                args.push(if writable {
                    quote!(::amp::__private::KernelArg::write(#ident))
                } else {
                    quote!(::amp::__private::KernelArg::read(#ident))
                });
            }
            ParamKind::Value(elem) => {
                let t = match elem {
                    Elem::Struct(_) => callback::written_param_type(func, pname)
                        .expect("value params name their type"),
                    _ => elem_tokens(func, pname, elem),
                };
                inputs.push(quote!(#ident: #t));
                args.push(quote!(::amp::__private::KernelArg::value::<#t>(#ident)));
            }
            &ParamKind::Scalar(s) => {
                let t = generic.unwrap_or_else(|| scalar_tokens(s));
                inputs.push(quote!(#ident: #t));
                args.push(quote!(::amp::__private::KernelArg::scalar(#ident)));
            }
            ParamKind::Texture {
                texel,
                rank,
                access,
            } => {
                let t = elem_tokens(func, pname, texel);
                let r = Literal::usize_unsuffixed(*rank as usize);
                match access {
                    TextureAccess::Read => {
                        inputs.push(quote!(#ident: &::amp::TextureView<#t, #r>));
                        args.push(quote!(::amp::__private::KernelArg::texture(#ident)));
                    }
                    TextureAccess::Write => {
                        inputs.push(quote!(#ident: &::amp::WriteonlyTextureView<#t, #r>));
                        args.push(quote!(::amp::__private::KernelArg::writeonly_texture(#ident)));
                    }
                }
            }
            ParamKind::Sampler => {
                inputs.push(quote!(#ident: ::amp::Sampler));
                args.push(quote!(::amp::__private::KernelArg::sampler(#ident)));
            }
        }
    }
    let statics: Vec<TokenStream2> = instances
        .iter()
        .enumerate()
        .map(|(i, inst)| {
            let statics = instance_statics(func, &inst.kernel, i);
            let native = &inst.native_item;
            quote!(#statics #native)
        })
        .collect();
    // The instance is chosen by the type arguments, a constant once monomorphized.
    let choose = {
        let arms = instances.iter().enumerate().map(|(i, inst)| {
            let info = format_ident!("INFO_{i}");
            let bytes = tile_static_bytes(&inst.kernel);
            let native = &inst.native_code;
            let conds = inst.bindings.iter().map(|(t, s)| {
                let ty = scalar_type_tokens(*s);
                quote!(::amp::__private::is_scalar::<#t>(#ty))
            });
            quote!(if true #(&& #conds)* { (&#info, (#bytes) as u32, #native) } else)
        });
        quote!(#(#arms)* { ::core::unreachable!() })
    };
    let generics = func.sig.generics.params.iter();
    let where_clause = &func.sig.generics.where_clause;
    let spec_words = kernel.consts.iter().map(spec_words);
    // Each instance's checks hold only where that instance is the one launched: a condition on
    // the type arguments, constant in the `const` block, so an f64 instance too large for
    // `tile_static` does not refuse the f32 launch beside it.
    let checks: Vec<TokenStream2> = instances
        .iter()
        .flat_map(|i| {
            let conds: Vec<TokenStream2> = i
                .bindings
                .iter()
                .map(|(t, s)| {
                    let ty = scalar_type_tokens(*s);
                    quote!(::amp::__private::is_scalar::<#t>(#ty))
                })
                .collect();
            launch_checks(&i.kernel).into_iter().map(move |c| {
                if conds.is_empty() {
                    c
                } else {
                    quote!(if true #(&& #conds)* { #c })
                }
            })
        })
        .collect();
    // Item-level constants are evaluated by `cargo check` too; a generic kernel's constants are
    // only known per instantiation, so its checks run where the launcher is monomorphized.
    let (item_checks, inline_checks) = if func.sig.generics.params.is_empty() {
        (
            checks
                .iter()
                .map(|c| quote!(#[allow(clippy::eq_op, clippy::identity_op)] const _: () = { #c };))
                .collect::<Vec<_>>(),
            Vec::new(),
        )
    } else {
        (
            Vec::new(),
            checks
                .iter()
                .map(|c| quote!(const { #c };))
                .collect::<Vec<_>>(),
        )
    };
    let warnings = kernel
        .warnings
        .iter()
        .enumerate()
        .map(|(i, w)| warning_tokens(i, w));
    let call = match &kernel.tile {
        None => {
            let ret = quote!(::amp::__private::KernelCall<'k, #rank>);
            let build = if kernel.consts.is_empty() {
                quote!(
                    ::amp::__private::KernelCall::new(info, ::std::vec![#(#args),*])
                        .with_native(native)
                )
            } else {
                quote!(
                    ::amp::__private::KernelCall::new(info, ::std::vec![#(#args),*])
                        .with_spec(spec)
                        .with_native(native)
                )
            };
            (ret, build)
        }
        Some(dims) => {
            let dim = |d: usize| dims.get(d).map_or(quote!(0), tile_dim_tokens);
            let (t0, t1, t2) = (dim(0), dim(1), dim(2));
            (
                quote!(::amp::__private::TiledKernelCall<'k, #t0, #t1, #t2>),
                quote!(::amp::__private::TiledKernelCall::new(
                    info,
                    ::std::vec![#(#args),*],
                    spec,
                    tile_static_bytes
                )
                .with_native(native)),
            )
        }
    };
    let (ret, build) = call;
    // An unchecked kernel's accesses go straight to memory: its launcher is `unsafe`, and the
    // caller promises what the bounds checks would have proven.
    let (unsafety, safety_doc) = if unchecked {
        (quote!(unsafe), quote!(#[doc = #UNCHECKED_SAFETY_DOC]))
    } else {
        (TokenStream2::new(), TokenStream2::new())
    };
    quote! {
        #(#item_checks)*
        #(#attrs)*
        #safety_doc
        #[allow(
            clippy::needless_lifetimes,
            clippy::too_many_arguments,
            clippy::eq_op,
            clippy::identity_op
        )]
        #vis #unsafety fn #name<'k #(, #generics)*>(#(#inputs),*) -> #ret #where_clause {
            #(#statics)*
            #(#inline_checks)*
            #(#warnings)*
            #[allow(unused_variables)]
            let (info, tile_static_bytes, native): (
                &'static ::amp::__private::KernelInfo,
                u32,
                ::amp::__private::NativeCode,
            ) = #choose;
            #[allow(unused_mut, unused_variables)]
            let mut spec: ::std::vec::Vec<u32> = ::std::vec::Vec::new();
            #(#spec_words)*
            #build
        }
    }
}

/// The `SPIRV_<i>` and `INFO_<i>` statics of instance `i` of a kernel.
fn instance_statics(func: &syn::ItemFn, kernel: &CompiledKernel, i: usize) -> TokenStream2 {
    let mut infos = Vec::new();
    for p in &kernel.params {
        let pname = &p.name;
        let offset = p.offset;
        match &p.kind {
            &ParamKind::Buffer {
                ref elem,
                rank,
                writable,
                ..
            } => {
                let binding = p.binding.expect("buffers have bindings");
                let host = elem_tokens(func, pname, elem);
                let elem = elem_type_tokens(elem, &host);
                infos.push(quote! {
                    ::amp::__private::ParamInfo {
                        name: #pname,
                        kind: ::amp::__private::ParamKind::Buffer {
                            binding: #binding, elem: #elem, rank: #rank, writable: #writable, extent_offset: #offset,
                        },
                    }
                });
            }
            ParamKind::Value(elem) => {
                let host = match elem {
                    Elem::Struct(_) => callback::written_param_type(func, pname)
                        .expect("value params name their type"),
                    _ => elem_tokens(func, pname, elem),
                };
                let elem = elem_type_tokens(elem, &host);
                infos.push(quote! {
                    ::amp::__private::ParamInfo {
                        name: #pname,
                        kind: ::amp::__private::ParamKind::Value { elem: #elem, offset: #offset },
                    }
                });
            }
            &ParamKind::Scalar(s) => {
                let ty = scalar_type_tokens(s);
                infos.push(quote! {
                    ::amp::__private::ParamInfo {
                        name: #pname,
                        kind: ::amp::__private::ParamKind::Scalar { ty: #ty, offset: #offset },
                    }
                });
            }
            ParamKind::Texture {
                texel,
                rank,
                access,
            } => {
                let binding = p.binding.expect("textures have bindings");
                let host = elem_tokens(func, pname, texel);
                let texel = elem_type_tokens(texel, &host);
                let access = match access {
                    TextureAccess::Read => quote!(::amp::__private::TextureAccess::Read),
                    TextureAccess::Write => quote!(::amp::__private::TextureAccess::Write),
                };
                infos.push(quote! {
                    ::amp::__private::ParamInfo {
                        name: #pname,
                        kind: ::amp::__private::ParamKind::Texture {
                            binding: #binding, texel: #texel, rank: #rank, access: #access, extent_offset: #offset,
                        },
                    }
                });
            }
            ParamKind::Sampler => {
                let binding = p.binding.expect("samplers have bindings");
                infos.push(quote! {
                    ::amp::__private::ParamInfo {
                        name: #pname,
                        kind: ::amp::__private::ParamKind::Sampler { binding: #binding },
                    }
                });
            }
        }
    }
    let spirv = format_ident!("SPIRV_{i}");
    let info = format_ident!("INFO_{i}");
    let words = &kernel.spirv;
    let len = words.len();
    let kname = &kernel.name;
    let rank_u32 = kernel.rank;
    let push = kernel.push_constant_size;
    let [wx, wy, wz] = kernel.workgroup_size;
    let f64_used = kernel.uses_float64;
    let hash = kernel.hash;
    let entry = kernel.entry_point;
    let tile_rank = kernel.tile.as_ref().map_or(0, |t| t.len() as u32);
    let report_binding = match kernel.report_binding {
        Some(b) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    };
    let spec_types = kernel.consts.iter().map(|c| scalar_type_tokens(c.ty));
    let report = &kernel.report;
    let loop_lines = &kernel.loop_lines;
    let bounds_checked = kernel.bounds_checked;
    quote! {
        static #spirv: [u32; #len] = [#(#words),*];
        static #info: ::amp::__private::KernelInfo = ::amp::__private::KernelInfo {
            name: #kname,
            spirv: &#spirv,
            entry_point: #entry,
            rank: #rank_u32,
            params: &[#(#infos),*],
            push_constant_size: #push,
            workgroup_size: [#wx, #wy, #wz],
            uses_float64: #f64_used,
            hash: #hash,
            tile_rank: #tile_rank,
            spec_constants: &[#(#spec_types),*],
            report: #report,
            report_binding: #report_binding,
            bounds_checked: #bounds_checked,
            loop_lines: &[#(#loop_lines),*],
        };
    }
}

fn tile_dim_tokens(d: &TileDim) -> TokenStream2 {
    match d {
        TileDim::Lit(n) => {
            let n = Literal::usize_unsuffixed(*n as usize);
            quote!(#n)
        }
        TileDim::Named(ident) => quote!(#ident),
    }
}

/// The Rust expression, where the kernel is, that reads outer constant `c` as type `t`: the
/// constant by its path, or a device function's public copy of it (`#[amp::device]`'s
/// `const fn`, by the function's path).
pub(crate) fn outer_const_read(c: &amp_spirv::OuterConst, t: &TokenStream2) -> TokenStream2 {
    let (path, ident) = (&c.path, &c.ident);
    if c.accessor {
        quote_spanned!(ident.span()=> ::amp::__private::outer_const::<#t, _>(#path #ident()))
    } else {
        quote!(#path #ident)
    }
}

/// Pushes an outer constant's value as specialization words. The `let` with the type the
/// kernel uses makes rustc check that the constant has that type, at the constant's name.
fn spec_words(c: &amp_spirv::OuterConst) -> TokenStream2 {
    let ident = &c.ident;
    let t = scalar_tokens(c.ty);
    let read = outer_const_read(c, &t);
    let value = quote_spanned!(ident.span()=> { let value: #t = #read; value });
    let fits = match c.accessor {
        false => quote!((#read as u128) <= u32::MAX as u128),
        true => {
            let path = &c.path;
            quote!(::amp::__private::fits_u32(#path #ident()))
        }
    };
    match c.ty {
        Scalar::Usize => quote! {
            const { ::core::assert!(#fits, "constants used in kernels are 32-bit on the device") };
            spec.push(#value as u32);
        },
        Scalar::I32 => quote!(spec.push(#value as u32);),
        Scalar::U32 => quote!(spec.push(#value);),
        Scalar::Bool => quote!(spec.push(#value as u32);),
        Scalar::F32 => quote!(spec.push(#value.to_bits());),
        // Never an outer constant's type (inference keeps constants off them); the value's
        // bits as an `f32` if one ever is.
        Scalar::Norm | Scalar::Unorm => quote!(spec.push(#value.get().to_bits());),
        Scalar::F64 => quote! {
            let bits = #value.to_bits();
            spec.push(bits as u32);
            spec.push((bits >> 32) as u32);
        },
    }
}

/// Compile-time checks of sizes the compiler could not see: tile shapes and `tile_static`
/// bytes that depend on `const` items or const-generic parameters.
fn launch_checks(kernel: &CompiledKernel) -> Vec<TokenStream2> {
    let mut out = Vec::new();
    let name = &kernel.name;
    if let Some(dims) = &kernel.tile {
        if let Some(TileDim::Named(first)) = dims.iter().find(|d| matches!(d, TileDim::Named(_))) {
            let ts = dims.iter().map(tile_dim_tokens);
            let ts2 = dims.iter().map(tile_dim_tokens);
            let shape = dims
                .iter()
                .map(|d| match d {
                    TileDim::Lit(n) => n.to_string(),
                    TileDim::Named(i) => i.to_string(),
                })
                .collect::<Vec<_>>()
                .join(", ");
            let max = amp_spirv::MAX_TILE_THREADS as usize;
            let zero = format!("kernel `{name}`: a dimension of TiledIndex<{shape}> is 0; tile dimensions must be at least 1");
            let big = format!(
                "kernel `{name}`: TiledIndex<{shape}> has more than {max} threads per tile"
            );
            out.push(quote_spanned! {first.span()=>
                ::core::assert!(#(#ts >= 1)&&*, #zero);
                ::core::assert!(1 #(* #ts2)* <= #max, #big);
            });
        }
    }
    let named = kernel.tile_static.iter().find_map(|v| {
        v.dims.iter().find_map(|d| match d {
            Len::Const(k, _) => Some(kernel.consts[*k as usize].ident.clone()),
            Len::Lit(_) => None,
        })
    });
    if let Some(ident) = named {
        let bytes = tile_static_bytes(kernel);
        let max = amp_spirv::MAX_TILE_STATIC_BYTES as usize;
        let msg = format!(
            "kernel `{name}`: its tile_static variables need more than {max} bytes (32 KiB)"
        );
        out.push(quote_spanned! {ident.span()=> ::core::assert!(#bytes <= #max, #msg); });
    }
    out
}

/// The `tile_static` bytes of a kernel as a Rust `usize` expression.
fn tile_static_bytes(kernel: &CompiledKernel) -> TokenStream2 {
    let terms = kernel.tile_static.iter().map(|v| {
        let bytes = Literal::usize_unsuffixed(v.elem_bytes as usize);
        let dims = v.dims.iter().map(|d| match d {
            Len::Lit(n) => {
                let n = Literal::usize_unsuffixed(*n as usize);
                quote!(#n)
            }
            Len::Const(k, _) => {
                let read = outer_const_read(&kernel.consts[*k as usize], &quote!(usize));
                quote!((#read as usize))
            }
        });
        quote!((#bytes #(* #dims)*))
    });
    quote!(0usize #(+ #terms)*)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic in the compiler (a bug in amp-rs) reaches the user as an internal error at the
    /// kernel's name that asks for a report.
    #[test]
    fn a_panic_in_the_compiler_is_an_internal_error() {
        let func: syn::ItemFn = syn::parse_quote!(
            fn k(idx: Index<1>) {}
        );
        let result: Result<(), _> = guarded(&func, || panic!("a broken invariant"));
        let diags = result.expect_err("the panic is an error");
        let d = diags.iter().next().expect("one diagnostic");
        assert_eq!(d.rule, Rule::InternalError);
        assert!(d.message.contains("`k`"), "{}", d.message);
        assert!(d.message.contains("a broken invariant"), "{}", d.message);
        assert!(d.help.as_deref().is_some_and(|h| h.contains("report")));
    }

    /// The rule of the error `#[kernel(attr)]` gets.
    fn rule_of(attr: TokenStream2) -> Rule {
        match parse_options(attr) {
            Ok(_) => panic!("the attribute was accepted"),
            Err(d) => d.rule,
        }
    }

    /// The attribute errors of the ui cases (`rule_attr_*.rs`) carry the rules their sections
    /// of docs/restrictions.md name; the messages alone cannot tell them apart.
    #[test]
    fn attribute_errors_carry_their_rule() {
        assert_eq!(rule_of(quote!(cuda)), Rule::AttributeIsAmp);
        assert_eq!(rule_of(quote!()), Rule::AttributeIsAmp);
        assert_eq!(
            rule_of(quote!(amp, deny(write_conflict))),
            Rule::AttributeOptions
        );
        assert_eq!(
            rule_of(quote!(amp, allow = "write_conflict")),
            Rule::AttributeOptions
        );
        assert_eq!(
            rule_of(quote!(amp, unchecked, unchecked)),
            Rule::UncheckedOnce
        );
        assert_eq!(
            rule_of(quote!(amp, allow(bank_conflicts))),
            Rule::AllowKnownLint
        );
        assert!(parse_options(quote!(amp, unchecked, allow(write_conflict))).is_ok());
    }
}
