//! The documentation stays true to the tree: every relative link of README.md and docs/*.md
//! leads to a file that exists (and to a heading of it, for a `#fragment`), every
//! `--example NAME` names an example that exists, and every example is named in README.md.
//! README.md's layout table names every workspace member and every tracked top-level folder,
//! and only folders that exist; its algorithm list names exactly the public functions and
//! macros of `amp::algorithms`. README.md's Rust code block is compiled and run as a doc test
//! of the `amp` crate (`src/lib.rs`).

use std::collections::BTreeSet;
use std::path::PathBuf;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and the guides under docs/.
fn markdown_files() -> Vec<PathBuf> {
    let root = repo_root();
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The lines of a markdown text outside fenced code blocks.
fn outside_fences(text: &str) -> impl Iterator<Item = &str> {
    let mut fenced = false;
    text.lines().filter(move |line| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            return false;
        }
        !fenced
    })
}

/// The prose of a markdown text: fenced code blocks dropped, inline code spans blanked.
fn prose(text: &str) -> String {
    let mut out = String::new();
    for line in outside_fences(text) {
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
                continue;
            }
            out.push(if in_code { ' ' } else { c });
        }
        out.push('\n');
    }
    out
}

/// The inline-code spans of a markdown text, outside fenced blocks.
fn code_spans(text: &str) -> Vec<String> {
    outside_fences(text)
        .flat_map(|line| line.split('`').skip(1).step_by(2).map(str::to_owned))
        .collect()
}

/// The targets of the `[text](target)` links of a markdown text's prose.
fn link_targets(text: &str) -> Vec<String> {
    let prose = prose(text);
    let mut targets = Vec::new();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        if let Some(end) = rest.find(')') {
            targets.push(rest[..end].to_owned());
            rest = &rest[end..];
        }
    }
    targets
}

/// GitHub's anchor of a heading: lower case, spaces to `-`, punctuation but `-` and `_` gone.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a markdown file's headings (code spans keep their text).
fn anchors(text: &str) -> BTreeSet<String> {
    outside_fences(text)
        .filter(|line| line.starts_with('#'))
        .map(|line| anchor(line.trim_start_matches('#')))
        .collect()
}

#[test]
fn relative_links_lead_to_files_and_headings() {
    let mut broken = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).expect("reading a guide");
        let dir = file.parent().expect("a file has a folder");
        for target in link_targets(&text) {
            if target.starts_with("http://") || target.starts_with("https://") {
                continue;
            }
            let (path, fragment) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target.as_str(), None),
            };
            let linked = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path)
            };
            if !linked.exists() {
                broken.push(format!("{}: `{target}`: no such file", file.display()));
                continue;
            }
            if let Some(fragment) = fragment {
                let text = std::fs::read_to_string(&linked).unwrap_or_default();
                if !anchors(&text).contains(fragment) {
                    broken.push(format!("{}: `{target}`: no such heading", file.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The examples of the `amp-examples` package (`examples/NAME.rs`).
fn examples() -> BTreeSet<String> {
    std::fs::read_dir(repo_root().join("examples"))
        .expect("examples/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .filter_map(|p| Some(p.file_stem()?.to_string_lossy().into_owned()))
        .collect()
}

#[test]
fn named_examples_exist_and_every_example_is_named() {
    let examples = examples();
    let mut missing = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).expect("reading a guide");
        let mut words = text.split_whitespace().peekable();
        while let Some(w) = words.next() {
            if w.trim_matches('`') != "--example" {
                continue;
            }
            let Some(name) = words.peek() else { continue };
            let name: String = name
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() || name == "NAME" {
                continue;
            }
            if !examples.contains(&name) {
                missing.push(format!("{}: `--example {name}`", file.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "no such examples:\n{}",
        missing.join("\n")
    );
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let mut named: BTreeSet<String> = code_spans(&readme).into_iter().collect();
    for span in code_spans(&readme) {
        if let Some((_, after)) = span.split_once("--example ") {
            named.extend(after.split_whitespace().next().map(str::to_owned));
        }
    }
    let unnamed: Vec<&String> = examples.iter().filter(|e| !named.contains(*e)).collect();
    assert!(
        unnamed.is_empty(),
        "examples README.md does not name (as `NAME`): {unnamed:?}"
    );
}

#[test]
fn the_anchor_rule_matches_github() {
    assert_eq!(anchor(" Choosing a device"), "choosing-a-device");
    assert_eq!(
        anchor(" On the native CPU accelerator"),
        "on-the-native-cpu-accelerator"
    );
    assert_eq!(anchor(" `device-fn-signature`"), "device-fn-signature");
    assert_eq!(anchor(" 14. Device functions"), "14-device-functions");
}

/// The paths (without a trailing `/`) in the first cells of the table under README.md's
/// `## Layout` heading.
fn layout_paths(readme: &str) -> BTreeSet<String> {
    let mut in_layout = false;
    let mut paths = BTreeSet::new();
    for line in outside_fences(readme) {
        if line.starts_with("## ") {
            in_layout = line.trim() == "## Layout";
            continue;
        }
        let Some(row) = line.strip_prefix('|') else {
            continue;
        };
        if !in_layout {
            continue;
        }
        let first_cell = row.split('|').next().unwrap_or("");
        for span in first_cell.split('`').skip(1).step_by(2) {
            paths.insert(span.trim_end_matches('/').to_owned());
        }
    }
    paths
}

/// The `members` of the `[workspace]` of the root Cargo.toml.
fn workspace_members() -> Vec<String> {
    let toml = std::fs::read_to_string(repo_root().join("Cargo.toml")).expect("Cargo.toml");
    let at = toml
        .find("\nmembers")
        .expect("the root Cargo.toml has a `members` list");
    let rest = &toml[at..];
    let (open, close) = (
        rest.find('[').expect("`members = [`"),
        rest.find(']').expect("`members = [..]`"),
    );
    rest[open + 1..close]
        .lines()
        .map(|line| line.split('#').next().unwrap_or(""))
        .flat_map(|line| line.split(','))
        .map(|m| m.trim().trim_matches('"').to_owned())
        .filter(|m| !m.is_empty())
        .collect()
}

/// The repository's top-level folders that hold tracked files (`git ls-files`), hidden ones
/// aside; without git, the top-level folders but hidden ones and `target`.
fn top_level_folders() -> BTreeSet<String> {
    let root = repo_root();
    let listed = std::process::Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["ls-files", "-z"])
        .output();
    let visible = |name: &str| !name.starts_with('.');
    match listed {
        Ok(out) if out.status.success() && !out.stdout.is_empty() => {
            String::from_utf8_lossy(&out.stdout)
                .split('\0')
                .filter_map(|path| Some(path.split_once('/')?.0.to_owned()))
                .filter(|folder| visible(folder))
                .collect()
        }
        _ => std::fs::read_dir(&root)
            .expect("the repository root")
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| visible(name) && name != "target")
            .collect(),
    }
}

#[test]
fn the_layout_table_names_every_folder_and_no_other() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let named = layout_paths(&readme);
    assert!(
        !named.is_empty(),
        "README.md has no `## Layout` table whose first column names folders as `path/`"
    );
    let root = repo_root();
    let absent: Vec<&String> = named.iter().filter(|p| !root.join(p).is_dir()).collect();
    assert!(
        absent.is_empty(),
        "README.md's layout table names folders that do not exist: {absent:?}"
    );
    let members = workspace_members();
    assert!(
        !members.is_empty(),
        "the root Cargo.toml lists no workspace members"
    );
    let unnamed_members: Vec<&String> = members.iter().filter(|m| !named.contains(*m)).collect();
    assert!(
        unnamed_members.is_empty(),
        "workspace members (root Cargo.toml) README.md's layout table does not name (as \
         `folder/` in its first column): {unnamed_members:?}"
    );
    let folders = top_level_folders();
    let unnamed_folders: Vec<&String> = folders.iter().filter(|f| !named.contains(*f)).collect();
    assert!(
        unnamed_folders.is_empty(),
        "top-level folders README.md's layout table does not name (as `folder/` in its first \
         column): {unnamed_folders:?}"
    );
}

/// README.md's bullet that starts with `item` (`- **Algorithms**`), its lines joined by spaces,
/// up to the next bullet or paragraph.
fn readme_item(readme: &str, item: &str) -> String {
    let mut lines = outside_fences(readme).skip_while(|line| !line.starts_with(item));
    let first = lines.next().unwrap_or_default();
    let rest = lines.take_while(|line| line.starts_with("  ") && !line.trim().is_empty());
    std::iter::once(first)
        .chain(rest)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The names README.md's **Algorithms** bullet lists in its `amp::algorithms::{..}` code
/// spans (macros with their `!`).
fn readme_algorithms(readme: &str) -> BTreeSet<String> {
    let item = readme_item(readme, "- **Algorithms**");
    item.split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|span| span.strip_prefix("amp::algorithms::{")?.strip_suffix('}'))
        .flat_map(|list| list.split(','))
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .collect()
}

/// Whether an item is `#[doc(hidden)]`.
fn doc_hidden(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        matches!(&a.meta, syn::Meta::List(l) if l.path.is_ident("doc")
            && l.tokens.to_string().contains("hidden"))
    })
}

/// A name a `use` item brings in: the path to the item, the item's own name, and the name it
/// is known by.
type UseName = (Vec<String>, String, String);

/// The names a `use` tree brings in.
fn use_names(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<UseName>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_names(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            out.push((prefix.clone(), name.clone(), name));
        }
        syn::UseTree::Rename(r) => {
            out.push((prefix.clone(), r.ident.to_string(), r.rename.to_string()));
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_names(t, prefix, out);
            }
        }
        syn::UseTree::Glob(_) => {
            panic!("src/algorithms/mod.rs: a glob re-export hides what is public")
        }
    }
}

/// A file of src/algorithms/, parsed.
fn algorithms_file(name: &str) -> syn::File {
    let path = repo_root().join("src/algorithms").join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    syn::parse_file(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

/// The `pub fn`s of a module file of src/algorithms/.
fn pub_fns(file: &syn::File) -> BTreeSet<String> {
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Fn(f) if matches!(f.vis, syn::Visibility::Public(_)) => {
                Some(f.sig.ident.to_string())
            }
            _ => None,
        })
        .collect()
}

/// The `#[macro_export]` macros defined in src/algorithms/*.rs.
fn exported_algorithm_macros() -> BTreeSet<String> {
    let dir = repo_root().join("src/algorithms");
    let mut macros = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).expect("src/algorithms/ exists") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let name = path
            .file_name()
            .expect("a file name")
            .to_string_lossy()
            .into_owned();
        for item in algorithms_file(&name).items {
            if let syn::Item::Macro(m) = item {
                if m.attrs.iter().any(|a| a.path().is_ident("macro_export")) {
                    macros.extend(m.ident.map(|i| i.to_string()));
                }
            }
        }
    }
    macros
}

/// The public functions and macros of `amp::algorithms` (macros with a `!`): what
/// src/algorithms/mod.rs defines or re-exports publicly, `#[doc(hidden)]` and `__` names aside.
/// A re-exported function must be a `pub fn` of its module, a re-exported macro a
/// `#[macro_export]` macro of the crate.
fn algorithms_api() -> BTreeSet<String> {
    let module = algorithms_file("mod.rs");
    let macros = exported_algorithm_macros();
    let public = |vis: &syn::Visibility, attrs: &[syn::Attribute]| {
        matches!(vis, syn::Visibility::Public(_)) && !doc_hidden(attrs)
    };
    let mut api = BTreeSet::new();
    for item in &module.items {
        let mut names = Vec::new();
        match item {
            syn::Item::Fn(f) if public(&f.vis, &f.attrs) => {
                let name = f.sig.ident.to_string();
                if !name.starts_with("__") {
                    api.insert(name);
                }
            }
            syn::Item::Use(u) if public(&u.vis, &u.attrs) => {
                use_names(&u.tree, &mut Vec::new(), &mut names);
            }
            _ => {}
        }
        for (path, own, known) in names.into_iter().filter(|(_, _, k)| !k.starts_with("__")) {
            match path.first().map(String::as_str) {
                Some("crate") => {
                    assert!(
                        macros.contains(&own),
                        "amp::algorithms::{known} re-exports `crate::{own}`, which is no \
                         #[macro_export] macro of src/algorithms/ (this test reads only macros \
                         from `crate::`)"
                    );
                    api.insert(format!("{known}!"));
                }
                Some(submodule) if path.len() == 1 => {
                    let file = algorithms_file(&format!("{submodule}.rs"));
                    if pub_fns(&file).contains(&own) {
                        api.insert(known);
                    }
                }
                _ => panic!(
                    "src/algorithms/mod.rs: a re-export this test does not read: {path:?}::{own}"
                ),
            }
        }
    }
    api
}

#[test]
fn the_algorithm_list_names_exactly_the_public_api_of_amp_algorithms() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let listed = readme_algorithms(&readme);
    assert!(
        !listed.is_empty(),
        "README.md's `- **Algorithms**` item lists nothing as `amp::algorithms::{{..}}`"
    );
    let api = algorithms_api();
    assert!(
        api.len() > 10,
        "only {api:?} found public in src/algorithms/mod.rs"
    );
    let unlisted: Vec<&String> = api.difference(&listed).collect();
    let not_public: Vec<&String> = listed.difference(&api).collect();
    assert!(
        unlisted.is_empty() && not_public.is_empty(),
        "README.md's algorithm list (`amp::algorithms::{{..}}` spans of its **Algorithms** item, \
         macros with `!`) and amp::algorithms differ:\n  public but not listed: {unlisted:?}\n  \
         listed but not public functions or macros of amp::algorithms: {not_public:?}"
    );
}

/// The README's table of environment variables lists exactly the settings of
/// `amp_abi::settings::SETTINGS`, in its order, each run-time one with its `Config` method.
#[test]
fn the_settings_table_is_the_list_of_settings() {
    use amp_spirv::abi::settings::{Phase, SETTINGS};
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let rows: Vec<&str> = outside_fences(&readme)
        .filter(|line| line.starts_with("| `AMP_"))
        .collect();
    let named: Vec<&str> = rows
        .iter()
        .filter_map(|row| row["| `".len()..].split(['=', '`']).next())
        .collect();
    let listed: Vec<&str> = SETTINGS.iter().map(|s| s.name).collect();
    assert_eq!(
        named, listed,
        "README.md's table of environment variables is not the list of settings"
    );
    for (row, setting) in rows.iter().zip(SETTINGS) {
        match (setting.phase, setting.config) {
            (Phase::Run, Some(method)) => assert!(
                row.contains(&format!("(`{method}`")),
                "the row of {} does not name `Config::{method}`: {row}",
                setting.name
            ),
            _ => assert!(
                row.contains("build time"),
                "the row of {} does not say it is read at build time: {row}",
                setting.name
            ),
        }
    }
}
