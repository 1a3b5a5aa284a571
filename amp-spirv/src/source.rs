//! Finding kernels, device functions and device structs in a parsed source file, for tools
//! that compile a file's kernels without the macros (the repository's own SPIR-V checks, a
//! future command-line compiler), and recognising the attributes that mark them.

use crate::compile::Options;
use crate::file_facts::{for_each_item, is_device_attr, is_kernel_attr};
use crate::front::DeviceFnSource;

impl Options {
    /// The options a file's kernels compile with outside the macros: the file's
    /// `#[amp::device]` functions and `#[derive(DeviceStruct)]` structs, which the kernel macro
    /// would fetch from their attributes and derives.
    pub fn from_file(file: &syn::File) -> Options {
        Options {
            device_fns: device_fns_in_file(file),
            structs: device_structs_in_file(file),
            ..Options::default()
        }
    }
}

/// Calls `visit` with every function of `file` (in inline modules and function bodies too) and
/// the path of its module from the file's top.
fn for_each_fn<'a>(file: &'a syn::File, visit: &mut dyn FnMut(&[String], &'a syn::ItemFn)) {
    for_each_item(file, true, &mut |module, _, item| {
        if let syn::Item::Fn(f) = item {
            visit(module, f);
        }
    });
}

/// The `#[amp::device]` functions of a parsed source file with their paths from the file's
/// top (functions in function bodies count as top level), for tools that compile the kernels
/// of a file without the macros; what they import through `use` is named by path, as in the
/// source the device macro hands kernels.
pub fn device_fns_in_file(file: &syn::File) -> Vec<DeviceFnSource> {
    let facts = crate::FileFacts::of(file);
    let mut out = Vec::new();
    for_each_fn(file, &mut |module, f| {
        if f.attrs.iter().any(is_device_attr) {
            let m: Vec<&str> = module.iter().map(String::as_str).collect();
            out.push(DeviceFnSource::new(&m, with_imports(&facts, f)));
        }
    });
    out
}

/// `f` with what it imports named by path, as the macros rewrite it (see
/// [`resolve_imports`](crate::resolve_imports)).
fn with_imports(facts: &crate::FileFacts, f: &syn::ItemFn) -> syn::ItemFn {
    let mut f = f.clone();
    if let Some(imports) = facts.imports_of(&f) {
        crate::resolve_imports(&mut f, &imports);
    }
    f
}

/// The `#[kernel(amp)]` functions of a parsed source file, also those in inline modules and
/// inside function bodies (as tests often write them), with what they import through `use`
/// named by path, as the kernel macro compiles them.
pub fn kernels_in_file(file: &syn::File) -> Vec<syn::ItemFn> {
    let facts = crate::FileFacts::of(file);
    let mut out = Vec::new();
    for_each_fn(file, &mut |_, f| {
        if f.attrs.iter().any(is_kernel_attr) {
            out.push(with_imports(&facts, f));
        }
    });
    out
}

/// The `#[derive(DeviceStruct)]` structs of a file, top level and in inline modules: the
/// definitions its kernels can be compiled with
/// ([`Options::structs`](crate::Options::structs)) outside the macro.
pub fn device_structs_in_file(file: &syn::File) -> Vec<syn::ItemStruct> {
    fn derives_device_struct(s: &syn::ItemStruct) -> bool {
        s.attrs.iter().any(|a| {
            a.path().is_ident("derive")
                && a.parse_args_with(
                    syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
                )
                .is_ok_and(|paths| {
                    paths
                        .iter()
                        .any(|p| p.segments.last().is_some_and(|s| s.ident == "DeviceStruct"))
                })
        })
    }
    let mut out = Vec::new();
    for_each_item(file, false, &mut |_, _, item| {
        if let syn::Item::Struct(s) = item {
            if derives_device_struct(s) {
                out.push(s.clone());
            }
        }
    });
    out
}
