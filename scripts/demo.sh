#!/usr/bin/env bash
# The main demo: vector addition and a 1024 x 1024 matrix multiplication on the default device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo run --release --example vector_add
cargo run --release --example matmul
