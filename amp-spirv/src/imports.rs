//! `use` items: a kernel or device function that calls a device function (or names a device
//! struct) it brought into scope with `use` is rewritten to name it by the path the `use`
//! gives, so that the by-path machinery applies (the hidden callback macro next to the item,
//! and the callee's own module for its calls).
//!
//! An attribute macro sees only its item, so the imports come from the item's source file
//! ([`imports_of_fn`](crate::imports_of_fn), [`FileFacts`](crate::FileFacts)); the macros read
//! it where the compiler says it is, and tools read it themselves. [`resolve_imports`] then rewrites the function: `f(x)` with `use a::b::f;` in
//! scope becomes `a::b::f(x)` (the new segments carry the span of the name as written), and a
//! path whose first segment is an imported module (`m::f(x)` with `use super::m;`) becomes
//! `super::m::f(x)`. Rewriting is idempotent: a rewritten path starts with what the `use`
//! started with, which is no import of its scope.

use std::collections::{HashMap, HashSet};

use syn::visit_mut::VisitMut;

/// The names the `use` items in scope of one function import, each with the path its `use`
/// gives (`self`, `super`, `crate` kept; an empty first segment for a leading `::`), imports
/// of imports followed (`use a::m; use m::f;` gives `f` the path `a::m::f`). Globs are not
/// followed, nor `as _` imports.
#[derive(Clone, Debug, Default)]
pub struct Imports {
    names: HashMap<String, Vec<String>>,
}

impl Imports {
    /// The imports of `uses`, in order: a later `use` of a name (an inner scope's) wins.
    pub fn from_uses<'a>(uses: impl IntoIterator<Item = &'a syn::ItemUse>) -> Imports {
        let mut names = HashMap::new();
        for u in uses {
            let mut prefix = Vec::new();
            if u.leading_colon.is_some() {
                prefix.push(String::new());
            }
            walk(&u.tree, &mut prefix, &mut names);
        }
        // A name imported as itself (`use some_crate;`) needs no rewriting.
        names.retain(|name, path: &mut Vec<String>| path.as_slice() != [name.clone()]);
        // Follow imports of imports, a bounded number of times (cycles are rustc's error).
        for _ in 0..8 {
            let snapshot = names.clone();
            let mut changed = false;
            for path in names.values_mut() {
                if let Some(full) = path.first().and_then(|first| snapshot.get(first)) {
                    let mut new = full.clone();
                    new.extend(path[1..].iter().cloned());
                    *path = new;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        Imports { names }
    }

    /// The path `name` is imported from.
    pub fn get(&self, name: &str) -> Option<&[String]> {
        self.names.get(name).map(Vec::as_slice)
    }

    /// Whether nothing is imported (by name).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

fn walk(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut HashMap<String, Vec<String>>) {
    let mut add = |ident: &syn::Ident, name: String| {
        let path = if ident == "self" {
            prefix.clone()
        } else {
            let mut p = prefix.clone();
            p.push(ident.to_string());
            p
        };
        if !path.is_empty() && !path.last().is_some_and(String::is_empty) {
            out.insert(name, path);
        }
    };
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            walk(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = if n.ident == "self" {
                match prefix.last() {
                    Some(last) => last.clone(),
                    None => return,
                }
            } else {
                n.ident.to_string()
            };
            add(&n.ident, name);
        }
        syn::UseTree::Rename(r) => {
            if r.rename != "_" {
                add(&r.ident, r.rename.to_string());
            }
        }
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| walk(t, prefix, out)),
        syn::UseTree::Glob(_) => {}
    }
}

/// Rewrites `func` to name what it imports by path: calls of device functions (not the kernel
/// language's own functions, not closures the body binds) and device struct types and struct
/// expressions. Returns the imported names it rewrote (spanned where they were written, once
/// each), which the macros mark as used.
pub fn resolve_imports(func: &mut syn::ItemFn, imports: &Imports) -> Vec<syn::Ident> {
    if imports.is_empty() {
        return Vec::new();
    }
    let type_params = func
        .sig
        .generics
        .params
        .iter()
        .filter_map(|g| match g {
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect();
    let mut rewriter = Rewriter {
        imports,
        closures: crate::front::closure_names(&func.block),
        type_params,
        used: Vec::new(),
    };
    rewriter.visit_signature_mut(&mut func.sig);
    rewriter.visit_block_mut(&mut func.block);
    rewriter.used
}

struct Rewriter<'a> {
    imports: &'a Imports,
    closures: HashSet<String>,
    type_params: HashSet<String>,
    used: Vec<syn::Ident>,
}

impl Rewriter<'_> {
    /// Replaces the first segment of `path` by its import's path, when it has one.
    fn rewrite(&mut self, path: &mut syn::Path) {
        if path.leading_colon.is_some() {
            return;
        }
        let Some(first) = path.segments.first() else {
            return;
        };
        let Some(full) = self.imports.get(&first.ident.to_string()) else {
            return;
        };
        let first = first.clone();
        let span = first.ident.span();
        let mut segments = syn::punctuated::Punctuated::<syn::PathSegment, syn::Token![::]>::new();
        let mut leading_colon = None;
        for (i, seg) in full.iter().enumerate() {
            if i == 0 && seg.is_empty() {
                leading_colon = Some(syn::Token![::](span));
                continue;
            }
            let ident = match seg.strip_prefix("r#") {
                Some(raw) => syn::Ident::new_raw(raw, span),
                None => syn::Ident::new(seg, span),
            };
            segments.push(syn::PathSegment::from(ident));
        }
        if let Some(last) = segments.last_mut() {
            last.arguments = first.arguments.clone();
        }
        segments.extend(path.segments.iter().skip(1).cloned());
        path.leading_colon = leading_colon;
        path.segments = segments;
        if !self.used.contains(&first.ident) {
            self.used.push(first.ident);
        }
    }

    /// Whether `path` can name a device struct: its last segment capitalised, without generic
    /// arguments, no type the kernel language knows, no type parameter.
    fn struct_like(&self, path: &syn::Path) -> bool {
        let Some(last) = path.segments.last() else {
            return false;
        };
        let name = last.ident.to_string();
        let known = matches!(
            name.as_str(),
            "Index" | "Extent" | "TiledIndex" | "ArrayView" | "ArrayViewMut" | "Array" | "Self"
        ) || crate::Scalar::from_name(&name).is_some()
            || crate::vector_from_name(&name).is_some();
        let type_param = path.segments.len() == 1 && self.type_params.contains(&name);
        name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && last.arguments.is_empty()
            && !known
            && !type_param
    }
}

impl VisitMut for Rewriter<'_> {
    fn visit_expr_call_mut(&mut self, call: &mut syn::ExprCall) {
        if let syn::Expr::Path(p) = &mut *call.func {
            let closure = p.path.segments.len() == 1
                && self
                    .closures
                    .contains(&p.path.segments[0].ident.to_string());
            if p.qself.is_none() && !closure && crate::front::is_device_fn_path(&p.path) {
                self.rewrite(&mut p.path);
            }
        }
        syn::visit_mut::visit_expr_call_mut(self, call);
    }

    fn visit_type_path_mut(&mut self, ty: &mut syn::TypePath) {
        // `TiledIndex<TS>`'s arguments are tile sizes: constants, which the generated code
        // names as written (an imported one through the `use` that brought it in), not
        // structs.
        if ty
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "TiledIndex")
        {
            return;
        }
        if ty.qself.is_none() && self.struct_like(&ty.path) {
            self.rewrite(&mut ty.path);
        }
        syn::visit_mut::visit_type_path_mut(self, ty);
    }

    fn visit_expr_struct_mut(&mut self, e: &mut syn::ExprStruct) {
        if e.qself.is_none() && self.struct_like(&e.path) {
            self.rewrite(&mut e.path);
        }
        syn::visit_mut::visit_expr_struct_mut(self, e);
    }

    // Macros are the body checker's to report; their tokens are left alone.
    fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}
}

/// The items declared in a function's body (nested functions, modules, `use`s).
pub(crate) fn items_in_body(f: &syn::ItemFn) -> Vec<&syn::Item> {
    f.block
        .stmts
        .iter()
        .filter_map(|s| match s {
            syn::Stmt::Item(i) => Some(i),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::imports_of_fn;

    fn resolved(file: &str, kernel: &str) -> String {
        let file: syn::File = syn::parse_str(file).expect("file");
        let mut func: syn::ItemFn = syn::parse_str(kernel).expect("kernel");
        let imports = imports_of_fn(&file, &func).expect("found");
        resolve_imports(&mut func, &imports);
        let once = quote::ToTokens::to_token_stream(&func.block).to_string();
        // Idempotent.
        resolve_imports(&mut func, &imports);
        assert_eq!(
            once,
            quote::ToTokens::to_token_stream(&func.block).to_string()
        );
        once
    }

    #[test]
    fn calls_and_structs_through_use() {
        let file = r#"
            use geo::interp::{point_at, lerp as mix, self as ip};
            use self::util::{helper, Pair};
            use geo::shapes::Segment;
            mod util { pub fn helper() {} }
            #[kernel(amp)]
            fn k(idx: Index<1>, s: ArrayView<Segment, 1>) {}
        "#;
        let out = resolved(
            file,
            "fn k(idx: Index<1>, s: ArrayView<Segment, 1>) { \
             let sq = |x: f32| x; let p = Pair { a: 1.0 }; \
             let a = point_at(s[idx], mix::<f32>(1.0, 2.0, 0.5)); \
             let b = helper(ip::affine(1.0, 2.0, 3.0)) + sq(2.0) + min(1.0, 2.0); }",
        );
        assert!(out.contains("geo :: interp :: point_at (s [idx]"), "{out}");
        assert!(out.contains("geo :: interp :: lerp :: < f32 >"), "{out}");
        assert!(
            out.contains("self :: util :: helper (geo :: interp :: affine"),
            "{out}"
        );
        assert!(out.contains("self :: util :: Pair {"), "{out}");
        assert!(out.contains("sq (2.0)"), "{out}");
        assert!(out.contains("min (1.0"), "{out}");
    }

    #[test]
    fn imports_of_imports_and_nested_scopes() {
        let file = r#"
            use ::outer::m;
            use m::f;
            mod a {
                use super::g;
                fn host() {
                    use crate::h::inner;
                    #[kernel(amp)]
                    fn k(idx: Index<1>) {}
                }
            }
        "#;
        let out = resolved(file, "fn k(idx: Index<1>) { inner(g(f(1))); }");
        assert_eq!(out, "{ crate :: h :: inner (super :: g (f (1))) ; }");
        let top: syn::File = syn::parse_str(file).expect("file");
        let uses: Vec<&syn::ItemUse> = top
            .items
            .iter()
            .filter_map(|i| match i {
                syn::Item::Use(u) => Some(u),
                _ => None,
            })
            .collect();
        let imports = Imports::from_uses(uses);
        assert_eq!(
            imports.get("f"),
            Some(&["", "outer", "m", "f"].map(String::from)[..])
        );
    }
}
