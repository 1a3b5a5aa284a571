//! Tokens naming a kernel's scalar and element types as the runtime and the user's code name
//! them.

use crate::callback;
use amp_spirv::{Elem, Scalar};
use proc_macro2::TokenStream as TokenStream2;
use quote::{format_ident, quote};

pub(crate) fn scalar_tokens(s: Scalar) -> TokenStream2 {
    let ident = format_ident!("{}", s.name());
    if s.is_normalized() {
        // `Norm`, `Unorm`: the runtime's types, re-exported by `amp`.
        return quote!(::amp::#ident);
    }
    quote!(::core::primitive::#ident)
}

/// The runtime's `ScalarType` of `s`, as the kernel ABI maps it.
pub(crate) fn scalar_type_tokens(s: Scalar) -> TokenStream2 {
    abi_scalar_tokens(s.abi())
}

/// Tokens naming an ABI `ScalarType` value.
pub(crate) fn abi_scalar_tokens(s: amp_spirv::abi::ScalarType) -> TokenStream2 {
    use amp_spirv::abi::ScalarType;
    // Exhaustive over the ABI's variants: a new one fails to compile here.
    let variant = match s {
        ScalarType::Bool => quote!(Bool),
        ScalarType::I32 => quote!(I32),
        ScalarType::U32 => quote!(U32),
        ScalarType::I8 => quote!(I8),
        ScalarType::U8 => quote!(U8),
        ScalarType::I16 => quote!(I16),
        ScalarType::U16 => quote!(U16),
        ScalarType::F32 => quote!(F32),
        ScalarType::F64 => quote!(F64),
        ScalarType::Norm => quote!(Norm),
        ScalarType::Unorm => quote!(Unorm),
    };
    quote!(::amp::__private::ScalarType::#variant)
}

/// The host type of a view or array element: a primitive, one of `amp`'s short vectors, or
/// a struct as the kernel's signature names it.
pub(crate) fn elem_tokens(func: &syn::ItemFn, param: &str, elem: &Elem) -> TokenStream2 {
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
pub(crate) fn elem_type_tokens(elem: &Elem, host: &TokenStream2) -> TokenStream2 {
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
