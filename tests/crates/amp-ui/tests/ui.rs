//! Compile-fail tests of `#[kernel(amp)]`: each file under the repository's `tests/ui/` (linked
//! here as `tests/ui`) breaks a rule of the kernel language, and its `.stderr` holds the
//! diagnostics rustc shows for it: the rule, the offending tokens and the fix. Regenerate them
//! after a deliberate change to a message with `TRYBUILD=overwrite cargo test -p amp-ui`, and
//! read the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
