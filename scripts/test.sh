#!/usr/bin/env bash
# The whole test suite, on a real Vulkan device (lavapipe when there is no GPU), with the Khronos
# validation layer on: every run-time test asserts that it reported nothing; then the run-time
# suites again on the native CPU accelerator. Formatting
# (rustfmt) and lints (clippy, warnings are errors) are checked first, so style cannot regress
# silently.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

# A fresh checkout (as CI's clean clone) gains nothing from the state incremental compilation
# saves, which costs time to write: off where no earlier build exists.
if [ ! -d target/debug ]; then
    export CARGO_INCREMENTAL=0
fi

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
# The published crates package: each manifest is complete (description, license, versions on
# every path dependency, no unpublished dependency), the files it names exist, and the crates
# resolve against one another as they would on crates.io. `--no-verify` skips building each
# package from scratch in a target of its own (minutes on two cores; the test run below builds
# the same sources); this check takes a few seconds.
cargo package --no-verify --allow-dirty --quiet \
    -p amp-abi -p amp-native-rt -p amp-spirv -p amp-macros -p amp-runtime -p amp
# The API documentation of the published crates with rustdoc's warnings as errors (broken
# intra-doc links and the like), as docs.rs builds it (all features): about 40 s on two cores
# after the lints (rustdoc checks the dependencies again with its own feature set).
RUSTDOCFLAGS="-D warnings" cargo doc --all-features --no-deps --quiet \
    -p amp-abi -p amp-native-rt -p amp-spirv -p amp-macros -p amp-runtime -p amp

# Every test on the Vulkan device (lavapipe without a GPU), with the validation layer on; the
# device suite runs again on the native CPU accelerator from there (its test
# `every_device_test_on_the_other_accelerator`).
AMP_DEVICE=vulkan AMP_VALIDATION=1 cargo test --workspace --all-features "$@"
# The later runs select their test binaries from the whole workspace, as the run above did, so
# that cargo unifies the same dependency features and reuses its build (`-p amp` alone would
# build the dependencies again with fewer features: about two minutes on two cores).
# The device suite on a simulated discrete GPU (docs/data-model.md): data in device memory,
# every transfer through staging buffers, mappings treated as non-coherent, a discrete GPU's
# limits, the validation layer's best-practices checks on, deferred launches, and a GPU's
# launch shape (256 threads of four indices), so that every device test runs through the
# grid-stride loop too.
AMP_DEVICE=vulkan AMP_VALIDATION=1 AMP_SIMULATE_DISCRETE=1 \
    cargo test --workspace --all-features --test device --test faults "$@" \
    -- --skip every_device_test_on_the_other_accelerator
# The same device with every launch waited for (`AMP_SYNC_LAUNCHES=1`), which must agree: the
# faults, and the device tests whose launches, waits and host accesses interleave (data model,
# asynchrony, ping-pong buffers, the model-based test, reuse, errors reported by launches).
sync_env=(AMP_DEVICE=vulkan AMP_VALIDATION=1 AMP_SIMULATE_DISCRETE=1 AMP_SYNC_LAUNCHES=1)
env "${sync_env[@]}" cargo test --workspace --all-features --test faults "$@"
env "${sync_env[@]}" cargo test --workspace --all-features --test device "$@" -- \
    data_model:: asynchrony:: ping_pong:: model:: launch_reuse:: read_write:: bounds:: \
    loop_limit:: profiling:: fences:: lookback:: --skip every_device_test_on_the_other_accelerator
# The suites whose default accelerator must be the native one.
AMP_DEVICE=cpu cargo test --workspace --all-features --test native_accelerator --test accelerator \
    "$@"

# The GPU kit (docs/gpu-kit.md), proven to run where Rust is not installed: the quick kit, built
# from the test build above, runs on this machine's Vulkan device with every folder that holds
# cargo or rustc taken off the PATH; every suite must pass and both reports must be written.
# The kit's `device` and `leaks` suites are the binaries the test run above ran on this device
# already (about 40 s together): the kit runs every other suite.
scripts/gpu-kit.sh --quick
no_rust_path=$(printf '%s' "$PATH" | tr ':' '\n' |
    while read -r dir; do
        if [ -n "$dir" ] && [ ! -e "$dir/cargo" ] && [ ! -e "$dir/rustc" ]; then
            printf '%s:' "$dir"
        fi
    done)
kit_out=target/gpu-kit-report
rm -rf "$kit_out"
env -u AMP_DEVICE PATH="${no_rust_path%:}" AMP_KIT_SKIP="device leaks" .gpu-kit/run.sh "$kit_out"
test -s "$kit_out/report.md" && test -s "$kit_out/results.json"
# A failing suite is reported with its binary and exit status, and the kit says so in its exit
# status and results (a device name that does not exist fails the example).
if env PATH="${no_rust_path%:}" AMP_DEVICE=no-such-device AMP_KIT_SUITES=example-vector_add \
    .gpu-kit/run.sh target/gpu-kit-failing >/dev/null 2>&1; then
    echo "the GPU kit passed a suite that failed" >&2
    exit 1
fi
grep -q '"status": "failed (exit 1)"' target/gpu-kit-failing/results.json
