//! Compile-pass tests of `#[kernel(amp)]`: each file under `tests/pass/` sits near the edge of a
//! rule or an analysis (a barrier under a condition that is uniform after all, the constructs
//! the language does allow, `allow(...)` on a kernel that would warn) and must build and run its
//! empty `main`. Files that start with `#![deny(deprecated)]` also prove that the kernel gives no
//! amp warning, since amp's warnings are deprecation warnings at the finding.

#[test]
fn pass() {
    let t = trybuild::TestCases::new();
    t.pass("tests/pass/*.rs");
}
