//! `spirv-val` for the compiler's tests: found where SPIRV-Tools installs it, never skipped.

#![allow(dead_code)] // each test file uses what it needs

use std::path::PathBuf;
use std::process::Command;

/// The `spirv-val` binary, or a failure that says how to install it.
pub fn spirv_val() -> PathBuf {
    for p in ["/usr/bin/spirv-val", "/usr/local/bin/spirv-val"] {
        if std::path::Path::new(p).is_file() {
            return PathBuf::from(p);
        }
    }
    match Command::new("spirv-val").arg("--version").output() {
        Ok(out) if out.status.success() => PathBuf::from("spirv-val"),
        _ => panic!(
            "spirv-val (SPIRV-Tools) was not found: it is required to check the generated SPIR-V. \
             Run scripts/setup.sh (or install the `spirv-tools` package) and test again."
        ),
    }
}

/// Runs `spirv-val --target-env vulkan1.1` on a module; `Err` holds the validator's output.
pub fn spirv_val_words(words: &[u32]) -> Result<(), String> {
    let file = tempfile::Builder::new()
        .suffix(".spv")
        .tempfile()
        .expect("a temporary file");
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(file.path(), bytes).expect("writing the module");
    let out = Command::new(spirv_val())
        .args(["--target-env", "vulkan1.1"])
        .arg(file.path())
        .output()
        .expect("running spirv-val");
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Fails the test with the validator's output unless `words` is valid.
pub fn assert_valid(words: &[u32]) {
    if let Err(e) = spirv_val_words(words) {
        panic!("spirv-val: {e}");
    }
}
