//! The kernel's own source file, read where the compiler says where it is: the functions it
//! defines without `#[amp::device]`, so that a kernel calling one gets the kernel language's
//! error (rule `device-fn-marked`, with the fix) instead of rustc's "cannot find macro" for a
//! callback that was never generated.

use std::collections::HashSet;

/// The paths, from `kernel`'s module, of the functions its file defines without
/// `#[amp::device]` (and that are not kernels); `None` where the file cannot be read or the
/// kernel cannot be found in it (macro-generated code, a build without files).
pub fn unmarked_fns(kernel: &syn::ItemFn) -> Option<HashSet<Vec<String>>> {
    if !proc_macro::is_available() {
        return None;
    }
    let path = proc_macro::Span::call_site().local_file()?;
    let text = std::fs::read_to_string(path).ok()?;
    let file = syn::parse_file(&text).ok()?;
    let module = amp_spirv::module_of_fn(&file, &kernel.sig.ident.to_string())?;
    let relative = amp_spirv::unmarked_fns_in_file(&file)
        .into_iter()
        .filter_map(|p| p.strip_prefix(module.as_slice()).map(<[String]>::to_vec))
        .collect();
    Some(relative)
}

/// Rewrites `func` (a kernel or device function of the file the compiler is expanding) to name
/// what it imports with `use` by path; returns the names rewritten. Nothing changes where the
/// file cannot be read or the function cannot be found in it (macro-generated code).
pub fn resolve_imports(func: &mut syn::ItemFn) -> Vec<syn::Ident> {
    if !proc_macro::is_available() {
        return Vec::new();
    }
    let Some(path) = proc_macro::Span::call_site().local_file() else {
        return Vec::new();
    };
    let Some(file) = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| syn::parse_file(&text).ok())
    else {
        return Vec::new();
    };
    match amp_spirv::imports_of_fn(&file, func) {
        Some(imports) => amp_spirv::resolve_imports(func, &imports),
        None => Vec::new(),
    }
}
