//! A module-dependency check for a crate's `src/` tree, reusable by any crate of the
//! workspace (`#[path = ".../support/layers.rs"] mod layers;`).
//!
//! Every `crate::a::b::...`, `super::...` and `self::...` path in every file (use trees,
//! expressions, types and macro bodies alike; doc comments are not code and are skipped) is
//! resolved to the module it names. A reference from module `x::p::...` to module `x::q::...`
//! is an edge `p -> q` among the children of `x`; references to an ancestor or a descendant
//! (`super::Item`, a parent using its children) are not. [`sibling_cycles`] reports every
//! cycle among siblings; [`layer_violations`] checks a declared order of the crate's top-level
//! modules. Paths through the crate root's re-exports (`crate::Error` where `lib.rs` has
//! `pub use error::Error`) count as paths to the re-exported item's module.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::str::FromStr;

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

/// A module path below the crate root (`[]` is the root).
pub type ModPath = Vec<String>;

/// The modules of a crate and the module-to-module references between them.
#[derive(Debug, Default)]
pub struct Graph {
    /// Every module: files and inline `mod name { ... }` blocks.
    pub modules: BTreeSet<ModPath>,
    /// `(from, to)` for every resolved reference between distinct modules, deduplicated.
    pub references: BTreeSet<(ModPath, ModPath)>,
}

impl Graph {
    /// Reads every `.rs` file under `src` (a crate's source folder, `lib.rs` or `main.rs` at
    /// its root).
    pub fn read(src: &Path) -> Graph {
        let mut files = Vec::new();
        collect(src, src, &mut files);
        let mut graph = Graph::default();
        graph.modules.insert(Vec::new());
        let mut raw = Vec::new();
        let mut reexports = HashMap::new();
        for (module, path) in &files {
            graph.modules.insert(module.clone());
            let text = std::fs::read_to_string(path).expect("readable source file");
            let tokens = TokenStream::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: does not tokenize: {e:?}", path.display()));
            let mut scan = Scan {
                modules: &mut graph.modules,
                refs: &mut raw,
            };
            scan.tokens(tokens.clone(), module);
            if module.is_empty() {
                root_reexports(tokens, &mut reexports);
            }
        }
        for (from, path) in raw {
            let path = match path.first().and_then(|first| reexports.get(first)) {
                Some(target) if !graph.modules.contains(&path[..1]) => {
                    let mut p: Vec<String> = target.clone();
                    p.extend(path[1..].iter().cloned());
                    p
                }
                _ => path,
            };
            // The longest prefix that is a module.
            let to = (0..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|p| graph.modules.contains(p))
                .unwrap_or_default();
            if from != to {
                graph.references.insert((from, to));
            }
        }
        graph
    }

    /// The sibling edges: for each parent module, `child -> child` with the references that
    /// make each edge (as `from => to` lines).
    pub fn sibling_edges(&self) -> BTreeMap<ModPath, BTreeMap<(String, String), Vec<String>>> {
        let mut out: BTreeMap<ModPath, BTreeMap<(String, String), Vec<String>>> = BTreeMap::new();
        for (from, to) in &self.references {
            let k = from.iter().zip(to).take_while(|(a, b)| a == b).count();
            if k == from.len() || k == to.len() {
                continue; // an ancestor or a descendant
            }
            out.entry(from[..k].to_vec())
                .or_default()
                .entry((from[k].clone(), to[k].clone()))
                .or_default()
                .push(format!("{} => {}", show(from), show(to)));
        }
        out
    }
}

/// `crate::a::b`.
pub fn show(path: &[String]) -> String {
    std::iter::once("crate")
        .chain(path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("::")
}

/// Every cycle among sibling modules of the crate in `src`, one message each (empty when the
/// modules form a hierarchy of acyclic layers).
pub fn sibling_cycles(src: &Path) -> Vec<String> {
    let graph = Graph::read(src);
    let mut messages = Vec::new();
    for (parent, edges) in graph.sibling_edges() {
        let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (a, b) in edges.keys() {
            next.entry(a).or_default().push(b);
        }
        for cycle in cycles(&next) {
            let mut lines = vec![format!(
                "cycle among the children of {}: {}",
                show(&parent),
                cycle.join(" -> ")
            )];
            for pair in cycle.windows(2) {
                let why = &edges[&(pair[0].to_owned(), pair[1].to_owned())];
                lines.extend(why.iter().map(|w| format!("    {w}")));
            }
            messages.push(lines.join("\n"));
        }
    }
    messages
}

/// References from a top-level module to one in a higher layer. `layers` lists the
/// top-level modules bottom-up, one slice per layer; a module may use modules of its own
/// layer (acyclically, see [`sibling_cycles`]) and of the layers below. Every top-level
/// module must be listed.
pub fn layer_violations(src: &Path, layers: &[&[&str]]) -> Vec<String> {
    let graph = Graph::read(src);
    let layer_of = |m: &str| layers.iter().position(|l| l.contains(&m));
    let mut messages = Vec::new();
    for m in graph.modules.iter().filter(|m| m.len() == 1) {
        if layer_of(&m[0]).is_none() {
            messages.push(format!("top-level module `{}` is in no layer", m[0]));
        }
    }
    if let Some(edges) = graph.sibling_edges().get(&Vec::new()) {
        for ((a, b), why) in edges {
            if let (Some(la), Some(lb)) = (layer_of(a), layer_of(b)) {
                if lb > la {
                    messages.push(format!(
                        "`{a}` (layer {la}) uses `{b}` (layer {lb}, above it):\n    {}",
                        why.join("\n    ")
                    ));
                }
            }
        }
    }
    messages
}

/// The elementary cycles through each strongly connected component, one per component (the
/// shortest found from its smallest member), each closed (`a -> b -> a`).
fn cycles<'a>(next: &BTreeMap<&'a str, Vec<&'a str>>) -> Vec<Vec<&'a str>> {
    let nodes: BTreeSet<&str> = next
        .iter()
        .flat_map(|(a, bs)| std::iter::once(*a).chain(bs.iter().copied()))
        .collect();
    let mut reported: BTreeSet<&str> = BTreeSet::new();
    let mut out = Vec::new();
    for &start in &nodes {
        if reported.contains(start) {
            continue;
        }
        // Breadth-first from `start` back to `start`: the shortest cycle through it.
        let mut previous: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        let mut found = false;
        while let Some(n) = queue.pop_front() {
            for &m in next.get(n).map(Vec::as_slice).unwrap_or(&[]) {
                if m == start {
                    // start -> ... -> n -> start, from the breadth-first parents.
                    let mut cycle = vec![n];
                    let mut at = n;
                    while at != start {
                        at = previous[at];
                        cycle.push(at);
                    }
                    cycle.reverse();
                    cycle.push(start);
                    reported.extend(cycle.iter().copied());
                    out.push(cycle);
                    found = true;
                    break;
                }
                if m != start && !previous.contains_key(m) {
                    previous.insert(m, n);
                    queue.push_back(m);
                }
            }
            if found {
                break;
            }
        }
    }
    out
}

/// Every `.rs` file under `dir` with its module path (`a/mod.rs` and `a.rs` are `a`).
fn collect(root: &Path, dir: &Path, out: &mut Vec<(ModPath, std::path::PathBuf)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("readable source folder")
        .map(|e| e.expect("readable entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).expect("under the root");
            let mut module: ModPath = rel
                .with_extension("")
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            out.push((module, path));
        }
    }
}

/// The crate root's `pub use a::b::{X, Y as Z}` items: `X -> [a, b]`, `Z -> [a, b]`.
fn root_reexports(tokens: TokenStream, out: &mut HashMap<String, ModPath>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, t) in tokens.iter().enumerate() {
        if !matches!(t, TokenTree::Ident(id) if id == "use") {
            continue;
        }
        let end = tokens[i..]
            .iter()
            .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ';'))
            .map_or(tokens.len(), |n| i + n);
        let mut trees = Vec::new();
        use_trees(&tokens[i + 1..end], Vec::new(), &mut trees);
        for (path, name) in trees {
            let path = match path.first().map(String::as_str) {
                Some("crate" | "self") => path[1..].to_vec(),
                _ => path,
            };
            if let Some(name) = name {
                out.insert(name, path);
            }
        }
    }
}

/// The paths of a use tree: `(module path, Some(imported name))` per leaf.
fn use_trees(tokens: &[TokenTree], prefix: Vec<String>, out: &mut Vec<(ModPath, Option<String>)>) {
    let mut path = prefix;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Ident(id) if id == "as" => {
                if let Some(TokenTree::Ident(alias)) = tokens.get(i + 1) {
                    let leaf = path.pop();
                    if leaf.is_some() {
                        out.push((path.clone(), Some(alias.to_string())));
                    }
                    return;
                }
                i += 1;
            }
            TokenTree::Ident(id) if id != "pub" => {
                path.push(id.to_string());
                i += 1;
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                for part in inner.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
                {
                    if !part.is_empty() {
                        use_trees(part, path.clone(), out);
                    }
                }
                return;
            }
            TokenTree::Punct(p) if p.as_char() == '*' => {
                out.push((path.clone(), None));
                return;
            }
            _ => i += 1,
        }
    }
    if let Some(leaf) = path.pop() {
        out.push((path, Some(leaf)));
    }
}

struct Scan<'a> {
    modules: &'a mut BTreeSet<ModPath>,
    refs: &'a mut Vec<(ModPath, ModPath)>,
}

impl Scan<'_> {
    /// Records the paths in `tokens`, which belong to module `module`.
    fn tokens(&mut self, tokens: TokenStream, module: &ModPath) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            // `mod name { ... }`: an inline module.
            if let (TokenTree::Ident(kw), Some(TokenTree::Ident(name)), Some(TokenTree::Group(g))) =
                (&tokens[i], tokens.get(i + 1), tokens.get(i + 2))
            {
                if kw == "mod" && g.delimiter() == Delimiter::Brace {
                    let mut inner = module.clone();
                    inner.push(name.to_string());
                    self.modules.insert(inner.clone());
                    self.tokens(g.stream(), &inner);
                    i += 3;
                    continue;
                }
            }
            match &tokens[i] {
                TokenTree::Ident(id)
                    if (id == "crate" || id == "super" || id == "self")
                        && is_path_sep(&tokens, i + 1)
                        && !is_path_sep_before(&tokens, i) =>
                {
                    let end = self.path(&tokens, i, module);
                    i = end;
                }
                TokenTree::Group(g) => {
                    self.tokens(g.stream(), module);
                    i += 1;
                }
                _ => i += 1,
            }
        }
    }

    /// Records the path starting at `tokens[start]` (`crate`, `super` or `self`), a use tree
    /// with braces included; returns the index after it.
    fn path(&mut self, tokens: &[TokenTree], start: usize, module: &ModPath) -> usize {
        let mut base = module.clone();
        let mut segments: Vec<String> = Vec::new();
        let mut i = start;
        let mut relative = true;
        loop {
            match tokens.get(i) {
                Some(TokenTree::Ident(id)) if relative && id == "crate" => {
                    base.clear();
                    relative = false;
                }
                Some(TokenTree::Ident(id)) if relative && id == "super" => {
                    base.pop();
                }
                Some(TokenTree::Ident(id)) if relative && id == "self" => {}
                Some(TokenTree::Ident(id)) => {
                    relative = false;
                    segments.push(id.to_string());
                }
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                    let mut prefix = base.clone();
                    prefix.extend(segments.iter().cloned());
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    let mut trees = Vec::new();
                    use_trees(&inner, Vec::new(), &mut trees);
                    for (path, leaf) in trees {
                        let mut full = prefix.clone();
                        let mut rest = path.into_iter().peekable();
                        // Leading `self`/`super` inside braces are rare; treat `self` as here.
                        while rest.peek().is_some_and(|s| s == "self") {
                            rest.next();
                        }
                        full.extend(rest);
                        full.extend(leaf.filter(|l| l != "self"));
                        self.refs.push((module.clone(), full));
                    }
                    return i + 1;
                }
                _ => break,
            }
            i += 1;
            if is_path_sep(tokens, i) {
                i += 2;
            } else {
                break;
            }
        }
        let mut full = base;
        full.extend(segments);
        self.refs.push((module.clone(), full));
        i
    }
}

/// Whether `tokens[i..]` starts with `::`.
fn is_path_sep(tokens: &[TokenTree], i: usize) -> bool {
    matches!(
        (tokens.get(i), tokens.get(i + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
    )
}

/// Whether `tokens[i]` follows a `::` (so it is not the start of a path).
fn is_path_sep_before(tokens: &[TokenTree], i: usize) -> bool {
    i >= 2 && is_path_sep(tokens, i - 2)
}
