//! What each instance of a kernel carries into the binary: its SPIR-V and `KernelInfo`
//! statics, its outer constants' specialization words, and the launch-time checks of its tile
//! shape and `tile_static` bytes.

use crate::callback;
use crate::tokens::{elem_tokens, elem_type_tokens, scalar_tokens, scalar_type_tokens};
use amp_spirv::{CompiledKernel, Elem, Len, ParamKind, Scalar, TextureAccess, TileDim};
use proc_macro2::{Literal, TokenStream as TokenStream2};
use quote::{format_ident, quote, quote_spanned};

/// The `SPIRV_<i>` and `INFO_<i>` statics of instance `i` of a kernel.
pub(crate) fn instance_statics(
    func: &syn::ItemFn,
    kernel: &CompiledKernel,
    i: usize,
) -> TokenStream2 {
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
    let narrow_spirv = format_ident!("SPIRV_NARROW_{i}");
    let narrow_words = &kernel.spirv_narrow_storage;
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
    let shape = match kernel.tile {
        Some(_) => quote!(::amp::__private::Shape::Fixed),
        None => {
            let loops = kernel.has_loops;
            let lanes = kernel.lanes;
            let views = &kernel.quad_views;
            quote!(::amp::__private::Shape::Chosen {
                loops: #loops,
                lanes: #lanes,
                quad_views: &[#(#views),*],
            })
        }
    };
    // One byte-string token per module, in the target's byte order (the macro runs on the
    // host): a literal per word would be thousands of tokens per kernel.
    let module = |name: &syn::Ident, words: &[u32]| {
        let bytes_of = |word: fn(u32) -> [u8; 4]| {
            let bytes: Vec<u8> = words.iter().flat_map(|&w| word(w)).collect();
            Literal::byte_string(&bytes)
        };
        let (le, be) = (bytes_of(u32::to_le_bytes), bytes_of(u32::to_be_bytes));
        let b = words.len() * 4;
        quote! {
            static #name: &[u32] = {
                #[cfg(target_endian = "little")]
                static BYTES: ::amp::__private::SpirvBytes<#b> = ::amp::__private::SpirvBytes(*#le);
                #[cfg(target_endian = "big")]
                static BYTES: ::amp::__private::SpirvBytes<#b> = ::amp::__private::SpirvBytes(*#be);
                BYTES.words()
            };
        }
    };
    let spirv_static = module(&spirv, words);
    let narrow_static = module(&narrow_spirv, narrow_words);
    quote! {
        #spirv_static
        #narrow_static
        static #info: ::amp::__private::KernelInfo = ::amp::__private::KernelInfo {
            name: #kname,
            spirv: #spirv,
            spirv_narrow_storage: #narrow_spirv,
            entry_point: #entry,
            rank: #rank_u32,
            params: &[#(#infos),*],
            push_constant_size: #push,
            workgroup_size: [#wx, #wy, #wz],
            shape: #shape,
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

pub(crate) fn tile_dim_tokens(d: &TileDim) -> TokenStream2 {
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
pub(crate) fn spec_words(c: &amp_spirv::OuterConst) -> TokenStream2 {
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
        // One word, as the device holds them: signed ones sign-extended.
        Scalar::I8 | Scalar::I16 => quote!(spec.push(#value as i32 as u32);),
        Scalar::U8 | Scalar::U16 => quote!(spec.push(#value as u32);),
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

/// Compile-time checks of sizes the compiler could not see: tile shapes, `tile_static` bytes
/// and local arrays' lengths that depend on `const` items or const-generic parameters.
pub(crate) fn launch_checks(kernel: &CompiledKernel) -> Vec<TokenStream2> {
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
    for &k in &kernel.local_lengths {
        let c = &kernel.consts[k as usize];
        let (path, ident) = (&c.path, &c.ident);
        // A device function's copy is read by a `const fn`, as the check is a constant.
        let read = match c.accessor {
            true => quote!(::amp::__private::outer_const_len(#path #ident())),
            false => outer_const_read(c, &quote!(usize)),
        };
        let max = u128::from(amp_spirv::abi::MAX_LOCAL_ARRAY_LEN);
        let msg = format!(
            "kernel `{name}`: `{}` is the length of a local array, which must be from 1 to {max}",
            c.ident
        );
        out.push(quote_spanned! {c.ident.span()=>
            ::core::assert!((#read as u128) >= 1 && (#read as u128) <= #max, #msg);
        });
    }
    out
}

/// The `tile_static` bytes of a kernel as a Rust `usize` expression.
pub(crate) fn tile_static_bytes(kernel: &CompiledKernel) -> TokenStream2 {
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
