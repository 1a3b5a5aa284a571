//! What each back end makes of the kernel language, kept per feature and per back end (as
//! naga keeps `tests/in` and `tests/out/<backend>`): every file `tests/snapshots/in/<feature>.rs`
//! is a few kernels that show one decision of the compiler, and its output is checked in as
//! `tests/snapshots/out/spirv/<feature>.spvasm` (the modules' disassembly, each validated by
//! `spirv-val`) and `tests/snapshots/out/native/<feature>.rs` (the native back end's Rust,
//! formatted, as `AMP_DUMP_NATIVE` writes it). A change to either back end shows in the diff of
//! the feature it touches; rerun with `AMP_BLESS=1` after a deliberate change and review it.
//!
//! A kernel is compiled with bounds checks unless its name ends in `_unchecked`.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The feature files, by name, in a stable order.
fn features(root: &Path) -> Vec<(String, String)> {
    let dir = root.join("tests/snapshots/in");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("tests/snapshots/in exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| {
            let name = p
                .file_stem()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            let source = std::fs::read_to_string(&p).expect("reading a feature file");
            (name, source)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn each_feature_matches_its_snapshots_on_both_back_ends() {
    let root = root();
    let (mut spirv, mut native, mut failures) = (Vec::new(), Vec::new(), Vec::new());
    let features = features(&root);
    assert!(
        !features.is_empty(),
        "no feature files in tests/snapshots/in"
    );
    for (feature, source) in &features {
        let parsed = syn::parse_file(source).unwrap_or_else(|e| panic!("{feature}.rs: {e}"));
        let kernels = amp_spirv::kernels_in_file(&parsed);
        assert!(!kernels.is_empty(), "{feature}.rs has no kernel");
        let file_options = amp_spirv::Options::from_file(&parsed);
        let (mut spv_text, mut rust_text) = (String::new(), String::new());
        for func in &kernels {
            let name = func.sig.ident.to_string();
            let options = amp_spirv::Options {
                unchecked: name.ends_with("_unchecked"),
                ..file_options.clone()
            };
            match amp_spirv::compile_with(func, &options) {
                Ok(k) => {
                    if let Err(e) = amp_test_support::spirv_val(&k.spirv) {
                        failures.push(format!("{feature}: spirv-val rejects `{name}`:\n{e}"));
                    }
                    let dis = amp_test_support::spirv_dis(&k.spirv)
                        .unwrap_or_else(|e| panic!("spirv-dis on {name}: {e}"));
                    spv_text.push_str(&format!("; ===== kernel `{name}` =====\n{dis}"));
                }
                Err(d) => failures.push(format!("{feature}: `{name}` does not compile:\n{d}")),
            }
            match amp_spirv::compile_native(func, &options, "rt", "thread") {
                Ok(k) => {
                    rust_text.push_str(&format!("// ===== kernel `{name}` =====\n"));
                    if let Some(why) = &k.unbatched {
                        rust_text.push_str(&format!("// one thread at a time: {why}\n"));
                    }
                    rust_text.push_str(&k.source());
                }
                Err(e) => failures.push(format!("{feature}: `{name}` has no native code: {e}")),
            }
        }
        let out = root.join("tests/snapshots/out");
        spirv.push((out.join(format!("spirv/{feature}.spvasm")), spv_text));
        native.push((out.join(format!("native/{feature}.rs")), rust_text));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let out = root.join("tests/snapshots/out");
    let mut problems = amp_test_support::check_snapshots(&out.join("spirv"), "spvasm", &spirv);
    problems.extend(amp_test_support::check_snapshots(
        &out.join("native"),
        "rs",
        &native,
    ));
    assert!(
        problems.is_empty(),
        "{} snapshots differ (after a deliberate change to the generated code, rerun with \
         AMP_BLESS=1 and review the diff of tests/snapshots/out):\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}
