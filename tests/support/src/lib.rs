//! What the amp-rs test suites (and the benchmark's GLSL baselines) share, written once:
//! finding the SPIRV-Tools and glslang programs, running them on a module, and compiling GLSL
//! compute shaders; and the kernels the suites share (`fixtures/`). Only `std`: every crate of
//! the workspace may use it as a dev-dependency.
//!
//! The programs are required, never skipped: a missing one is a panic (or, for the benchmark,
//! an error) that says which package installs it.

use std::path::{Path, PathBuf};

/// The text of `fixtures/matmul_tiled.rs`: the tiled model's reference kernel (the `tile_static`
/// matrix multiplication), for tests that hand its source to the compiler. The suites that run
/// it `include!` the same file.
pub const MATMUL_TILED: &str = include_str!("../fixtures/matmul_tiled.rs");
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// The Debian package of a program the suites run.
fn package_of(program: &str) -> &'static str {
    match program {
        "glslangValidator" => "glslang-tools",
        _ => "spirv-tools",
    }
}

/// A program the suites need (`spirv-val`, `spirv-dis`, `glslangValidator`), found in
/// `/usr/bin`, `/usr/local/bin` or on `PATH`; `Err` says how to install it.
pub fn find_tool(name: &str) -> Result<PathBuf, String> {
    for dir in ["/usr/bin", "/usr/local/bin"] {
        let p = Path::new(dir).join(name);
        if p.is_file() {
            return Ok(p);
        }
    }
    match Command::new(name).arg("--version").output() {
        Ok(_) => Ok(PathBuf::from(name)),
        Err(_) => Err(format!(
            "{name} was not found: it is required to check the generated code. Run \
             scripts/setup.sh (or install the `{}` package) and test again.",
            package_of(name)
        )),
    }
}

/// [`find_tool`], failing the test when the program is missing.
pub fn tool(name: &str) -> PathBuf {
    find_tool(name).unwrap_or_else(|e| panic!("{e}"))
}

/// A file name in the temporary folder no other call of this process uses.
fn temp_file(prefix: &str, extension: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!(
        "amp-{prefix}-{}-{n}.{extension}",
        std::process::id()
    ))
}

/// The little-endian bytes of SPIR-V `words`.
pub fn spirv_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The SPIR-V words of a module file's `bytes`.
pub fn spirv_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

/// Runs `program args.. <module>` on the module `words`; `Ok` holds its standard output, `Err`
/// all of its output (or why it could not run).
pub fn run_on_module(program: &str, args: &[&str], words: &[u32]) -> Result<String, String> {
    let path = temp_file(program, "spv");
    std::fs::write(&path, spirv_bytes(words))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let out = Command::new(find_tool(program)?)
        .args(args)
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    let out = out.map_err(|e| format!("cannot run {program}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// `spirv-val --target-env vulkan1.1` on `words`; `Err` holds the validator's output.
pub fn spirv_val(words: &[u32]) -> Result<(), String> {
    run_on_module("spirv-val", &["--target-env", "vulkan1.1"], words).map(drop)
}

/// `spirv-dis --no-color` of `words`: the module as text.
pub fn spirv_dis(words: &[u32]) -> Result<String, String> {
    run_on_module("spirv-dis", &["--no-color"], words)
}

/// A GLSL compute shader compiled by `glslangValidator -V --target-env vulkan1.1` to SPIR-V
/// words; `Err` holds the compiler's output (or that it is missing and how to install it).
/// `name` only names the temporary files.
pub fn compile_glsl(name: &str, source: &str) -> Result<Vec<u32>, String> {
    let glslang = find_tool("glslangValidator")?;
    let comp = temp_file(name, "comp");
    let spv = temp_file(name, "spv");
    std::fs::write(&comp, source).map_err(|e| format!("cannot write {}: {e}", comp.display()))?;
    let out = Command::new(glslang)
        .args(["-V", "--target-env", "vulkan1.1", "-o"])
        .arg(&spv)
        .arg(&comp)
        .output()
        .map_err(|e| format!("cannot run glslangValidator: {e}"));
    let _ = std::fs::remove_file(&comp);
    let out = out?;
    if !out.status.success() {
        let _ = std::fs::remove_file(&spv);
        return Err(format!(
            "glslangValidator failed on `{name}`:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let bytes = std::fs::read(&spv).map_err(|e| format!("cannot read {}: {e}", spv.display()));
    let _ = std::fs::remove_file(&spv);
    Ok(spirv_words(&bytes?))
}

/// Compares each `(path, text)` with the file at `path` (or, with `AMP_BLESS=1`, writes it);
/// files with extension `extension` under `dir` that no pair names are stale (removed when
/// blessing). Returns the mismatches, each naming the file and the first differing line.
pub fn check_snapshots(
    dir: &std::path::Path,
    extension: &str,
    snapshots: &[(PathBuf, String)],
) -> Vec<String> {
    let bless = std::env::var_os("AMP_BLESS").is_some_and(|v| v == "1");
    let mut problems = Vec::new();
    for (path, text) in snapshots {
        let old = std::fs::read_to_string(path).ok();
        if old.as_deref() == Some(text.as_str()) {
            continue;
        }
        if bless {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).expect("creating a snapshot folder");
            }
            std::fs::write(path, text).expect("writing a snapshot");
            continue;
        }
        match old {
            None => problems.push(format!("no snapshot at {}", path.display())),
            Some(old) => {
                let first = old
                    .lines()
                    .zip(text.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(old.lines().count().min(text.lines().count()));
                problems.push(format!(
                    "{} differs from line {}:\n  was: {}\n  now: {}",
                    path.display(),
                    first + 1,
                    old.lines().nth(first).unwrap_or("<end>"),
                    text.lines().nth(first).unwrap_or("<end>"),
                ));
            }
        }
    }
    // A snapshot no source asks for any more is stale.
    if let Ok(entries) = std::fs::read_dir(dir) {
        for path in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
            let named = snapshots.iter().any(|(p, _)| *p == path);
            if named || path.extension().is_none_or(|x| x != extension) {
                continue;
            }
            if bless {
                std::fs::remove_file(&path).expect("removing a stale snapshot");
            } else {
                problems.push(format!("stale snapshot {}", path.display()));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glsl_compiles_and_validates() {
        let words = compile_glsl(
            "empty",
            "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n",
        )
        .expect("glslang compiles an empty shader");
        assert_eq!(words[0], 0x0723_0203, "the SPIR-V magic number");
        spirv_val(&words).expect("valid");
        assert!(spirv_dis(&words)
            .expect("disassembles")
            .contains("OpEntryPoint"));
        let err = compile_glsl("broken", "#version 450\nvoid main() { x }\n").unwrap_err();
        assert!(err.contains("broken"), "{err}");
        assert!(spirv_val(&[0x0723_0203, 0, 0]).is_err());
    }
}
