//! Device functions and structs brought into scope with `use`: the kernel and device attributes
//! name them by the path their `use` gives before anything else (see
//! [`amp_spirv::resolve_imports`]), in the first round of expansion, where the attribute's call
//! site is the user's file. Later rounds (re-invoked by callbacks, whose call site may be another
//! file) get the rewritten function, and the names that were rewritten in a hidden
//! `__imports(..)` argument: the final round marks them as used (`use name as _;`), as the
//! function no longer names them and the user's `use` would otherwise be reported unused.

use proc_macro2::{Delimiter, Group, Punct, Spacing, TokenStream as TokenStream2, TokenTree};
use quote::{quote, quote_spanned};

/// The attribute argument that carries the rewritten names to later rounds.
const IMPORTS_ARG: &str = "__imports";

/// `attr` without its `__imports(..)` argument (and the comma before it), and the names in it.
pub fn take_arg(attr: TokenStream2) -> (TokenStream2, Vec<syn::Ident>) {
    let mut out: Vec<TokenTree> = Vec::new();
    let mut names = Vec::new();
    let mut tokens = attr.into_iter().peekable();
    while let Some(t) = tokens.next() {
        if let TokenTree::Ident(i) = &t {
            if i == IMPORTS_ARG {
                if let Some(TokenTree::Group(g)) = tokens.peek() {
                    names.extend(g.stream().into_iter().filter_map(|t| match t {
                        TokenTree::Ident(i) => Some(i),
                        _ => None,
                    }));
                    tokens.next();
                    if matches!(out.last(), Some(TokenTree::Punct(p)) if p.as_char() == ',') {
                        out.pop();
                    }
                    continue;
                }
            }
        }
        out.push(t);
    }
    (out.into_iter().collect(), names)
}

/// `attr` with an `__imports(..)` argument naming `names` (none when `names` is empty).
pub fn with_arg(attr: TokenStream2, names: &[syn::Ident]) -> TokenStream2 {
    if names.is_empty() {
        return attr;
    }
    let mut out = attr;
    if !out.is_empty() {
        out.extend([TokenTree::Punct(Punct::new(',', Spacing::Alone))]);
    }
    let ident = proc_macro2::Ident::new(IMPORTS_ARG, proc_macro2::Span::call_site());
    let group = Group::new(Delimiter::Parenthesis, quote!(#(#names)*));
    out.extend([TokenTree::Ident(ident), TokenTree::Group(group)]);
    out
}

/// Whether `attr` has an argument `name` (as a word followed by its parenthesised list): the
/// callbacks' `__device(..)` and `__device_structs(..)` mark later rounds.
pub fn has_arg(attr: &TokenStream2, name: &str) -> bool {
    let tokens: Vec<TokenTree> = attr.clone().into_iter().collect();
    tokens
        .windows(2)
        .any(|w| matches!((&w[0], &w[1]), (TokenTree::Ident(i), TokenTree::Group(_)) if i == name))
}

/// `use name as _;` for each name, so that the user's `use` of it counts as used.
pub fn markers(names: &[syn::Ident]) -> TokenStream2 {
    names
        .iter()
        .map(|n| {
            quote_spanned! {n.span()=>
                #[allow(unused_imports)]
                use #n as _;
            }
        })
        .collect()
}
