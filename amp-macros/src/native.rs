//! The native side of a kernel: amp-spirv's native back end turns the instance into Rust
//! source for one thread (or one tile), and this module wraps it in the entry the runtime's
//! native CPU accelerator calls (`amp::__private::NativeCode::Entry`).

use amp_spirv::{NativeError, Options, ParamKind, Scalar};
use proc_macro2::{Literal, TokenStream as TokenStream2};
use quote::{format_ident, quote};

/// The path generated native code names the runtime's support module by.
const RT: &str = "::amp::__private::native";

/// The name of the generated thread (or tile) function inside the entry.
const THREAD_FN: &str = "__amp_thread";

/// The entry function of instance `i` (an item for the launcher's body) and the
/// `NativeCode` expression that names it; without native code (a construct the back end does
/// not translate), no item and a `NativeCode::Unsupported` naming the construct.
pub(crate) fn entry(
    func: &syn::ItemFn,
    options: &Options,
    tiled: bool,
    i: usize,
) -> (TokenStream2, TokenStream2) {
    let unsupported = |why: String| {
        (
            TokenStream2::new(),
            quote!(::amp::__private::NativeCode::Unsupported(#why)),
        )
    };
    let kernel = match amp_spirv::compile_native(func, options, RT, THREAD_FN) {
        Ok(k) => k,
        Err(NativeError::Unsupported(u)) => return unsupported(u.to_string()),
        Err(NativeError::Invalid(d)) => {
            return unsupported(format!("its native translation failed ({d:?})"))
        }
    };
    let thread: TokenStream2 = match kernel.source.parse() {
        Ok(t) => t,
        Err(e) => return unsupported(format!("its native source did not parse ({e})")),
    };
    let entry = format_ident!("__amp_native_{i}");
    let thread_fn = format_ident!("{THREAD_FN}");
    let mut lets = Vec::new();
    let mut args = Vec::new();
    for (k, (_, kind)) in kernel.params.iter().enumerate() {
        let p = format_ident!("p{k}");
        let at = Literal::usize_unsuffixed(k);
        lets.push(match kind {
            ParamKind::Buffer { .. } => quote!(let #p = l.buf(#at);),
            _ => quote!(let #p = l.value(#at);),
        });
        args.push(quote!(#p));
    }
    let mut word = 0usize;
    for (k, c) in kernel.consts.iter().enumerate() {
        let name = format_ident!("c{k}");
        let w = Literal::usize_unsuffixed(word);
        let w1 = Literal::usize_unsuffixed(word + 1);
        let value = match c.ty {
            Scalar::U32 | Scalar::Usize => quote!(l.spec(#w)),
            Scalar::I32 => quote!(l.spec(#w) as i32),
            Scalar::Bool => quote!(l.spec(#w) != 0),
            Scalar::F32 | Scalar::Norm | Scalar::Unorm => quote!(f32::from_bits(l.spec(#w))),
            Scalar::F64 => {
                quote!(f64::from_bits(u64::from(l.spec(#w)) | (u64::from(l.spec(#w1)) << 32)))
            }
        };
        word += if c.ty == Scalar::F64 { 2 } else { 1 };
        lets.push(quote!(let #name = #value;));
        args.push(quote!(#name));
    }
    let run = if tiled {
        quote!(l.for_each_tile(move |tile| unsafe { #thread_fn(tile, #(#args,)* oob) });)
    } else {
        quote!(l.for_each(move |idx| unsafe { #thread_fn(idx, #(#args,)* oob) });)
    };
    let item = quote! {
        #[allow(unused_variables, unused_unsafe, clippy::all)]
        unsafe fn #entry(l: &::amp::__private::NativeLaunch<'_>) {
            #thread
            let oob = l.oob();
            // SAFETY: the runtime checked the arguments against the kernel's parameters.
            #[allow(unused_unsafe)]
            unsafe {
                #(#lets)*
                #run
            }
        }
    };
    (item, quote!(::amp::__private::NativeCode::Entry(#entry)))
}
