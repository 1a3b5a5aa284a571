//! The front end: syn's AST of a `#[kernel(amp)]` function to the typed IR.

mod body;
mod generic;
mod infer;
mod signature;

use crate::diag::Diagnostics;
use crate::ir::{Kernel, TileDim, Tiled};
use crate::structs::StructTable;
use crate::types::{Len, Ty};

pub use body::{
    callee_path, check_device_fn, closure_names, device_calls, device_fn_consts, is_device_fn_path,
};
pub use generic::{instantiate, merge_instance_errors, recovered_instance, Instance};
pub use signature::MAX_TILE_THREADS;

/// The `tile_static` memory every Vulkan device has (`maxComputeSharedMemorySize` >= 16 KiB is
/// the spec's minimum; C++ AMP and the devices we target give 32 KiB).
pub const MAX_TILE_STATIC_BYTES: u64 = 32 * 1024;

/// Checks a kernel function and builds its IR; every problem found is in the error. The kernel
/// calls `device_fns` (inlined at their calls) and may name `structs`.
pub fn lower(
    func: &syn::ItemFn,
    device_fns: &[DeviceFnSource],
    structs: &StructTable,
) -> Result<Kernel, Diagnostics> {
    let mut diags = Diagnostics::default();
    let sig = signature::check_signature(func, structs, &mut diags);
    let mut checker = body::BodyChecker::new(&mut diags, &sig.params, structs);
    checker.set_device_fns(device_fns);
    checker.declare_const_generics(&sig.const_generics);
    let index_name = sig.index_name.as_deref().unwrap_or("#index");
    let (index_local, tiled) = match &sig.tile {
        None => (checker.declare_index(index_name, sig.rank), None),
        Some(dims) => {
            for dim in dims {
                if let TileDim::Named(ident) = dim {
                    checker.tile_dim_const(ident);
                }
            }
            let t = checker.declare_tiled_index(index_name, sig.rank);
            (t.global, Some(t))
        }
    };
    for name in &sig.rejected {
        checker.declare_rejected(name);
    }
    if generic::is_instance(func) {
        checker.set_generic_instance();
    }
    let (locals, body, consts) = checker.check_body(&func.block);
    if !diags.is_empty() {
        return Err(diags);
    }
    Ok(Kernel {
        name: func.sig.ident.to_string(),
        rank: sig.rank,
        index_local,
        tiled: sig.tile.zip(tiled).map(|(dims, t)| Tiled {
            dims,
            global: t.global,
            local: t.local,
            tile: t.tile,
            tile_origin: t.tile_origin,
            tile_extent: t.tile_extent,
        }),
        consts,
        params: sig.params,
        locals,
        body,
    })
}

/// Bytes of one value of `ty` in `tile_static` memory, when every length is a literal.
pub fn literal_bytes(ty: &Ty) -> Option<u64> {
    match ty {
        Ty::Scalar(_) | Ty::Vector(..) => ty.packed_bytes().map(u64::from),
        Ty::Array(elem, Len::Lit(n)) => Some(literal_bytes(elem)? * *n as u64),
        _ => None,
    }
}

/// A `#[amp::device]` function's source, under the path the kernel calls it by.
///
/// ```
/// let square = amp_spirv::DeviceFnSource::new(&["util"], syn::parse_quote! {
///     fn square(x: f32) -> f32 { x * x }
/// });
/// let options = amp_spirv::Options { device_fns: vec![square], ..Default::default() };
/// let kernel: syn::ItemFn = syn::parse_quote! {
///     fn squares(idx: Index<1>, v: ArrayViewMut<f32, 1>) { v[idx] = util::square(v[idx]); }
/// };
/// assert!(amp_spirv::compile_with(&kernel, &options).is_ok());
/// ```
#[derive(Clone, Debug)]
pub struct DeviceFnSource {
    /// The path from the kernel's module, the function's name last (`["util", "square"]`).
    /// A path through a library's `crate::` starts with `"$crate"`.
    pub path: Vec<String>,
    /// The function.
    pub func: syn::ItemFn,
    /// The `$crate` token a path starting with `"$crate"` stands for (it names the library the
    /// function's source came from).
    pub crate_root: Option<proc_macro2::Ident>,
}

/// The attribute the callback of `#[amp::device]` adds to a function's source to list the
/// constants (`"GAIN"`, `"super::LIMIT"`) it left public copies of.
pub const CONSTS_ATTR: &str = "__amp_consts";

/// The name of the public copy `#[amp::device]` leaves, next to device function `func`, of the
/// constant at `path` (`["GAIN"]`, `["super", "LIMIT"]`) that its body reads: kernels in any
/// module or crate read the constant through it, by the function's own path, so a constant
/// resolves where the function is written, as in Rust.
pub fn const_accessor_name(func: &str, path: &[String]) -> String {
    format!("__amp_const_{func}_{}", path.join("_"))
}

/// `segments` (a path from the kernel's module: `""` for a leading `::`, `"$crate"` for
/// `crate_root`) as Rust tokens ending in `::`; nothing for no segments.
pub(crate) fn path_tokens(
    segments: &[String],
    crate_root: Option<&proc_macro2::Ident>,
) -> proc_macro2::TokenStream {
    let mut out = proc_macro2::TokenStream::new();
    for seg in segments {
        match seg.as_str() {
            "" => {}
            "$crate" => match crate_root {
                Some(root) => out.extend(quote::quote!(#root)),
                None => out.extend(quote::quote!(crate)),
            },
            name => {
                let ident = proc_macro2::Ident::new(name, proc_macro2::Span::call_site());
                out.extend(quote::quote!(#ident));
            }
        }
        out.extend(quote::quote!(::));
    }
    out
}

impl DeviceFnSource {
    /// `func`, defined in `module` (a path from the kernel's module).
    pub fn new(module: &[&str], func: syn::ItemFn) -> DeviceFnSource {
        let mut path: Vec<String> = module.iter().map(|s| s.to_string()).collect();
        path.push(func.sig.ident.to_string());
        DeviceFnSource {
            path,
            func,
            crate_root: None,
        }
    }
}
