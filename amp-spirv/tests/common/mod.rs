//! `spirv-val` for the compiler's tests: found where SPIRV-Tools installs it, never skipped.

#![allow(dead_code)] // each test file uses what it needs

use std::path::PathBuf;

/// The `spirv-val` binary, or a failure that says how to install it.
pub fn spirv_val() -> PathBuf {
    amp_test_support::tool("spirv-val")
}

/// Runs `spirv-val --target-env vulkan1.1` on a module; `Err` holds the validator's output.
pub fn spirv_val_words(words: &[u32]) -> Result<(), String> {
    amp_test_support::spirv_val(words)
}

/// Fails the test with the validator's output unless `words` is valid.
pub fn assert_valid(words: &[u32]) {
    if let Err(e) = spirv_val_words(words) {
        panic!("spirv-val: {e}");
    }
}
