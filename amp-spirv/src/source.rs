//! Finding kernels, device functions and device structs in a parsed source file, for tools
//! that compile a file's kernels without the macros (the repository's own SPIR-V checks, a
//! future command-line compiler), and recognising the attributes that mark them.

use crate::front::DeviceFnSource;

/// The `#[amp::device]` functions of a parsed source file with their paths from the file's
/// top (functions in function bodies count as top level), for tools that compile the kernels
/// of a file without the macros.
pub fn device_fns_in_file(file: &syn::File) -> Vec<DeviceFnSource> {
    fn walk(items: &[syn::Item], module: &mut Vec<String>, out: &mut Vec<DeviceFnSource>) {
        for item in items {
            match item {
                syn::Item::Fn(f) => {
                    if f.attrs.iter().any(is_device_attr) {
                        let m: Vec<&str> = module.iter().map(String::as_str).collect();
                        out.push(DeviceFnSource::new(&m, f.clone()));
                    }
                    let nested: Vec<syn::Item> = f
                        .block
                        .stmts
                        .iter()
                        .filter_map(|s| match s {
                            syn::Stmt::Item(i) => Some(i.clone()),
                            _ => None,
                        })
                        .collect();
                    walk(&nested, module, out);
                }
                syn::Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        module.push(m.ident.to_string());
                        walk(items, module, out);
                        module.pop();
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(&file.items, &mut Vec::new(), &mut out);
    out
}

/// Whether `attr` is `#[amp::device]` (or `#[device]`).
pub fn is_device_attr(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "device")
}

/// Whether `attr` is `#[kernel(amp)]` (or `#[amp::kernel(amp)]`).
pub fn is_kernel_attr(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "kernel")
}

/// The `#[kernel(amp)]` functions of a parsed source file, also those in inline modules and
/// inside function bodies (as tests often write them).
pub fn kernels_in_file(file: &syn::File) -> Vec<syn::ItemFn> {
    fn walk(items: &[syn::Item], out: &mut Vec<syn::ItemFn>) {
        for item in items {
            match item {
                syn::Item::Fn(f) if f.attrs.iter().any(is_kernel_attr) => out.push(f.clone()),
                syn::Item::Fn(f) => {
                    let nested: Vec<syn::Item> = f
                        .block
                        .stmts
                        .iter()
                        .filter_map(|s| match s {
                            syn::Stmt::Item(i) => Some(i.clone()),
                            _ => None,
                        })
                        .collect();
                    walk(&nested, out);
                }
                syn::Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        walk(items, out);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(&file.items, &mut out);
    out
}

/// The `#[derive(DeviceStruct)]` structs of a file, top level and in inline modules: the
/// definitions its kernels can be compiled with ([`Options::structs`](crate::Options::structs)) outside the macro.
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
    fn walk(items: &[syn::Item], out: &mut Vec<syn::ItemStruct>) {
        for item in items {
            match item {
                syn::Item::Struct(s) if derives_device_struct(s) => out.push(s.clone()),
                syn::Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        walk(items, out);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(&file.items, &mut out);
    out
}
