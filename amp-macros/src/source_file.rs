//! The kernel's own source file, read where the compiler says where it is: the functions it
//! defines without `#[amp::device]`, so that a kernel calling one gets the kernel language's
//! error (rule `device-fn-marked`, with the fix) instead of rustc's "cannot find macro" for a
//! callback that was never generated.

use std::collections::HashSet;

/// The paths, from `kernel`'s module, of the functions its file defines without
/// `#[amp::device]` (and that are not kernels); `None` where the file cannot be read or the
/// kernel cannot be found in it (macro-generated code, a build without files).
///
/// A kernel that `amp::algorithms`' macros expand to is not in any file: for it, `callee` (the
/// span of the call of the function passed to the macro) names the caller's file.
pub fn unmarked_fns(
    kernel: &syn::ItemFn,
    callee: Option<proc_macro2::Span>,
) -> Option<HashSet<Vec<String>>> {
    if !proc_macro::is_available() {
        return None;
    }
    let read = |path: std::path::PathBuf| {
        let text = std::fs::read_to_string(path).ok()?;
        syn::parse_file(&text).ok()
    };
    let file = read(proc_macro::Span::call_site().local_file()?)?;
    let name = kernel.sig.ident.to_string();
    let Some(module) = amp_spirv::module_of_fn(&file, &name) else {
        if !name.starts_with(ALGORITHM_KERNEL) {
            return None;
        }
        let caller = read(callee?.unwrap().local_file()?)?;
        return Some(unmarked_from_any_module(&caller));
    };
    let relative = amp_spirv::unmarked_fns_in_file(&file)
        .into_iter()
        .filter_map(|p| p.strip_prefix(module.as_slice()).map(<[String]>::to_vec))
        .collect();
    Some(relative)
}

/// How the kernels that `amp::algorithms`' macros expand to are named: they are in the
/// caller's file only as a macro call, so their module is not known.
const ALGORITHM_KERNEL: &str = "__amp_";

/// For a kernel of unknown module: the paths of the file's unmarked functions from any module
/// (each tail of each path), except those that could also name an `#[amp::device]` function of
/// the file (those keep rustc's error), so that passing a plain function to an algorithm gets
/// the kernel language's error.
fn unmarked_from_any_module(file: &syn::File) -> HashSet<Vec<String>> {
    let tails = |paths: Vec<Vec<String>>| -> HashSet<Vec<String>> {
        paths
            .iter()
            .flat_map(|p| (0..p.len()).map(|i| p[i..].to_vec()))
            .collect()
    };
    let marked = tails(
        amp_spirv::Options::from_file(file)
            .device_fns
            .into_iter()
            .map(|f| f.path)
            .collect(),
    );
    tails(amp_spirv::unmarked_fns_in_file(file))
        .into_iter()
        .filter(|p| !marked.contains(p))
        .collect()
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
