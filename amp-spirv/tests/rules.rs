//! The rules of the kernel language against their documentation and their compile-fail cases:
//! every [`Rule`] has its section in `docs/restrictions.md`, and at least one case in
//! `tests/ui/` reports it.
//!
//! The ui cases are compiled here with the library API, as `tests/spirv_val_all.rs` compiles
//! the passing kernels: each kernel of a case with the case's device functions and structs, each
//! device function and each struct definition on its own. A few rules are reported by the
//! attribute macros or by rustc rather than by this crate; [`REPORTED_ELSEWHERE`] names their
//! cases, whose checked-in `.stderr` must hold the message.

use amp_spirv::Rule;
use std::collections::BTreeSet;
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
    // A vector or struct parameter is accepted; its cost shows in the push-constant limit.
    (
        Rule::VectorParams,
        "struct_param_too_large.rs",
        "more than the 128 bytes of push constants",
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

/// The rules of the diagnostics the cases in `tests/ui/` produce through the library.
fn rules_reported_by_ui_cases(ui: &Path) -> BTreeSet<Rule> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(ui)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", ui.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no ui cases in {}", ui.display());
    let mut rules = BTreeSet::new();
    for file in &files {
        let source = std::fs::read_to_string(file).expect("a readable ui case");
        let Ok(parsed) = syn::parse_file(&source) else {
            continue;
        };
        let options = amp_spirv::Options {
            device_fns: amp_spirv::device_fns_in_file(&parsed),
            structs: amp_spirv::device_structs_in_file(&parsed),
            ..Default::default()
        };
        for def in &options.structs {
            rules.extend(
                amp_spirv::check_struct_definition(def)
                    .iter()
                    .map(|d| d.rule),
            );
        }
        for device_fn in &options.device_fns {
            if let Err(diags) = amp_spirv::check_device_fn(&device_fn.func) {
                rules.extend(diags.iter().map(|d| d.rule));
            }
        }
        for kernel in amp_spirv::kernels_in_file(&parsed) {
            if let Err(diags) = amp_spirv::compile_with(&kernel, &options) {
                rules.extend(diags.iter().map(|d| d.rule));
            }
        }
    }
    rules
}

#[test]
fn every_rule_has_a_ui_case() {
    let ui = repo_root().join("tests/ui");
    let mut covered = rules_reported_by_ui_cases(&ui);
    for &(rule, case, message) in REPORTED_ELSEWHERE {
        let stderr = ui.join(case).with_extension("stderr");
        let text = std::fs::read_to_string(&stderr)
            .unwrap_or_else(|e| panic!("`{}`: cannot read {}: {e}", rule.id(), stderr.display()));
        assert!(
            text.contains(message),
            "`{}`: {} does not contain {message:?}",
            rule.id(),
            stderr.display()
        );
        covered.insert(rule);
    }
    let missing: Vec<&str> = Rule::ALL
        .iter()
        .filter(|r| !covered.contains(r))
        .map(|r| r.id())
        .collect();
    assert!(
        missing.is_empty(),
        "no case in tests/ui/ reports these rules: {missing:?}"
    );
}
