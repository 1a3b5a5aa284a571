#!/usr/bin/env bash
# The main demo: vector addition and a 1024 x 1024 matrix multiplication on the default device.
# `-p amp-examples` builds what the examples use and no more (from the root, cargo would also
# build the root package's dev-dependencies: the test tools).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo run --release -p amp-examples --example vector_add
cargo run --release -p amp-examples --example matmul
