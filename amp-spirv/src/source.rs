//! Finding kernels, device functions and device structs in a parsed source file, for tools
//! that compile a file's kernels without the macros (the repository's own SPIR-V checks, a
//! future command-line compiler), and recognising the attributes that mark them.

use crate::compile::Options;
use crate::file_facts::{is_device_attr, is_kernel_attr};
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

/// Calls `visit` with every item of `items` and the path of the module it is in (from the
/// file's top): items of inline modules too, and, where `into_fn_bodies`, items declared in
/// function bodies (which count as being in their function's module).
fn for_each_item<'a>(
    items: &[&'a syn::Item],
    into_fn_bodies: bool,
    module: &mut Vec<String>,
    visit: &mut dyn FnMut(&[String], &'a syn::Item),
) {
    for &item in items {
        visit(module, item);
        match item {
            syn::Item::Fn(f) if into_fn_bodies => {
                for_each_item(
                    &crate::imports::items_in_body(f),
                    into_fn_bodies,
                    module,
                    visit,
                );
            }
            syn::Item::Mod(m) => {
                if let Some((_, content)) = &m.content {
                    let content: Vec<&syn::Item> = content.iter().collect();
                    module.push(m.ident.to_string());
                    for_each_item(&content, into_fn_bodies, module, visit);
                    module.pop();
                }
            }
            _ => {}
        }
    }
}

/// The top-level items of `file`, as [`for_each_item`] takes them.
fn top_level(file: &syn::File) -> Vec<&syn::Item> {
    file.items.iter().collect()
}

/// Calls `visit` with every function of `file` (in inline modules and function bodies too) and
/// the path of its module from the file's top.
fn for_each_fn<'a>(file: &'a syn::File, visit: &mut dyn FnMut(&[String], &'a syn::ItemFn)) {
    for_each_item(
        &top_level(file),
        true,
        &mut Vec::new(),
        &mut |module, item| {
            if let syn::Item::Fn(f) = item {
                visit(module, f);
            }
        },
    );
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
    for_each_item(&top_level(file), false, &mut Vec::new(), &mut |_, item| {
        if let syn::Item::Struct(s) = item {
            if derives_device_struct(s) {
                out.push(s.clone());
            }
        }
    });
    out
}

/// The paths from the file's top of its functions that are neither `#[amp::device]` functions
/// nor kernels (functions in function bodies count as in their function's module): what a
/// kernel cannot call.
pub fn unmarked_fns_in_file(file: &syn::File) -> Vec<Vec<String>> {
    crate::FileFacts::of(file).unmarked_fns().to_vec()
}

/// The module path from the file's top of the one kernel named `name`; `None` when the file
/// has no such kernel or more than one.
pub fn module_of_fn(file: &syn::File, name: &str) -> Option<Vec<String>> {
    crate::FileFacts::of(file)
        .kernel_module(name)
        .map(<[String]>::to_vec)
}
