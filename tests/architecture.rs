//! The shape of the code, checked: the library crates depend only on the layers below them, no
//! module cycles inside any crate, and no source file so long that it must be doing several
//! jobs.
//!
//! A module cycle is judged between siblings: for a reference from module `a` to module `b`
//! (a `crate::`, `self::` or `super::` path in `a`'s code, in a `use` or anywhere else), the
//! edge is drawn between the two children of their closest common ancestor that contain them.
//! A module naming its own ancestors or descendants draws no edge (a child using its parent's
//! items is how Rust modules are meant to be used); two siblings that name each other, directly
//! or through others, are a cycle. Re-exports are followed: `crate::Error` is an edge to the
//! module that defines `Error`, not to the crate root.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crates whose sources are checked, relative to the repository root.
const CRATES: [&str; 7] = [
    "amp-abi/src",
    "amp-native-rt/src",
    "amp-spirv/src",
    "amp-macros/src",
    "amp-runtime/src",
    "amp-bench/src",
    "src",
];

/// Longest source file allowed (tests aside).
const MAX_LINES: usize = 1000;

type ModPath = Vec<String>;

/// One module of a crate: its `use` imports (name -> absolute path) and the absolute paths its
/// code names.
#[derive(Default)]
struct Module {
    imports: BTreeMap<String, ModPath>,
    references: Vec<ModPath>,
}

/// A crate's modules, by path from the root (`[]` is the crate root).
struct Crate {
    modules: BTreeMap<ModPath, Module>,
    files: Vec<PathBuf>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Makes `path`, written in module `at`, absolute. A path that starts with neither `crate`,
/// `self` nor `super` is taken as relative to `at` (a child module, or a name that resolves to
/// `at` itself and so draws no edge: a local, an import, another crate).
fn absolute(at: &[String], segments: &[String]) -> Option<ModPath> {
    let (first, rest) = segments.split_first()?;
    match first.as_str() {
        "crate" => Some(rest.to_vec()),
        "self" => Some(at.iter().cloned().chain(rest.iter().cloned()).collect()),
        "super" => {
            let mut base = at.to_vec();
            let mut rest = segments;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
            Some(base.into_iter().chain(rest.iter().cloned()).collect())
        }
        _ => Some(at.iter().cloned().chain(segments.iter().cloned()).collect()),
    }
}

/// Collects the paths of one module's code (not of its inline child modules).
struct PathCollector<'a> {
    at: &'a [String],
    module: &'a mut Module,
    children: &'a mut Vec<(String, syn::ItemMod)>,
}

impl PathCollector<'_> {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.import(prefix, &n.ident.to_string(), None),
            syn::UseTree::Rename(r) => {
                self.import(prefix, &r.ident.to_string(), Some(r.rename.to_string()))
            }
            syn::UseTree::Glob(_) => {
                if let Some(abs) = absolute(self.at, prefix) {
                    self.module.references.push(abs);
                }
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    fn import(&mut self, prefix: &[String], name: &str, rename: Option<String>) {
        let mut full = prefix.to_vec();
        if name != "self" {
            full.push(name.to_string());
        }
        if let Some(abs) = absolute(self.at, &full) {
            let alias = rename.unwrap_or_else(|| full.last().cloned().unwrap_or_default());
            self.module.imports.insert(alias, abs.clone());
            self.module.references.push(abs);
        }
    }
}

impl<'ast> syn::visit::Visit<'ast> for PathCollector<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.children.push((m.ident.to_string(), m.clone()));
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_some() {
            return;
        }
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if let Some(abs) = absolute(self.at, &segments) {
            self.module.references.push(abs);
        }
        syn::visit::visit_path(self, p);
    }
}

/// The file of module `name` declared (without a body) in `dir`, honouring `#[path]`.
fn module_file(dir: &Path, name: &str, attrs: &[syn::Attribute]) -> PathBuf {
    for attr in attrs {
        if attr.path().is_ident("path") {
            if let syn::Meta::NameValue(nv) = &attr.meta {
                if let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &nv.value
                {
                    return dir.join(s.value());
                }
            }
        }
    }
    let flat = dir.join(format!("{name}.rs"));
    if flat.is_file() {
        flat
    } else {
        dir.join(name).join("mod.rs")
    }
}

/// Reads module `at` from `items`: its child modules' files live in `dir`, and `#[path]`
/// attributes are relative to `file_dir`, the folder of the file holding `items`.
fn read_module(krate: &mut Crate, at: ModPath, items: &[syn::Item], dir: &Path, file_dir: &Path) {
    let mut module = Module::default();
    let mut children = Vec::new();
    {
        let mut collector = PathCollector {
            at: &at,
            module: &mut module,
            children: &mut children,
        };
        for item in items {
            syn::visit::Visit::visit_item(&mut collector, item);
        }
    }
    krate.modules.insert(at.clone(), module);
    for (name, m) in children {
        // Unit tests are not part of the module graph users and maintainers follow.
        let is_test = m.attrs.iter().any(|a| {
            a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
        });
        if is_test {
            continue;
        }
        let mut child_at = at.clone();
        child_at.push(name.clone());
        match &m.content {
            Some((_, items)) => read_module(krate, child_at, items, &dir.join(&name), file_dir),
            None => {
                let has_path = m.attrs.iter().any(|a| a.path().is_ident("path"));
                let file = module_file(if has_path { file_dir } else { dir }, &name, &m.attrs);
                let child_dir = if file.file_name().is_some_and(|f| f == "mod.rs") {
                    file.parent().expect("mod.rs has a folder").to_path_buf()
                } else {
                    file.with_extension("")
                };
                read_file(krate, child_at, &file, &child_dir);
            }
        }
    }
}

fn read_file(krate: &mut Crate, at: ModPath, file: &Path, dir: &Path) {
    let source = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
    let parsed =
        syn::parse_file(&source).unwrap_or_else(|e| panic!("cannot parse {}: {e}", file.display()));
    krate.files.push(file.to_path_buf());
    let file_dir = file.parent().expect("a source file has a folder");
    read_module(krate, at, &parsed.items, dir, file_dir);
}

fn read_crate(src: &Path) -> Crate {
    let mut krate = Crate {
        modules: BTreeMap::new(),
        files: Vec::new(),
    };
    // A library's root is lib.rs, a binary's main.rs.
    let root = ["lib.rs", "main.rs"]
        .map(|f| src.join(f))
        .into_iter()
        .find(|f| f.is_file())
        .unwrap_or_else(|| panic!("{} has neither lib.rs nor main.rs", src.display()));
    read_file(&mut krate, Vec::new(), &root, src);
    krate
}

impl Crate {
    /// The module a reference lands in: its longest module prefix, through re-exports.
    fn resolve(&self, path: &[String], depth: usize) -> ModPath {
        let mut len = path.len();
        while len > 0 && !self.modules.contains_key(&path[..len]) {
            len -= 1;
        }
        let module = path[..len].to_vec();
        if depth < 8 && len < path.len() {
            if let Some(target) = self.modules[&module].imports.get(&path[len]) {
                let mut next = target.clone();
                next.extend(path[len + 1..].iter().cloned());
                if next != path {
                    return self.resolve(&next, depth + 1);
                }
            }
        }
        module
    }

    /// The sibling edges (parent, from child, to child) of every reference.
    fn sibling_edges(&self) -> BTreeSet<(ModPath, String, String)> {
        let mut edges = BTreeSet::new();
        for (at, module) in &self.modules {
            for reference in &module.references {
                let target = self.resolve(reference, 0);
                let common = at.iter().zip(&target).take_while(|(a, b)| a == b).count();
                if common == at.len() || common == target.len() {
                    continue;
                }
                edges.insert((
                    at[..common].to_vec(),
                    at[common].clone(),
                    target[common].clone(),
                ));
            }
        }
        edges
    }

    /// Every cycle among siblings, one per strongly connected group, as `parent: a -> b -> a`.
    fn cycles(&self) -> Vec<String> {
        let mut by_parent: BTreeMap<ModPath, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
        for (parent, from, to) in self.sibling_edges() {
            by_parent
                .entry(parent)
                .or_default()
                .entry(from)
                .or_default()
                .insert(to);
        }
        let mut found = Vec::new();
        for (parent, graph) in by_parent {
            let mut reported: BTreeSet<String> = BTreeSet::new();
            for start in graph.keys() {
                if reported.contains(start) {
                    continue;
                }
                if let Some(cycle) = shortest_cycle(&graph, start) {
                    reported.extend(cycle.iter().cloned());
                    let place = if parent.is_empty() {
                        "crate".to_string()
                    } else {
                        format!("crate::{}", parent.join("::"))
                    };
                    found.push(format!("{place}: {} -> {start}", cycle.join(" -> ")));
                }
            }
        }
        found
    }
}

/// The shortest path from `start` back to itself, if there is one.
fn shortest_cycle(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut previous: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for next in graph.get(node).into_iter().flatten() {
            if next == start {
                let mut cycle = vec![node.to_string()];
                let mut at = node;
                while at != start {
                    at = previous[at];
                    cycle.push(at.to_string());
                }
                cycle.reverse();
                return Some(cycle);
            }
            if !previous.contains_key(next.as_str()) {
                previous.insert(next, node);
                queue.push_back(next);
            }
        }
    }
    None
}

#[test]
fn no_crate_has_a_module_cycle() {
    let mut failures = Vec::new();
    let mut modules = 0;
    for src in CRATES {
        let krate = read_crate(&root().join(src));
        modules += krate.modules.len();
        for cycle in krate.cycles() {
            failures.push(format!("{src}: {cycle}"));
        }
    }
    assert!(modules > 20, "only {modules} modules were found");
    assert!(
        failures.is_empty(),
        "module cycles (make one side depend on the other only, moving what both need below \
         them):\n{}",
        failures.join("\n")
    );
}

/// Bottom-up: the library crates by layer, as (folder, package) (the crate map of
/// docs/design.md). A crate's `[dependencies]` name workspace crates of lower layers only: the
/// ABI and the native kernels' run-time support at the bottom, depending on nothing of ours;
/// the compiler; the macros (which run the compiler) and the runtime (which knows nothing of
/// the compiler); the `amp` facade.
const CRATE_LAYERS: &[&[(&str, &str)]] = &[
    &[("amp-abi", "amp-abi"), ("amp-native-rt", "amp-native-rt")],
    &[("amp-spirv", "amp-spirv")],
    &[("amp-macros", "amp-macros"), ("amp-runtime", "amp-runtime")],
    &[(".", "amp")],
];

/// The package names listed in the `[dependencies]` table of the manifest `toml` (one per line,
/// `name = ..` or `name.workspace = true`).
fn dependencies(toml: &str) -> Vec<String> {
    let mut in_deps = false;
    let mut names = Vec::new();
    for line in toml.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
        } else if in_deps && !line.is_empty() && !line.starts_with('#') {
            let key = line.split(['=', '.']).next().unwrap_or("").trim();
            names.push(key.to_string());
        }
    }
    names
}

#[test]
fn crates_depend_only_on_the_layers_below() {
    let layer_of = |package: &str| {
        CRATE_LAYERS
            .iter()
            .position(|l| l.iter().any(|(_, p)| *p == package))
    };
    let mut violations = Vec::new();
    for (layer, crates) in CRATE_LAYERS.iter().enumerate() {
        for (folder, package) in *crates {
            let toml = std::fs::read_to_string(root().join(folder).join("Cargo.toml"))
                .expect("reading a manifest");
            for dep in dependencies(&toml) {
                match layer_of(&dep) {
                    Some(l) if l >= layer => violations.push(format!(
                        "`{package}` (layer {layer}) depends on `{dep}` (layer {l})"
                    )),
                    _ => {}
                }
            }
        }
    }
    assert!(
        violations.is_empty(),
        "crate layer violations:\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_manifest_reader_finds_dependencies() {
    let toml = "[package]\nname = \"x\"\n\n[dependencies]\n# a comment\namp-abi.workspace = true\n\
                rayon = \"1\"\n\n[dev-dependencies]\namp-runtime.workspace = true\n";
    assert_eq!(dependencies(toml), ["amp-abi", "rayon"]);
}

/// Bottom-up: `amp-runtime`'s top-level modules by layer (the "Runtime layers" section of
/// docs/design.md). A module uses only modules of its own layer or the layers below.
const RUNTIME_LAYERS: &[&[&str]] = &[
    &[
        "config",
        "dims",
        "error",
        "extent",
        "fault",
        "kernel",
        "native_rt",
        "normalized",
        "numeric",
        "outer_const",
        "scalar",
        "short_vector",
        "sync",
    ],
    &["device"],
    &["memory"],
    &["data", "texture"],
    &["exec"],
];

#[test]
fn runtime_modules_use_only_their_layer_and_the_ones_below() {
    let krate = read_crate(&root().join("amp-runtime/src"));
    let layer_of = |name: &str| RUNTIME_LAYERS.iter().position(|l| l.contains(&name));
    let mut violations = Vec::new();
    for module in krate.modules.keys().filter(|m| m.len() == 1) {
        if layer_of(&module[0]).is_none() {
            violations.push(format!("`{}` is in no layer", module[0]));
        }
    }
    for (parent, from, to) in krate.sibling_edges() {
        if !parent.is_empty() {
            continue;
        }
        if let (Some(a), Some(b)) = (layer_of(&from), layer_of(&to)) {
            if b > a {
                violations.push(format!("`{from}` (layer {a}) uses `{to}` (layer {b})"));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "layer violations in amp-runtime:\n{}",
        violations.join("\n")
    );
}

#[test]
fn no_source_file_is_too_long() {
    let mut too_long = Vec::new();
    for src in CRATES {
        for file in read_crate(&root().join(src)).files {
            let lines = std::fs::read_to_string(&file)
                .expect("reading a source file")
                .lines()
                .count();
            if lines > MAX_LINES {
                let shown = file
                    .strip_prefix(root())
                    .unwrap_or(&file)
                    .display()
                    .to_string();
                too_long.push(format!("{shown} ({lines} lines)"));
            }
        }
    }
    assert!(
        too_long.is_empty(),
        "source files over {MAX_LINES} lines (split them by job):\n{}",
        too_long.join("\n")
    );
}

#[test]
fn the_checker_finds_a_cycle_between_siblings() {
    let file: syn::File = syn::parse_quote! {
        mod a { use crate::b::B; pub struct A; }
        mod b { pub struct B(crate::c::C); }
        mod c { pub struct C(crate::A); }
        mod d { pub fn f() { let _ = super::a::A; } }
        pub use a::A;
    };
    let mut krate = Crate {
        modules: BTreeMap::new(),
        files: Vec::new(),
    };
    read_module(
        &mut krate,
        Vec::new(),
        &file.items,
        Path::new("."),
        Path::new("."),
    );
    assert_eq!(krate.cycles(), ["crate: a -> b -> c -> a"]);
}

/// Every variant of `amp::Error` is documented (when it happens) and made somewhere in the
/// library: a variant nothing returns is a promise to users that no code keeps.
#[test]
fn every_error_variant_is_documented_and_returned_somewhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(root.join("amp-runtime/src/error.rs")).expect("error.rs");
    let file = syn::parse_file(&source).expect("error.rs parses");
    let error = file
        .items
        .iter()
        .find_map(|item| match item {
            syn::Item::Enum(e) if e.ident == "Error" => Some(e),
            _ => None,
        })
        .expect("the Error enum");
    // The library's sources, error.rs included (its `Error::vk` maps Vulkan results).
    let mut library = String::new();
    for dir in ["amp-runtime/src", "src"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).expect("a source folder").flatten() {
                let p = entry.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    library.push_str(&std::fs::read_to_string(&p).expect("a source file"));
                }
            }
        }
    }
    let mut problems = Vec::new();
    for v in &error.variants {
        let name = v.ident.to_string();
        if !v.attrs.iter().any(|a| a.path().is_ident("doc")) {
            problems.push(format!("`{name}` has no documentation"));
        }
        let made = [
            format!("Error::{name} {{"),
            format!("Error::{name}("),
            format!("Error::{name})"),
            format!("Error::{name},"),
            format!("Error::{name};"),
            format!("Error::{name}\n"),
        ];
        if !made.iter().any(|m| library.contains(m.as_str())) {
            problems.push(format!("`{name}` is never returned by the library"));
        }
    }
    assert!(problems.is_empty(), "amp::Error:\n{}", problems.join("\n"));
}
