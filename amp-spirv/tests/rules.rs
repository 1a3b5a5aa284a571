//! The rules of the kernel language against their documentation and their compile-fail cases:
//! every [`Rule`] has its section in `docs/restrictions.md`, the section names its cases in
//! `tests/ui/` (a `- ui:` line), and one of those cases reports that rule.
//!
//! The ui cases are compiled here with the library API, as `tests/spirv_val_all.rs` compiles
//! the passing kernels: each kernel of a case with the case's device functions and structs, each
//! device function and each struct definition on its own. A few rules are reported by the
//! attribute macros or by rustc rather than by this crate; [`REPORTED_ELSEWHERE`] names their
//! cases, whose checked-in `.stderr` must hold the message (amp-macros' own unit tests check
//! which rule its attribute errors carry).

use amp_spirv::Rule;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The rules whose ui case fails outside this crate's diagnostics: the ui case, and a part of
/// the error rustc prints for it.
const REPORTED_ELSEWHERE: &[(Rule, &str, &str)] = &[
    // `amp-macros` parses the attribute's arguments.
    (
        Rule::AttributeIsAmp,
        "rule_attr_not_amp.rs",
        "expected `#[kernel(amp)]`",
    ),
    (
        Rule::AttributeOptions,
        "rule_attr_bad_option.rs",
        "expected `#[kernel(amp)]`",
    ),
    (
        Rule::UncheckedOnce,
        "rule_attr_unchecked_twice.rs",
        "`unchecked` is given twice",
    ),
    (
        Rule::AllowKnownLint,
        "rule_attr_unknown_lint.rs",
        "unknown amp warning `bank_conflicts`",
    ),
    (
        Rule::KernelIsAFunction,
        "rule_attr_not_a_function.rs",
        "applies to free functions",
    ),
    // rustc finds no definition macro for a struct without the derive.
    (
        Rule::StructDerive,
        "struct_without_derive.rs",
        "cannot find macro `__amp_device_struct_Plain`",
    ),
];

#[test]
fn every_rule_has_its_section() {
    let path = repo_root().join("docs/restrictions.md");
    let doc = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let missing: Vec<&str> = Rule::ALL
        .iter()
        .map(|r| r.id())
        .filter(|id| !doc.contains(&format!("#### `{id}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/restrictions.md has no `#### `<id>`` section for: {missing:?}"
    );
}

#[test]
fn rule_ids_are_distinct() {
    let ids: BTreeSet<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
    assert_eq!(ids.len(), Rule::ALL.len());
}

/// The `tests/ui/` cases each rule's section of docs/restrictions.md names on its `- ui:` line
/// (which may wrap onto indented lines), by rule id.
fn documented_cases(doc: &str) -> BTreeMap<String, Vec<String>> {
    let mut cases: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut section: Option<String> = None;
    let mut in_ui_line = false;
    for line in doc.lines() {
        if let Some(rest) = line.strip_prefix("#### `") {
            section = rest.split('`').next().map(str::to_string);
            in_ui_line = false;
            continue;
        }
        in_ui_line = line.starts_with("- ui:") || (in_ui_line && line.starts_with("  "));
        if let (true, Some(id)) = (in_ui_line, &section) {
            let names = line
                .split('`')
                .skip(1)
                .step_by(2)
                .filter(|n| n.ends_with(".rs"))
                .map(str::to_string);
            cases.entry(id.clone()).or_default().extend(names);
        }
    }
    cases
}

/// The rules of the diagnostics the ui case `file` produces through the library.
fn rules_reported_by(file: &Path) -> BTreeSet<Rule> {
    let source = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
    let mut rules = BTreeSet::new();
    let Ok(parsed) = syn::parse_file(&source) else {
        return rules;
    };
    let options = amp_spirv::Options::from_file(&parsed);
    for def in &options.structs {
        rules.extend(
            amp_spirv::check_struct_definition(def)
                .iter()
                .map(|d| d.rule),
        );
    }
    for device_fn in &options.device_fns {
        if let Err(diags) = amp_spirv::check_device_fn_with(&device_fn.func, &options.structs) {
            rules.extend(diags.iter().map(|d| d.rule));
        }
    }
    for kernel in amp_spirv::kernels_in_file(&parsed) {
        if let Err(diags) = amp_spirv::compile_with(&kernel, &options) {
            rules.extend(diags.iter().map(|d| d.rule));
        }
    }
    rules
}

#[test]
fn every_rule_is_reported_by_a_case_its_section_names() {
    let doc = std::fs::read_to_string(repo_root().join("docs/restrictions.md"))
        .expect("docs/restrictions.md");
    let documented = documented_cases(&doc);
    let ui = repo_root().join("tests/ui");
    let mut problems = Vec::new();
    for &rule in Rule::ALL {
        let id = rule.id();
        let cases = documented.get(id).map(Vec::as_slice).unwrap_or_default();
        if cases.is_empty() {
            problems.push(format!(
                "`{id}`: its section has no `- ui:` line naming a case"
            ));
            continue;
        }
        if let Some(&(_, case, message)) = REPORTED_ELSEWHERE.iter().find(|(r, ..)| *r == rule) {
            let stderr = ui.join(case).with_extension("stderr");
            let text = std::fs::read_to_string(&stderr).unwrap_or_default();
            if !cases.iter().any(|c| c == case) {
                problems.push(format!("`{id}`: its section does not name {case}"));
            } else if !text.contains(message) {
                problems.push(format!("`{id}`: {} lacks {message:?}", stderr.display()));
            }
            continue;
        }
        if !cases
            .iter()
            .any(|c| rules_reported_by(&ui.join(c)).contains(&rule))
        {
            problems.push(format!("`{id}`: none of {cases:?} reports it"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
