//! Calls of generic device functions: which instance a call uses, from a turbofish
//! (`square::<f32>(x)`) or, as rustc infers it, from the types of the arguments.

use super::*;
use crate::front::generic::{turbofish, type_params, TypeParam};

/// Whether `func` has type parameters (it then has instances; see `front::generic`).
pub(super) fn is_generic(func: &syn::ItemFn) -> bool {
    func.sig
        .generics
        .params
        .iter()
        .any(|p| matches!(p, syn::GenericParam::Type(_)))
}

/// The type parameter a parameter's type is (`x: T`), if it is one.
fn value_param(ty: &syn::Type, params: &[TypeParam]) -> Option<usize> {
    let syn::Type::Path(tp) = ty else { return None };
    let ident = tp.path.get_ident()?;
    params.iter().position(|p| p.ident == *ident)
}

/// The type parameter a view or array parameter's element type is (`v: ArrayView<T, 1>`,
/// `a: &Array<T, 1>`), if it is one.
fn buffer_param(ty: &syn::Type, params: &[TypeParam]) -> Option<usize> {
    let ty = match ty {
        syn::Type::Reference(r) => &*r.elem,
        other => other,
    };
    let syn::Type::Path(tp) = ty else { return None };
    let last = tp.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(t) => value_param(t, params),
        _ => None,
    })
}

impl BodyChecker<'_> {
    /// The scalar each of `func`'s type parameters stands for at call `c`, or `None` after
    /// reporting why there is none. Arguments evaluated to learn their types are left in
    /// `evaluated`, so that they are checked once.
    pub(super) fn generic_bindings(
        &mut self,
        c: &syn::ExprCall,
        path: &syn::Path,
        func: &syn::ItemFn,
        evaluated: &mut [Option<Expr>],
    ) -> Option<Vec<(proc_macro2::Ident, Scalar)>> {
        let params = type_params(&func.sig.generics).ok()?;
        if let Some(given) = turbofish(path, &params) {
            return match given {
                Ok(b) => Some(b),
                Err(d) => {
                    self.err(d);
                    None
                }
            };
        }
        let name = func.sig.ident.to_string();
        // Settled types bind first; an unsuffixed literal only binds what nothing else does,
        // with Rust's fallback (`{integer}` is i32, `{float}` f64).
        let mut bound: Vec<Option<(Scalar, Span)>> = vec![None; params.len()];
        let mut literal: Vec<Option<(Ty, Span)>> = vec![None; params.len()];
        for (i, (arg, input)) in c.args.iter().zip(&func.sig.inputs).enumerate() {
            let syn::FnArg::Typed(pt) = input else {
                continue;
            };
            if let Some(k) = value_param(&pt.ty, &params) {
                let value = self.expr(arg);
                match self.infer.shallow(&value.ty) {
                    Ty::Scalar(s) => {
                        bound[k].get_or_insert((s, arg.span()));
                    }
                    Ty::Var(_) => {
                        literal[k].get_or_insert((value.ty.clone(), arg.span()));
                    }
                    _ => {}
                }
                evaluated[i] = Some(value);
            } else if let Some(k) = buffer_param(&pt.ty, &params) {
                let inner = match strip(arg) {
                    syn::Expr::Reference(r) => &*r.expr,
                    other => other,
                };
                if let Some(id) = self.is_buffer(inner) {
                    if let (Elem::Scalar(s), _, _) = self.buffer_info(id) {
                        bound[k].get_or_insert((s, arg.span()));
                    }
                }
            }
        }
        let mut out = Vec::new();
        let mut ok = true;
        for (k, p) in params.iter().enumerate() {
            let found = bound[k].or_else(|| {
                let (ty, span) = literal[k].clone()?;
                match self.infer.finish(&ty) {
                    Ty::Scalar(s) => Some((s, span)),
                    _ => None,
                }
            });
            match found {
                Some((s, _)) if p.bound.members().contains(&s) => out.push((p.ident.clone(), s)),
                Some((s, span)) => {
                    ok = false;
                    self.err(
                        Diagnostic::error(
                            Rule::DeviceFnCalls,
                            span,
                            format!(
                                "`{name}` needs `{}: {}`, but this argument makes it `{}`",
                                p.ident,
                                p.bound.name(),
                                s.name()
                            ),
                        )
                        .with_help(format!(
                            "`{}` is one of: {}",
                            p.bound.name(),
                            p.bound.member_names()
                        )),
                    );
                }
                None => {
                    ok = false;
                    self.err(
                        Diagnostic::error(
                            Rule::DeviceFnCalls,
                            c.func.span(),
                            format!("cannot infer `{}` for this call of `{name}`", p.ident),
                        )
                        .with_help(format!(
                            "name it: `{name}::<{}>(..)` (`{}` is one of: {})",
                            p.bound.members()[0].name(),
                            p.bound.name(),
                            p.bound.member_names()
                        )),
                    );
                }
            }
        }
        ok.then_some(out)
    }
}
