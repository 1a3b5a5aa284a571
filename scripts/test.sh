#!/usr/bin/env bash
# The whole test suite, on a real Vulkan device (lavapipe when there is no GPU), with the Khronos
# validation layer on: every run-time test asserts that it reported nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export AMP_VALIDATION=1
cargo test --workspace --all-features "$@"
