//! The attribute's arguments (`unchecked`, `fast_math`, `allow(..)`, ..) and the build-time
//! flags the macro reads.

use crate::{callback, device_fn};
use amp_spirv::{Diagnostic, Lint, Options, Rule};
use proc_macro2::{Span, TokenStream as TokenStream2};

/// Build-time flag `name` (`amp_abi::settings`' one grammar for flags); an error message
/// naming the variable when its value is not a flag.
pub(crate) fn build_flag(name: &str) -> Result<bool, String> {
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

/// `compile_error!` spanning the diagnostic's whole range: rustc reports an error at a macro
/// invocation from its first token (the path) to its last (the group), which is how a stable
/// proc macro underlines more than one token.
/// `amp`, optionally followed by `unchecked`, `fast_math` and `allow(lint, ...)`, in any order.
pub(crate) fn parse_options(attr: TokenStream2) -> Result<Options, Diagnostic> {
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
