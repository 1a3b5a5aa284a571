//! Every `#[kernel(amp)]` function in the repository, compiled and checked by `spirv-val`.
//!
//! The test walks the `.rs` files of the repository (`examples/`, `tests/` but not the
//! compile-fail cases of `tests/ui/`, `benches/`, `src/`, and the same folders of the workspace
//! members), finds the kernels with `amp_spirv::kernels_in_file` (top level, inline modules and
//! function bodies), compiles each with `amp_spirv::compile_with` (given the file's
//! `#[amp::device]` functions and `#[derive(DeviceStruct)]` structs, and those of the library
//! crates under `tests/crates/` it names), with bounds checks (the default) and `unchecked`, and
//! runs `spirv-val --target-env vulkan1.1` on both modules.
//!
//! Kernels written inside `macro_rules!` bodies (or produced by other macros) are token trees to
//! `syn`, not items, so they cannot be found this way; the kernels those macros generate are still
//! compiled by `#[kernel(amp)]` when their crate builds, just not validated here.
//!
//! The same walk writes each module's disassembly (`spirv-dis`) into one snapshot per source
//! file, `tests/snapshots/spirv/<path>.spvasm`, checked in and compared here: a change to the
//! compiler that moves one instruction of one kernel fails this test until the snapshots are
//! regenerated on purpose with `AMP_BLESS=1 cargo test --test spirv_val_all` and the diff is
//! reviewed.
//!
//! `spirv-val` and `spirv-dis` are required: run `scripts/setup.sh` to install them. The test
//! fails, never skips, when they are missing.

use std::path::{Path, PathBuf};

/// Folders searched, relative to the repository root and to each workspace member.
const FOLDERS: [&str; 4] = ["examples", "tests", "benches", "src"];

/// Adds to `options` the device functions and structs of the workspace's library crates
/// (`tests/crates/<name>/src/lib.rs`) that `file`, in another crate, names: the functions by
/// their paths from the crate (`amp_kernel_lib::interp::lerp`), which is also what calls through
/// `use` become (`kernels_in_file` rewrites them as the kernel macro does).
fn add_library_items(root: &Path, file: &Path, source: &str, options: &mut amp_spirv::Options) {
    let Ok(entries) = std::fs::read_dir(root.join("tests/crates")) else {
        return;
    };
    for entry in entries.flatten() {
        let lib = entry.path().join("src/lib.rs");
        if !lib.exists() || file == lib {
            continue;
        }
        let krate = entry.file_name().to_string_lossy().replace('-', "_");
        if !source.contains(&format!("{krate}::")) {
            continue;
        }
        let lib_source = std::fs::read_to_string(&lib).expect("reading a library crate");
        let lib_options =
            amp_spirv::Options::from_file(&syn::parse_file(&lib_source).expect("parsing"));
        for f in lib_options.device_fns {
            let mut path = vec![krate.clone()];
            path.extend(f.path.iter().cloned());
            // The library's own `crate::` paths name the library (the kernel macro makes
            // them `$crate::`): its functions answer to `crate::` paths too.
            let mut own = vec!["crate".to_owned()];
            own.extend(f.path.iter().cloned());
            for path in [path, own] {
                options.device_fns.push(amp_spirv::DeviceFnSource {
                    path,
                    func: f.func.clone(),
                    crate_root: None,
                });
            }
        }
        options.structs.extend(lib_options.structs);
    }
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `.rs` files under `dir`, recursively, in a stable order; `tests/ui` is left out, and so
/// is `tests/snapshots` (its kernels are validated and kept per back end by `tests/codegen.rs`).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            let left_out = path
                .file_name()
                .is_some_and(|n| n == "ui" || n == "snapshots")
                && path.parent().is_some_and(|p| p.ends_with("tests"));
            if !left_out {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The workspace members that have their own folders (`amp-spirv`, `amp-runtime`, ...).
fn member_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![root.to_path_buf()];
    let mut members: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("reading the repository root")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir() && p.join("Cargo.toml").is_file())
        .collect();
    members.sort();
    dirs.extend(members);
    dirs
}

/// Runs `spirv-val --target-env vulkan1.1` on `words`; `Err` holds its output.
fn validate(words: &[u32], _tag: &str) -> Result<(), String> {
    amp_test_support::spirv_val(words)
}

/// The module's disassembly, as `spirv-dis` writes it (friendly names, no colour).
fn disassemble(words: &[u32], tag: &str) -> String {
    amp_test_support::spirv_dis(words).unwrap_or_else(|e| panic!("spirv-dis failed on {tag}:\n{e}"))
}

/// Where the snapshot of the kernels of `shown` (a path relative to the root) is kept.
fn snapshot_path(root: &Path, shown: &str) -> PathBuf {
    let name = shown.replace(['/', '\\'], "__");
    root.join("tests/snapshots/spirv")
        .join(format!("{name}.spvasm"))
}

/// Compares (or, with `AMP_BLESS=1`, writes) the snapshots; returns the mismatches.
fn check_snapshots(root: &Path, snapshots: &[(String, String)]) -> Vec<String> {
    let files: Vec<(PathBuf, String)> = snapshots
        .iter()
        .map(|(shown, text)| (snapshot_path(root, shown), text.clone()))
        .collect();
    amp_test_support::check_snapshots(&root.join("tests/snapshots/spirv"), "spvasm", &files)
}

#[test]
fn every_kernel_in_the_repository_validates() {
    let root = repo_root();
    let mut files = Vec::new();
    for dir in member_dirs(&root) {
        for folder in FOLDERS {
            rust_files(&dir.join(folder), &mut files);
        }
    }
    assert!(
        !files.is_empty(),
        "no .rs files found under {}",
        root.display()
    );

    let mut found = 0;
    let mut failures = Vec::new();
    let mut snapshots = Vec::new();
    for file in &files {
        let shown = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        let source =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("cannot read {shown}: {e}"));
        let parsed =
            syn::parse_file(&source).unwrap_or_else(|e| panic!("cannot parse {shown}: {e}"));
        let kernels = amp_spirv::kernels_in_file(&parsed);
        let mut options = amp_spirv::Options::from_file(&parsed);
        add_library_items(&root, file, &source, &mut options);
        if shown.starts_with("examples") && source.contains("#[kernel(amp)]") {
            assert!(
                !kernels.is_empty(),
                "{shown} mentions #[kernel(amp)] but no kernel was found in it"
            );
        }
        let mut snapshot = String::new();
        // A generic kernel is checked in every instance, as the macro compiles it.
        let instances = kernels.into_iter().flat_map(|func| {
            amp_spirv::instantiate(&func).unwrap_or_else(|d| panic!("{shown}: {d}"))
        });
        for instance in instances {
            let func = &instance.func;
            found += 1;
            let name = match instance.bindings.is_empty() {
                true => func.sig.ident.to_string(),
                false => format!("{} [{}]", func.sig.ident, instance.label()),
            };
            // Both the bounds-checked module (the default) and the `unchecked` one.
            for unchecked in [false, true] {
                let options = amp_spirv::Options {
                    unchecked,
                    ..options.clone()
                };
                match amp_spirv::compile_with(func, &options) {
                    Err(diags) => {
                        failures.push(format!("{shown}: `{name}` does not compile:\n{diags}"))
                    }
                    Ok(kernel) => {
                        let tag = format!("{found}-{name}-{unchecked}");
                        if let Err(msg) = validate(&kernel.spirv, &tag) {
                            failures.push(format!(
                                "{shown}: spirv-val rejects `{name}` (unchecked: {unchecked}):\n{msg}"
                            ));
                        }
                        let checks = if unchecked { "unchecked" } else { "checked" };
                        snapshot.push_str(&format!("; ===== kernel `{name}` ({checks}) =====\n"));
                        snapshot.push_str(&disassemble(&kernel.spirv, &tag));
                        // The module with 8- and 16-bit storage, where the kernel has one.
                        if !kernel.spirv_narrow_storage.is_empty() {
                            let tag = format!("{tag}-narrow");
                            if let Err(msg) = validate(&kernel.spirv_narrow_storage, &tag) {
                                failures.push(format!(
                                    "{shown}: spirv-val rejects `{name}` with 8- and 16-bit storage (unchecked: {unchecked}):\n{msg}"
                                ));
                            }
                            snapshot.push_str(&format!(
                                "; ===== kernel `{name}` ({checks}, 8- and 16-bit storage) =====\n"
                            ));
                            snapshot.push_str(&disassemble(&kernel.spirv_narrow_storage, &tag));
                        }
                    }
                }
            }
        }
        if !snapshot.is_empty() {
            snapshots.push((shown, snapshot));
        }
    }
    // The examples alone have five kernels: finding fewer means the search is broken, and the
    // test must not pass on nothing.
    assert!(
        found >= 5,
        "only {found} kernels were found in {} files",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {found} kernels failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    let mismatches = check_snapshots(&root, &snapshots);
    assert!(
        mismatches.is_empty(),
        "{} SPIR-V snapshots differ (after a deliberate change to the generated code, rerun with \
         AMP_BLESS=1 and review the diff of tests/snapshots/spirv):\n\n{}",
        mismatches.len(),
        mismatches.join("\n\n")
    );
    eprintln!(
        "{found} kernels in {} files validated and matched their snapshots",
        files.len()
    );
}
