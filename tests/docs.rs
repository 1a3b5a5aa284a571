//! The documentation stays true to the tree: every relative link of README.md and docs/*.md
//! leads to a file that exists (and to a heading of it, for a `#fragment`), every
//! `--example NAME` names an example that exists, and every example is named in README.md.
//! README.md's Rust code block is compiled and run as a doc test of the `amp` crate
//! (`src/lib.rs`).

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
