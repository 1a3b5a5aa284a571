//! `AMP_DUMP_SPIRV` and `AMP_DUMP_NATIVE`: the kernels' code written to files at build time.

use amp_spirv::{CompiledKernel, Scalar};

/// Writes the module to `$AMP_DUMP_SPIRV/<name>.spv` (`<name>-f32.spv` and so on for the
/// instances of a generic kernel) when that variable is set.
pub(crate) fn dump_spirv(kernel: &CompiledKernel, bindings: &[(syn::Ident, Scalar)]) {
    let bytes: Vec<u8> = kernel.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    dump("AMP_DUMP_SPIRV", &kernel.name, bindings, "spv", &bytes);
}

/// Writes `bytes` to `$<variable>/<name><instance>.<extension>` when `variable` is set, where
/// `<instance>` names a generic kernel's instance (`-f32`, ...). Best effort: a failed dump
/// must not fail the user's build.
pub(crate) fn dump(
    variable: &str,
    name: &str,
    bindings: &[(syn::Ident, Scalar)],
    extension: &str,
    bytes: &[u8],
) {
    let Some(dir) = std::env::var_os(variable) else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let suffix: String = bindings
        .iter()
        .map(|(_, s)| format!("-{}", s.name()))
        .collect();
    let _ = std::fs::create_dir_all(&dir)
        .and_then(|_| std::fs::write(dir.join(format!("{name}{suffix}.{extension}")), bytes));
}
