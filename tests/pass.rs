//! Compile-pass cases of `#[kernel(amp)]`: each file under `tests/pass/` sits near the edge of a
//! rule or an analysis (a barrier under a condition that is uniform after all, the constructs
//! the language does allow, `allow(...)` on a kernel that would warn). Each is a module of this
//! one test binary, so the cases build with the rest of the suite instead of in a project of
//! their own. A file that starts with `#![deny(deprecated)]` proves that its kernels give no amp
//! warning (amp's warnings are deprecation warnings at the finding);
//! `warnings_do_not_fail_the_build.rs` holds `#![expect(deprecated)]`, which proves the warning
//! is given and is no more than a warning (`clippy -D warnings` fails an unmet expectation).

// The cases' kernels are compiled, not launched: their launchers go unused.
#![allow(dead_code)]

#[path = "pass/allow_bank_conflict.rs"]
mod allow_bank_conflict;
#[path = "pass/allow_every_lint.rs"]
mod allow_every_lint;
#[path = "pass/analyses_near_misses.rs"]
mod analyses_near_misses;
#[path = "pass/barrier_after_per_thread_control_flow.rs"]
mod barrier_after_per_thread_control_flow;
#[path = "pass/barrier_after_uniform_return.rs"]
mod barrier_after_uniform_return;
#[path = "pass/barrier_tile_static_condition.rs"]
mod barrier_tile_static_condition;
#[path = "pass/barrier_uniform_conditions.rs"]
mod barrier_uniform_conditions;
#[path = "pass/barrier_uniform_loops.rs"]
mod barrier_uniform_loops;
#[path = "pass/const_items_in_body.rs"]
mod const_items_in_body;
#[path = "pass/let_tuple_and_shadowing.rs"]
mod let_tuple_and_shadowing;
#[path = "pass/nested_loops.rs"]
mod nested_loops;
#[path = "pass/tile_reduction.rs"]
mod tile_reduction;
#[path = "pass/warnings_do_not_fail_the_build.rs"]
mod warnings_do_not_fail_the_build;

/// The cases above are the test: this binary builds only if every one of them does, under the
/// lint levels its file sets. This checks that every file under `tests/pass/` is one of them,
/// so that a new case cannot go unbuilt.
#[test]
fn every_case_file_is_a_module_here() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let this = std::fs::read_to_string(root.join("tests/pass.rs")).expect("tests/pass.rs");
    let dir = std::fs::read_dir(root.join("tests/pass")).expect("tests/pass/");
    let mut cases = 0;
    for entry in dir {
        let name = entry.expect("a directory entry").file_name();
        let name = name.to_string_lossy();
        if let Some(stem) = name.strip_suffix(".rs") {
            let module = format!("#[path = \"pass/{stem}.rs\"]\nmod {stem};");
            assert!(
                this.contains(&module),
                "tests/pass/{name} is not a module of tests/pass.rs"
            );
            cases += 1;
        }
    }
    assert!(cases > 0, "no case under tests/pass/");
}
