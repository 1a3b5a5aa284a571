//! `#[amp::device]`: device functions, and how a kernel fetches their source.
//!
//! An attribute macro sees only the item it is on, so a kernel cannot read the functions it
//! calls. Each device function therefore leaves, next to itself, a `macro_rules!` "callback"
//! named `__amp_device_<name>` that carries its source. When a kernel calls a function it has
//! no source for, the kernel attribute expands to an invocation of that callback (found by the
//! same path as the function), which re-invokes the kernel attribute with the function's source
//! added as a hidden `__device([path] fn ..)` argument; one round per function, transitively.
//! When every callee's source is there, the kernel compiles with the calls inlined.

use amp_spirv::{DeviceFnSource, Diagnostic, Rule};
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote};

/// The most device functions one kernel may use (each costs a round of macro expansion).
const MAX_DEVICE_FNS: usize = 48;

/// The expansion of `#[amp::device]` / `#[amp::device(amp)]` on `item`.
pub fn device(attr: TokenStream2, item: TokenStream2) -> TokenStream2 {
    let (attr, mut imported) = crate::imports::take_arg(attr);
    let mut func = match syn::parse2::<syn::ItemFn>(item) {
        Ok(f) => f,
        Err(e) => {
            let msg = format!("#[amp::device] applies to free functions: {e}");
            return syn::Error::new(e.span(), msg).to_compile_error();
        }
    };
    // What it imports with `use`, named by path (in the first round: later ones carry struct
    // definitions), so that its source works where kernels inline it.
    if !crate::imports::has_arg(&attr, crate::callback::DEFINITIONS_ARG) {
        imported.extend(crate::source_file::resolve_imports(&mut func));
    }
    let mut out = crate::imports::markers(&imported);
    let original_attr = crate::imports::with_arg(attr.clone(), &imported);
    let (attr, structs) = match split_definitions(attr) {
        Ok(split) => split,
        Err(e) => return e.to_compile_error(),
    };
    // Structs it names are checked with their layouts: fetch their definitions first.
    if let Some(path) = crate::callback::missing_device_fn_struct(&func, &structs) {
        let mut original = func.clone();
        original.attrs.retain(|a| !is_device_attr(a));
        return crate::callback::request_device_definition(&path, original_attr, &original);
    }
    let host = match host_too(attr) {
        Ok(host) => host,
        Err(d) => {
            out.extend(crate::diagnostics::error_tokens(&d));
            true
        }
    };
    let mut consts = Vec::new();
    let checked = crate::guarded(&func, || {
        amp_spirv::check_device_fn_with(&func, &structs)?;
        Ok(amp_spirv::device_fn_consts_with(&func, &structs))
    });
    match checked {
        Err(diags) => {
            for d in diags.iter() {
                out.extend(crate::diagnostics::error_tokens(d));
            }
        }
        Ok(found) => consts = found,
    }
    out.extend(const_accessors(&func, &consts));
    if host && !device_only_params(&func) {
        // Kernels' calls are inlined, so rustc never sees them: unused on the host is normal.
        // The kernel language has `%` but not `is_multiple_of`, which clippy would suggest.
        out.extend(quote!(#[allow(dead_code, clippy::manual_is_multiple_of)] #func));
    }
    out.extend(callback_macro(&func, &consts));
    out
}

/// A public copy, next to the function, of each constant its body reads: a `const fn`
/// returning it as an opaque scalar (its type is the constant's, which only rustc knows).
/// Kernels in other modules and crates read the constant through it, by the function's path,
/// so the name resolves here, where the function is written (as in Rust), private constants
/// and `super::` / `crate::` paths included.
fn const_accessors(func: &syn::ItemFn, consts: &[String]) -> TokenStream2 {
    let fn_name = func.sig.ident.to_string();
    let mut out = TokenStream2::new();
    for path in consts {
        let segments: Vec<String> = path.split("::").map(str::to_owned).collect();
        let Ok(value) = syn::parse_str::<syn::Path>(path) else {
            continue;
        };
        let name = format_ident!("{}", amp_spirv::const_accessor_name(&fn_name, &segments));
        out.extend(quote! {
            #[doc(hidden)]
            #[allow(non_snake_case, dead_code)]
            #[inline(always)]
            pub const fn #name() -> impl ::amp::__private::OuterConstValue {
                #value
            }
        });
    }
    out
}

/// `tokens` with each path that starts at `crate::` starting at `$crate::` instead, for a
/// `macro_rules!` body: the library's own paths then resolve in the library, from whichever
/// crate's kernel the source is inlined into.
fn crate_paths_to_dollar_crate(tokens: TokenStream2) -> TokenStream2 {
    use proc_macro2::{Group, Punct, Spacing, TokenTree};
    let mut out = Vec::new();
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), crate_paths_to_dollar_crate(g.stream()));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            TokenTree::Ident(id) if id == "crate" => {
                let path_start =
                    i == 0 || !matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == ':');
                let followed =
                    matches!(tokens.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                if path_start && followed {
                    out.push(TokenTree::Punct(Punct::new('$', Spacing::Alone)));
                }
                out.push(t.clone());
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}

/// Whether `func` takes a parameter the host has no element access to: a texture view or a
/// sampler (the host's texture views have no texel access), an `&Array` or `&mut Array` (an
/// array's elements live on its accelerator) or an `ArrayViewMut` (host code writes through
/// slices, not the view). Such a function exists in kernels only, as if marked
/// `#[amp::device(amp)]`: a host copy would not compile, with an error far from the cause.
fn device_only_params(func: &syn::ItemFn) -> bool {
    func.sig.inputs.iter().any(|input| {
        let syn::FnArg::Typed(pt) = input else {
            return false;
        };
        let ty = match &*pt.ty {
            syn::Type::Reference(r) => &*r.elem,
            other => other,
        };
        matches!(ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| {
            matches!(
                s.ident.to_string().as_str(),
                "TextureView" | "WriteonlyTextureView" | "Sampler" | "Array" | "ArrayViewMut"
            )
        }))
    })
}

/// Whether `attr` is an `#[amp::device]` attribute (none is left on the item, but be sure).
fn is_device_attr(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "device")
}

/// The attribute's own words, and the struct definitions earlier rounds appended as
/// `__device_structs(..)` arguments (each after a comma, which may then lead).
fn split_definitions(attr: TokenStream2) -> syn::Result<(TokenStream2, Vec<syn::ItemStruct>)> {
    let mut words = TokenStream2::new();
    let mut structs = Vec::new();
    let mut tokens = attr.into_iter().peekable();
    while let Some(t) = tokens.next() {
        if let proc_macro2::TokenTree::Ident(i) = &t {
            if i == crate::callback::DEFINITIONS_ARG {
                if let Some(proc_macro2::TokenTree::Group(g)) = tokens.next() {
                    structs.extend(crate::callback::parse_definitions(g.stream())?);
                }
                continue;
            }
        }
        words.extend(std::iter::once(t));
    }
    Ok((words, structs))
}

/// `#[amp::device]` (or `#[amp::device(cpu, amp)]`) keeps the function for the host too;
/// `#[amp::device(amp)]` makes it a device-only function, like C++ AMP's `restrict(amp)`.
fn host_too(attr: TokenStream2) -> Result<bool, Diagnostic> {
    let words: Vec<String> = attr
        .clone()
        .into_iter()
        .filter(|t| !matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == ','))
        .map(|t| t.to_string())
        .collect();
    match words.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] | ["cpu", "amp"] | ["amp", "cpu"] => Ok(true),
        ["amp"] => Ok(false),
        _ => {
            let span = attr
                .into_iter()
                .next()
                .map_or_else(Span::call_site, |t| t.span());
            Err(Diagnostic::error(Rule::DeviceFnMarked, span, "expected `#[amp::device]`, `#[amp::device(cpu, amp)]` or `#[amp::device(amp)]`")
                .with_help("`#[amp::device]` functions run on the host and in kernels; `#[amp::device(amp)]` ones only in kernels"))
        }
    }
}

/// The `__amp_device_<name>!` callback: given a path, the kernel attribute's arguments and the
/// kernel, it re-invokes the attribute with this function's source added. It sits next to the
/// function, so the function's path reaches it, from dependent crates too (see
/// [`crate::callback::callback_export`]).
fn callback_macro(func: &syn::ItemFn, consts: &[String]) -> TokenStream2 {
    let name = format_ident!("__amp_device_{}", func.sig.ident);
    let mut source = func.clone();
    source.attrs.retain(|a| !a.path().is_ident("doc"));
    source.vis = syn::Visibility::Inherited;
    // The constants read through their public copies (see `const_accessors`).
    let attr = format_ident!("{}", amp_spirv::CONSTS_ATTR);
    let names = consts.iter();
    source.attrs.push(syn::parse_quote!(#[#attr(#(#names),*)]));
    let source = crate_paths_to_dollar_crate(quote!(#source));
    let rules = quote! {
        ([$($path:tt)*] [$($attr:tt)*] $($kernel:tt)*) => {
            #[::amp::kernel($($attr)*, __device([$($path)*] #source))]
            $($kernel)*
        };
    };
    crate::callback::callback_export(&name, func, rules)
}

/// Parses a `__device([path] fn ..)` argument of the kernel attribute.
pub fn parse_device_arg(list: &syn::MetaList) -> syn::Result<DeviceFnSource> {
    list.parse_args_with(|input: syn::parse::ParseStream| {
        let content;
        syn::bracketed!(content in input);
        let mut path = Vec::new();
        let mut crate_root = None;
        while !content.is_empty() {
            // Each segment is a string, but for a library's `$crate`, which is its own token.
            match content.parse::<proc_macro2::TokenTree>()? {
                proc_macro2::TokenTree::Literal(lit) => {
                    let lit: syn::LitStr = syn::parse2(quote!(#lit))?;
                    path.push(lit.value());
                }
                proc_macro2::TokenTree::Ident(root) => {
                    path.push(root.to_string());
                    crate_root = Some(root);
                }
                other => return Err(syn::Error::new(other.span(), "expected a path segment")),
            }
        }
        let func: syn::ItemFn = input.parse()?;
        Ok(DeviceFnSource {
            path,
            func,
            crate_root,
        })
    })
}

/// When the kernel calls a device function whose source it does not have yet: the invocation
/// of that function's callback, which brings the source back in a new round.
pub fn fetch_missing(
    attr: &TokenStream2,
    func: &syn::ItemFn,
    known: &[DeviceFnSource],
) -> Option<TokenStream2> {
    let missing = amp_spirv::missing_device_fns_with_roots(func, known);
    if missing.is_empty() {
        return None;
    }
    let callee = missing
        .first()
        .and_then(|(_, call, _)| call.segments.last())
        .map(|s| s.ident.span());
    let unmarked = crate::source_file::unmarked_fns(func, callee);
    let (key, call, crate_root) = missing
        .into_iter()
        .find(|(key, _, _)| !unmarked.as_ref().is_some_and(|u| u.contains(key)))?;
    let at = call
        .segments
        .last()
        .map_or_else(Span::call_site, |s| s.ident.span());
    if known.len() >= MAX_DEVICE_FNS {
        let d = Diagnostic::error(
            Rule::DeviceFnCalls,
            at,
            format!("this kernel calls more than {MAX_DEVICE_FNS} device functions"),
        )
        .with_help("split the work into several kernels");
        return Some(crate::diagnostics::error_tokens(&d));
    }
    // Resolved where the kernel is, reported at the call; a library's `$crate` is the token
    // its source came with.
    let span = Span::call_site().located_at(at);
    let (last, prefix) = key.split_last().expect("a call path has a name");
    let mut path = TokenStream2::new();
    for (i, seg) in prefix.iter().enumerate() {
        if seg.is_empty() {
            path.extend(quote::quote_spanned!(span=> ::));
            continue;
        }
        let ident = match (seg.as_str(), &crate_root) {
            ("$crate", Some(root)) => root.clone(),
            _ => proc_macro2::Ident::new(seg, span),
        };
        if i > 0 && !prefix[i - 1].is_empty() {
            path.extend(quote::quote_spanned!(span=> ::));
        }
        path.extend(quote!(#ident));
    }
    if prefix.last().is_some_and(|s| !s.is_empty()) {
        path.extend(quote::quote_spanned!(span=> ::));
    }
    let mac = proc_macro2::Ident::new(&format!("__amp_device_{last}"), span);
    let bang = quote::quote_spanned!(span=> !);
    let segments = key.iter().map(|seg| match (seg.as_str(), &crate_root) {
        ("$crate", Some(root)) => quote!(#root),
        _ => quote!(#seg),
    });
    Some(quote! {
        #path #mac #bang { [#(#segments)*] [#attr] #func }
    })
}
