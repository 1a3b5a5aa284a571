//! What the macros need from a kernel's source file, read once per file: the marked functions
//! (kernels and device functions) with their modules and the imports in scope of each, and the
//! functions that are not marked.
//!
//! An attribute macro sees only its item, so the macros read the item's file; a file of fifty
//! kernels would otherwise be parsed a hundred times, and parsing was most of a test suite's
//! build. The facts hold no tokens (those belong to the one macro call that made them), so a
//! macro can keep them for the file's later kernels.

use std::collections::HashMap;

use crate::imports::{items_in_body, Imports};

/// The facts of one parsed source file (see the module's documentation).
#[derive(Clone, Debug, Default)]
pub struct FileFacts {
    /// The kernels and device functions by name (several where names repeat in modules or
    /// function bodies).
    marked: HashMap<String, Vec<MarkedFn>>,
    /// The paths from the file's top of the functions that are neither kernels nor device
    /// functions (functions in function bodies count as in their function's module).
    unmarked: Vec<Vec<String>>,
}

/// A kernel or device function of the file.
#[derive(Clone, Debug)]
struct MarkedFn {
    /// The path of its module from the file's top.
    module: Vec<String>,
    kernel: bool,
    device: bool,
    /// The names the `use` items in scope import: its module's and those of the function
    /// bodies it is declared in.
    imports: Imports,
    /// Its body's tokens as text, kept where another marked function has the same name: what
    /// tells them apart.
    body: Option<String>,
}

impl FileFacts {
    /// The facts of `file`.
    pub fn of(file: &syn::File) -> FileFacts {
        let mut found: HashMap<String, Vec<(MarkedFn, &syn::ItemFn)>> = HashMap::new();
        let mut unmarked = Vec::new();
        for_each_item(file, true, &mut |module, uses, item| {
            let syn::Item::Fn(f) = item else {
                return;
            };
            let kernel = f.attrs.iter().any(is_kernel_attr);
            let device = f.attrs.iter().any(is_device_attr);
            let name = f.sig.ident.to_string();
            if !kernel && !device {
                let mut path = module.to_vec();
                path.push(name);
                unmarked.push(path);
                return;
            }
            let marked = MarkedFn {
                module: module.to_vec(),
                kernel,
                device,
                imports: Imports::from_uses(uses.iter().copied()),
                body: None,
            };
            found.entry(name).or_default().push((marked, f));
        });
        let marked = found
            .into_iter()
            .map(|(name, fns)| {
                let several = fns.len() > 1;
                let fns = fns
                    .into_iter()
                    .map(|(mut m, f)| {
                        if several {
                            m.body = Some(body_text(f));
                        }
                        m
                    })
                    .collect();
                (name, fns)
            })
            .collect();
        FileFacts { marked, unmarked }
    }

    /// The imports in scope of `func` (a kernel or device function of the file, found by name
    /// and, if several share it, by body); `None` where the file has no such function, or
    /// several.
    pub fn imports_of(&self, func: &syn::ItemFn) -> Option<Imports> {
        let fns = self.marked.get(&func.sig.ident.to_string())?;
        match fns.as_slice() {
            [one] => Some(one.imports.clone()),
            _ => {
                let body = body_text(func);
                let mut same = fns.iter().filter(|m| m.body.as_deref() == Some(&body));
                match (same.next(), same.next()) {
                    (Some(one), None) => Some(one.imports.clone()),
                    _ => None,
                }
            }
        }
    }

    /// The module path from the file's top of the one kernel named `name`; `None` when the
    /// file has no such kernel or more than one.
    pub fn kernel_module(&self, name: &str) -> Option<&[String]> {
        let mut kernels = self.marked.get(name)?.iter().filter(|m| m.kernel);
        match (kernels.next(), kernels.next()) {
            (Some(one), None) => Some(&one.module),
            _ => None,
        }
    }

    /// The paths from the file's top of its functions that are neither device functions nor
    /// kernels: what a kernel cannot call.
    pub fn unmarked_fns(&self) -> &[Vec<String>] {
        &self.unmarked
    }

    /// The paths from the file's top of its `#[amp::device]` functions.
    pub fn device_fn_paths(&self) -> Vec<Vec<String>> {
        let mut paths: Vec<Vec<String>> = self
            .marked
            .iter()
            .flat_map(|(name, fns)| {
                fns.iter().filter(|m| m.device).map(move |m| {
                    let mut path = m.module.clone();
                    path.push(name.clone());
                    path
                })
            })
            .collect();
        paths.sort();
        paths
    }
}

/// The imports in scope of `func` (a `#[kernel(amp)]` or `#[amp::device]` function of `file`,
/// found by name and, if several share it, by body): the `use` items of its module and of the
/// function bodies it is declared in. `None` where `file` has no such function, or several.
/// (A caller with several functions of one file asks [`FileFacts`], which
/// reads the file once.)
pub fn imports_of_fn(file: &syn::File, func: &syn::ItemFn) -> Option<Imports> {
    FileFacts::of(file).imports_of(func)
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

/// `f`'s body as token text: how two marked functions of one name are told apart.
fn body_text(f: &syn::ItemFn) -> String {
    quote::ToTokens::to_token_stream(&f.block).to_string()
}

/// What [`for_each_item`] calls with each item: the path of its module from the file's top,
/// the `use` items in scope, the item.
pub(crate) type ItemVisitor<'v, 'a> = dyn FnMut(&[String], &[&'a syn::ItemUse], &'a syn::Item) + 'v;

/// Calls `visit` with every item of `file`: items of inline modules too, and, where
/// `into_fn_bodies`, items declared in function bodies (which count as being in their
/// function's module). The `use` items in scope are those of the item's module and of the
/// function bodies it is declared in; a module starts a scope of its own.
pub(crate) fn for_each_item<'a>(
    file: &'a syn::File,
    into_fn_bodies: bool,
    visit: &mut ItemVisitor<'_, 'a>,
) {
    let top: Vec<&syn::Item> = file.items.iter().collect();
    walk(&top, &[], into_fn_bodies, &mut Vec::new(), visit);
}

fn walk<'a>(
    items: &[&'a syn::Item],
    outer: &[&'a syn::ItemUse],
    into_fn_bodies: bool,
    module: &mut Vec<String>,
    visit: &mut ItemVisitor<'_, 'a>,
) {
    let mut uses = outer.to_vec();
    uses.extend(items.iter().filter_map(|i| match i {
        syn::Item::Use(u) => Some(u),
        _ => None,
    }));
    for &item in items {
        visit(module, &uses, item);
        match item {
            syn::Item::Fn(f) if into_fn_bodies => {
                walk(&items_in_body(f), &uses, into_fn_bodies, module, visit);
            }
            syn::Item::Mod(m) => {
                if let Some((_, content)) = &m.content {
                    let content: Vec<&syn::Item> = content.iter().collect();
                    module.push(m.ident.to_string());
                    walk(&content, &[], into_fn_bodies, module, visit);
                    module.pop();
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
        use amp::prelude::*;
        use helpers::scale;
        fn plain() {}
        #[amp::device]
        fn twice(x: f32) -> f32 { x * 2.0 }
        #[kernel(amp)]
        fn k(idx: Index<1>, a: ArrayViewMut<f32, 1>) { a[idx] = scale(twice(a[idx])); }
        mod inner {
            use super::twice as double;
            fn helper() {}
            #[kernel(amp)]
            fn k(idx: Index<1>, a: ArrayViewMut<f32, 1>) { a[idx] = double(1.0); }
        }
        fn host() {
            use other::scale;
            #[kernel(amp)]
            fn in_body(idx: Index<1>, a: ArrayViewMut<f32, 1>) { a[idx] = scale(1.0); }
        }
    "#;

    fn facts() -> FileFacts {
        FileFacts::of(&syn::parse_str(FILE).expect("file"))
    }

    /// A kernel over one writable view, named `name`, whose body is `body`.
    fn kernel(name: &str, body: &str) -> syn::ItemFn {
        syn::parse_str(&format!(
            "#[kernel(amp)] fn {name}(idx: Index<1>, a: ArrayViewMut<f32, 1>) {{ {body} }}"
        ))
        .expect("kernel")
    }

    #[test]
    fn the_facts_name_modules_imports_and_unmarked_functions() {
        let facts = facts();
        let paths = |v: &[Vec<String>]| v.iter().map(|p| p.join("::")).collect::<Vec<_>>();
        assert_eq!(
            paths(facts.unmarked_fns()),
            ["plain", "inner::helper", "host"]
        );
        assert_eq!(paths(&facts.device_fn_paths()), ["twice"]);
        assert_eq!(
            facts.kernel_module("in_body"),
            Some(&[] as &[String]),
            "a function body is its function's module"
        );
        assert_eq!(facts.kernel_module("k"), None, "two kernels named `k`");
        assert_eq!(facts.kernel_module("plain"), None);
        let in_body = kernel("in_body", "a[idx] = scale(1.0);");
        let imports = facts.imports_of(&in_body).expect("found");
        assert_eq!(
            imports.get("scale"),
            Some(&["other".to_string(), "scale".to_string()][..])
        );
    }

    #[test]
    fn functions_of_one_name_are_told_apart_by_their_bodies() {
        let facts = facts();
        let inner = kernel("k", "a[idx] = double(1.0);");
        let imports = facts.imports_of(&inner).expect("found by body");
        assert_eq!(
            imports.get("double"),
            Some(&["super".to_string(), "twice".to_string()][..])
        );
        assert_eq!(
            imports.get("scale"),
            None,
            "a module does not see its parent's imports"
        );
        let other = kernel("k", "a[idx] = 0.0;");
        assert!(facts.imports_of(&other).is_none(), "no body matches");
    }
}
