//! The kernel's own source file, read where the compiler says where it is: the functions it
//! defines without `#[amp::device]`, so that a kernel calling one gets the kernel language's
//! error (rule `device-fn-marked`, with the fix) instead of rustc's "cannot find macro" for a
//! callback that was never generated; and the `use` items in scope of each kernel.
//!
//! Every kernel and device function of a file asks about the same file, so its facts are kept
//! for the compiler process's later macro calls, checked against the file's text each time
//! (reading is cheap; parsing a file of many kernels once per kernel was most of a build).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;

use amp_spirv::FileFacts;

thread_local! {
    /// The facts of the files read so far, with the text they were read from.
    static FILES: RefCell<HashMap<PathBuf, (String, Rc<FileFacts>)>> = RefCell::default();
}

/// The facts of the source file at `path`; `None` where it cannot be read or parsed.
fn facts(path: PathBuf) -> Option<Rc<FileFacts>> {
    let text = std::fs::read_to_string(&path).ok()?;
    FILES.with(|files| {
        if let Some((read, facts)) = files.borrow().get(&path) {
            if *read == text {
                return Some(facts.clone());
            }
        }
        let facts = Rc::new(FileFacts::of(&syn::parse_file(&text).ok()?));
        files.borrow_mut().insert(path, (text, facts.clone()));
        Some(facts)
    })
}

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
    let file = facts(proc_macro::Span::call_site().local_file()?)?;
    let name = kernel.sig.ident.to_string();
    let Some(module) = file.kernel_module(&name) else {
        if !name.starts_with(ALGORITHM_KERNEL) {
            return None;
        }
        let caller = facts(callee?.unwrap().local_file()?)?;
        return Some(unmarked_from_any_module(&caller));
    };
    let relative = file
        .unmarked_fns()
        .iter()
        .filter_map(|p| p.strip_prefix(module).map(<[String]>::to_vec))
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
fn unmarked_from_any_module(file: &FileFacts) -> HashSet<Vec<String>> {
    let tails = |paths: &[Vec<String>]| -> HashSet<Vec<String>> {
        paths
            .iter()
            .flat_map(|p| (0..p.len()).map(|i| p[i..].to_vec()))
            .collect()
    };
    let marked = tails(&file.device_fn_paths());
    tails(file.unmarked_fns())
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
    let Some(file) = facts(path) else {
        return Vec::new();
    };
    match file.imports_of(func) {
        Some(imports) => amp_spirv::resolve_imports(func, &imports),
        None => Vec::new(),
    }
}
