//! Compile-fail tests of `#[kernel(amp)]`: each file under `tests/ui/` breaks a rule of the
//! kernel language, and its `.stderr` holds the diagnostics rustc shows for it: the rule, the
//! offending tokens and the fix. Regenerate them after a deliberate change to a message with
//! `TRYBUILD=overwrite cargo test --test ui`, and read the diff.
//!
//! `tests/ui/build/` holds the errors that only a full build finds: assertions in `const`
//! blocks of the generated launcher (tile sizes and `tile_static` bytes that depend on named
//! constants), which rustc evaluates when it generates code, not under `cargo check`. The pass
//! case there makes trybuild build rather than check that folder.

#[test]
fn ui() {
    {
        let t = trybuild::TestCases::new();
        t.compile_fail("tests/ui/*.rs");
    }
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/build/*_at_limit.rs");
    t.compile_fail("tests/ui/build/*_too_large.rs");
}
