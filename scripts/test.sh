#!/usr/bin/env bash
# The whole test suite, on a real Vulkan device (lavapipe when there is no GPU), with the Khronos
# validation layer on: every run-time test asserts that it reported nothing; then the run-time
# suites again on the native CPU accelerator. Formatting
# (rustfmt) and lints (clippy, warnings are errors) are checked first, so style cannot regress
# silently.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

# rustfmt and clippy are rustup components; add them where rustup manages the toolchain.
for component in rustfmt clippy; do
    if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
        if command -v rustup >/dev/null 2>&1; then
            rustup component add "$component"
        else
            echo "cargo ${component/rustfmt/fmt} is missing: install the $component component" >&2
            exit 1
        fi
    fi
done
cargo fmt --all --check
cargo clippy --workspace --all-targets --all-features -- -D warnings

# Every test on the Vulkan device (lavapipe without a GPU), with the validation layer on.
AMP_DEVICE=vulkan AMP_VALIDATION=1 cargo test --workspace --all-features "$@"
# The run-time suites again on the native CPU accelerator: the same kernels, compiled to Rust.
AMP_DEVICE=cpu cargo test -p amp --all-features --test device --test native --test accelerator "$@"
