//! The typed launcher that replaces a kernel: the function users call, which returns the
//! call `parallel_for_each` launches.

use crate::callback;
use crate::diagnostics::warning_tokens;
use crate::expand::{written_type_param, Instance};
use crate::statics::{
    instance_statics, launch_checks, spec_words, tile_dim_tokens, tile_static_bytes,
};
use crate::tokens::{elem_tokens, scalar_tokens, scalar_type_tokens};
use amp_spirv::{Container, Elem, ParamKind, TextureAccess};
use proc_macro2::{Literal, TokenStream as TokenStream2};
use quote::{format_ident, quote};

/// The `# Safety` section of an unchecked kernel's launcher.
pub(crate) const UNCHECKED_SAFETY_DOC: &str = "\n\n# Safety\n\n\
This kernel is compiled with `#[kernel(amp, unchecked)]`: its view and array accesses are not \
bounds-checked. The caller promises that every access of every thread of every launch of the \
returned call lies inside the view or array it indexes (for a view, inside its extent). An \
access outside is undefined behaviour: on the native CPU accelerator it reads or writes host \
memory outside the data, and on a Vulkan device without robust buffer access it reaches \
whatever device memory lies there.";

pub(crate) fn launcher(
    func: &syn::ItemFn,
    instances: &[Instance],
    unchecked: bool,
) -> TokenStream2 {
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
