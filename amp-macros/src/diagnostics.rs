//! A kernel's diagnostics as tokens: its errors as `compile_error!`s at the offending tokens,
//! its warnings as uses of deprecated items, which is how a stable proc macro warns.

use amp_spirv::{Diagnostic, Warning};
use proc_macro2::{Delimiter, Group, TokenStream as TokenStream2};
use quote::{format_ident, quote, quote_spanned};

/// A warning on stable Rust: the use of a deprecated constant, spanned at the finding; rustc
/// prints the deprecation note, which carries the message, the fix, and how to silence it.
pub(crate) fn warning_tokens(index: usize, w: &Warning) -> TokenStream2 {
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
pub(crate) fn error_tokens(d: &Diagnostic) -> TokenStream2 {
    let msg = d.to_string();
    let mut body = Group::new(Delimiter::Brace, quote!(#msg));
    body.set_span(d.span.end);
    let path = quote_spanned!(d.span.start=> ::core::compile_error!);
    quote!(#path #body)
}
