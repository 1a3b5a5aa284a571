//! Generic kernels and device functions: type parameters over closed sets of scalars.
//!
//! A type parameter must be bounded by `DeviceScalar` (i32, u32, f32, f64), `DeviceInt` (i32,
//! u32) or `DeviceFloat` (f32, f64). Because each bound names a closed set, the macro can
//! compile every member at build time: an [`Instance`] is the function with its type parameters
//! replaced by one member each (`T` by `f32`, `T::ZERO` by `f32::ZERO`), checked and compiled
//! like any concrete function. The launcher then picks the instance from the argument types,
//! so no JIT and no second compiler run is needed; a body that is wrong for one member is a
//! compile error that names that member.

use std::collections::HashMap;

use quote::ToTokens;
use syn::visit_mut::VisitMut;

use crate::diag::{Diagnostic, Diagnostics, Rule, Spanned};
use crate::types::Scalar;

/// The most instances one generic function may have (the product of its parameters' sets):
/// each is a module in the user's binary and a round of compilation in their build.
pub const MAX_INSTANCES: usize = 16;

/// The bound of a type parameter: the closed set of scalars it ranges over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarBound {
    /// `DeviceScalar`: i32, u32, f32, f64.
    Scalar,
    /// `DeviceInt`: i32, u32.
    Int,
    /// `DeviceFloat`: f32, f64.
    Float,
}

impl ScalarBound {
    /// The bound's trait name.
    pub fn name(self) -> &'static str {
        match self {
            ScalarBound::Scalar => "DeviceScalar",
            ScalarBound::Int => "DeviceInt",
            ScalarBound::Float => "DeviceFloat",
        }
    }

    /// The scalars the bound admits, in the order instances are made.
    pub fn members(self) -> &'static [Scalar] {
        match self {
            ScalarBound::Scalar => &[Scalar::I32, Scalar::U32, Scalar::F32, Scalar::F64],
            ScalarBound::Int => &[Scalar::I32, Scalar::U32],
            ScalarBound::Float => &[Scalar::F32, Scalar::F64],
        }
    }

    /// The members' names, for messages: `f32, f64`.
    pub fn member_names(self) -> String {
        self.members()
            .iter()
            .map(|s| s.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn from_path(path: &syn::Path) -> Option<ScalarBound> {
        match path.segments.last()?.ident.to_string().as_str() {
            "DeviceScalar" => Some(ScalarBound::Scalar),
            "DeviceInt" => Some(ScalarBound::Int),
            "DeviceFloat" => Some(ScalarBound::Float),
            _ => None,
        }
    }
}

/// A type parameter of a kernel or device function and its bound.
#[derive(Clone, Debug)]
pub struct TypeParam {
    /// Its name (`T`).
    pub ident: proc_macro2::Ident,
    /// The set it ranges over.
    pub bound: ScalarBound,
}

/// A function with its type parameters replaced by scalars.
#[derive(Clone, Debug)]
pub struct Instance {
    /// Each type parameter and the scalar it stands for, in declaration order.
    pub bindings: Vec<(proc_macro2::Ident, Scalar)>,
    /// The function, with no type parameters left.
    pub func: syn::ItemFn,
}

impl Instance {
    /// `T = f32, U = i32`, for messages.
    pub fn label(&self) -> String {
        label(&self.bindings)
    }
}

fn label(bindings: &[(proc_macro2::Ident, Scalar)]) -> String {
    bindings
        .iter()
        .map(|(i, s)| format!("{i} = {}", s.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The type parameters of `generics` with their bounds, or an error for each that is not bound
/// by exactly one of the three scalar traits. Lifetimes and const generics are left to the
/// signature's own checks.
pub fn type_params(generics: &syn::Generics) -> Result<Vec<TypeParam>, Diagnostics> {
    let (params, diags) = type_params_recovering(generics);
    if diags.is_empty() {
        Ok(params)
    } else {
        Err(diags)
    }
}

/// The type parameters of `generics` with their bounds, and the errors of those that are not
/// bound by exactly one of the three scalar traits. A parameter with an error still gets a
/// bound (its scalar bound if it has one, else `DeviceScalar`), so that the rest of the
/// function can be checked without a cascade of errors at every use of the parameter.
fn type_params_recovering(generics: &syn::Generics) -> (Vec<TypeParam>, Diagnostics) {
    let mut diags = Diagnostics::default();
    let mut bounds: Vec<(proc_macro2::Ident, Vec<&syn::TypeParamBound>)> = Vec::new();
    for p in &generics.params {
        if let syn::GenericParam::Type(t) = p {
            if let Some(default) = &t.default {
                diags.push(
                    Diagnostic::error(
                        Rule::Generics,
                        default.span(),
                        format!("type parameter `{}` cannot have a default", t.ident),
                    )
                    .with_help("the type is taken from the arguments: remove the default"),
                );
            }
            bounds.push((t.ident.clone(), t.bounds.iter().collect()));
        }
    }
    if let Some(w) = &generics.where_clause {
        for pred in &w.predicates {
            let target = match pred {
                syn::WherePredicate::Type(pt) => match &pt.bounded_ty {
                    syn::Type::Path(tp) if tp.qself.is_none() => tp
                        .path
                        .get_ident()
                        .and_then(|i| bounds.iter_mut().find(|(b, _)| b == i))
                        .map(|(_, list)| (list, &pt.bounds)),
                    _ => None,
                },
                _ => None,
            };
            match target {
                Some((list, extra)) => list.extend(extra.iter()),
                None => diags.push(
                    Diagnostic::error(
                        Rule::Generics,
                        pred.span(),
                        "`where` clauses may only bound the function's type parameters",
                    )
                    .with_help("write `where T: DeviceFloat` (or `DeviceScalar`, `DeviceInt`)"),
                ),
            }
        }
    }
    let mut out = Vec::new();
    for (ident, list) in bounds {
        let scalar_bounds: Vec<ScalarBound> = list
            .iter()
            .filter_map(|b| match b {
                syn::TypeParamBound::Trait(t)
                    if matches!(t.modifier, syn::TraitBoundModifier::None) =>
                {
                    ScalarBound::from_path(&t.path)
                }
                _ => None,
            })
            .collect();
        let others: Vec<_> = list
            .iter()
            .filter(|b| match b {
                syn::TypeParamBound::Trait(t) => ScalarBound::from_path(&t.path).is_none(),
                _ => true,
            })
            .collect();
        let recovered = scalar_bounds
            .first()
            .copied()
            .unwrap_or(ScalarBound::Scalar);
        if let Some(other) = others.first() {
            let written: Vec<String> = others
                .iter()
                .map(|b| {
                    b.to_token_stream()
                        .to_string()
                        .replace(" :: ", "::")
                        .replace(" < ", "<")
                        .replace(" >", ">")
                })
                .collect();
            let gives = "it already gives copies, arithmetic, comparisons, `as` casts and \
                         `T::ZERO` / `T::ONE`";
            let help = match scalar_bounds.first() {
                Some(b) => format!(
                    "remove `{}`: `{ident}: {}` is the only bound a kernel's type parameter \
                     takes; {gives}",
                    written.join(" + "),
                    b.name()
                ),
                None => format!(
                    "write `{ident}: DeviceScalar` (i32, u32, f32, f64), `{ident}: DeviceFloat` \
                     (f32, f64) or `{ident}: DeviceInt` (i32, u32) instead of `{}`; {gives}",
                    written.join(" + ")
                ),
            };
            diags.push(
                Diagnostic::error(
                    Rule::Generics,
                    other.span(),
                    format!("`{ident}` may only be bounded by `DeviceScalar`, `DeviceInt` or `DeviceFloat`"),
                )
                .with_help(help),
            );
            out.push(TypeParam {
                ident,
                bound: recovered,
            });
            continue;
        }
        match scalar_bounds[..] {
            [bound] => out.push(TypeParam { ident, bound }),
            [] => {
                diags.push(
                    Diagnostic::error(
                        Rule::Generics,
                        ident.span(),
                        format!("type parameter `{ident}` needs a bound: `DeviceScalar`, `DeviceInt` or `DeviceFloat`"),
                    )
                    .with_help(format!("write `{ident}: DeviceScalar` (i32, u32, f32, f64), `{ident}: DeviceInt` (i32, u32) or `{ident}: DeviceFloat` (f32, f64)")),
                );
                out.push(TypeParam {
                    ident,
                    bound: recovered,
                });
            }
            _ => {
                diags.push(
                    Diagnostic::error(
                        Rule::Generics,
                        ident.span(),
                        format!("type parameter `{ident}` has more than one scalar bound"),
                    )
                    .with_help(
                        "keep the narrowest one: `DeviceInt` or `DeviceFloat` imply `DeviceScalar`",
                    ),
                );
                out.push(TypeParam {
                    ident,
                    bound: recovered,
                });
            }
        }
    }
    (out, diags)
}

/// For checking the rest of a function whose type parameters have errors: `func` with each
/// type parameter replaced by the first member of its (recovered) bound, so that its body and
/// signature are checked as one instance would be, without errors at every use of the
/// parameter. `None` when it has no type parameters.
pub fn recovered_instance(func: &syn::ItemFn) -> Option<syn::ItemFn> {
    let (params, _) = type_params_recovering(&func.sig.generics);
    if params.is_empty() {
        return None;
    }
    let bindings: Vec<(proc_macro2::Ident, Scalar)> = params
        .iter()
        .map(|p| (p.ident.clone(), p.bound.members()[0]))
        .collect();
    Some(substitute(func, &bindings))
}

/// Every instance of `func`: one per combination of its type parameters' members (the
/// function itself when it has none). Lifetime parameters are refused here, since nothing in a
/// kernel can borrow.
pub fn instantiate(func: &syn::ItemFn) -> Result<Vec<Instance>, Diagnostics> {
    let mut diags = Diagnostics::default();
    for p in &func.sig.generics.params {
        if let syn::GenericParam::Lifetime(l) = p {
            diags.push(
                Diagnostic::error(
                    Rule::Generics,
                    l.span(),
                    "lifetime parameters are not supported on kernels and device functions",
                )
                .with_help("remove the lifetime: views are passed without one"),
            );
        }
    }
    let params = match type_params(&func.sig.generics) {
        Ok(p) => p,
        Err(d) => {
            for d in d {
                diags.push(d);
            }
            return Err(diags);
        }
    };
    if !diags.is_empty() {
        return Err(diags);
    }
    let count: usize = params.iter().map(|p| p.bound.members().len()).product();
    if count > MAX_INSTANCES {
        diags.push(
            Diagnostic::error(
                Rule::Generics,
                func.sig.generics.span(),
                format!("these type parameters make {count} instances, more than the {MAX_INSTANCES} one function may have"),
            )
            .with_help("use narrower bounds (`DeviceInt`, `DeviceFloat`) or fewer type parameters"),
        );
        return Err(diags);
    }
    let mut combos: Vec<Vec<(proc_macro2::Ident, Scalar)>> = vec![Vec::new()];
    for p in &params {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                p.bound.members().iter().map(move |&s| {
                    let mut c = c.clone();
                    c.push((p.ident.clone(), s));
                    c
                })
            })
            .collect();
    }
    Ok(combos
        .into_iter()
        .map(|bindings| Instance {
            func: substitute(func, &bindings),
            bindings,
        })
        .collect())
}

/// `func` with each bound type parameter replaced by its scalar, everywhere: in types, in
/// paths (`T::ZERO`, `T::max(a, b)`), in turbofishes and casts. The parameters and their
/// `where` predicates are removed; the scalar's tokens carry the parameter's span at each use.
pub fn substitute(func: &syn::ItemFn, bindings: &[(proc_macro2::Ident, Scalar)]) -> syn::ItemFn {
    let map: HashMap<String, Scalar> = bindings.iter().map(|(i, s)| (i.to_string(), *s)).collect();
    let mut func = func.clone();
    let generics = &mut func.sig.generics;
    generics.params = std::mem::take(&mut generics.params)
        .into_pairs()
        .filter(|p| !matches!(p.value(), syn::GenericParam::Type(t) if map.contains_key(&t.ident.to_string())))
        .collect();
    if let Some(w) = &mut generics.where_clause {
        w.predicates = std::mem::take(&mut w.predicates)
            .into_pairs()
            .filter(|p| match p.value() {
                syn::WherePredicate::Type(pt) => !matches!(&pt.bounded_ty,
                    syn::Type::Path(tp) if tp.path.get_ident().is_some_and(|i| map.contains_key(&i.to_string()))),
                _ => true,
            })
            .collect();
        if w.predicates.is_empty() {
            generics.where_clause = None;
        }
    }
    if generics.params.is_empty() {
        generics.lt_token = None;
        generics.gt_token = None;
    }
    let mut replace = Replace(&map);
    replace.visit_signature_mut(&mut func.sig);
    replace.visit_block_mut(&mut func.block);
    if !bindings.is_empty() {
        func.attrs.push(syn::parse_quote!(#[amp_generic_instance]));
    }
    func
}

/// Whether `func` is an instance made by [`substitute`]: its body is checked with what the
/// scalar traits promise every member (`x.abs()` of a `u32` is `x`, as `DeviceScalar::abs`).
pub fn is_instance(func: &syn::ItemFn) -> bool {
    func.attrs
        .iter()
        .any(|a| a.path().is_ident("amp_generic_instance"))
}

struct Replace<'a>(&'a HashMap<String, Scalar>);

impl VisitMut for Replace<'_> {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if path.leading_colon.is_none() {
            if let Some(first) = path.segments.first_mut() {
                if first.arguments.is_empty() {
                    if let Some(s) = self.0.get(&first.ident.to_string()) {
                        first.ident = proc_macro2::Ident::new(s.name(), first.ident.span());
                    }
                }
            }
        }
        syn::visit_mut::visit_path_mut(self, path);
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        // Macro arguments are tokens, not syntax: rename the parameter's identifiers there too,
        // so `assert!(x > T::ZERO)` and the like see the scalar.
        mac.tokens = replace_tokens(std::mem::take(&mut mac.tokens), self.0);
    }
}

fn replace_tokens(
    tokens: proc_macro2::TokenStream,
    map: &HashMap<String, Scalar>,
) -> proc_macro2::TokenStream {
    use proc_macro2::TokenTree;
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Ident(i) => match map.get(&i.to_string()) {
                Some(s) => TokenTree::Ident(proc_macro2::Ident::new(s.name(), i.span())),
                None => TokenTree::Ident(i),
            },
            TokenTree::Group(g) => {
                let mut new =
                    proc_macro2::Group::new(g.delimiter(), replace_tokens(g.stream(), map));
                new.set_span(g.span());
                TokenTree::Group(new)
            }
            other => other,
        })
        .collect()
}

/// The errors of a function's instances, as one list: an error every instance has is reported
/// once, as it is; one that only some instances have says which (`when T = f64`), so a body
/// that is wrong for one member names that member.
pub fn merge_instance_errors(results: Vec<(String, Diagnostics)>) -> Diagnostics {
    let total = results.len();
    let mut seen: Vec<(String, Diagnostic, Vec<String>)> = Vec::new();
    for (label, diags) in results {
        for d in diags {
            let key = format!(
                "{:?}{:?}{:?}{}",
                d.rule, d.span.start, d.span.end, d.message
            );
            match seen.iter_mut().find(|(k, _, _)| *k == key) {
                Some((_, _, labels)) => labels.push(label.clone()),
                None => seen.push((key, d, vec![label.clone()])),
            }
        }
    }
    let mut out = Diagnostics::default();
    for (_, mut d, labels) in seen {
        if labels.len() < total {
            d.message = format!("{} (when {})", d.message, labels.join("; "));
        }
        out.push(d);
    }
    out
}

/// The bindings a call's turbofish gives (`square::<f32>(x)`), or `None` when it has none.
pub fn turbofish(
    path: &syn::Path,
    params: &[TypeParam],
) -> Option<Result<Vec<(proc_macro2::Ident, Scalar)>, Diagnostic>> {
    let syn::PathArguments::AngleBracketed(args) = &path.segments.last()?.arguments else {
        return None;
    };
    let types: Vec<&syn::Type> = args
        .args
        .iter()
        .filter_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect();
    if types.len() != params.len() {
        return Some(Err(Diagnostic::error(
            Rule::DeviceFnCalls,
            args.span(),
            format!(
                "this function takes {} type argument{}, {} given",
                params.len(),
                if params.len() == 1 { "" } else { "s" },
                types.len()
            ),
        )));
    }
    let mut out = Vec::new();
    for (t, p) in types.into_iter().zip(params) {
        let scalar = match t {
            syn::Type::Path(tp) if tp.qself.is_none() => tp
                .path
                .get_ident()
                .and_then(|i| Scalar::from_name(&i.to_string())),
            _ => None,
        };
        match scalar {
            Some(s) if p.bound.members().contains(&s) => out.push((p.ident.clone(), s)),
            _ => {
                return Some(Err(Diagnostic::error(
                    Rule::DeviceFnCalls,
                    t.span(),
                    format!(
                        "`{}` is not a `{}`",
                        quote::ToTokens::to_token_stream(t),
                        p.bound.name()
                    ),
                )
                .with_help(format!(
                    "`{}` is one of: {}",
                    p.bound.name(),
                    p.bound.member_names()
                ))))
            }
        }
    }
    Some(Ok(out))
}
