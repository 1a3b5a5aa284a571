#!/usr/bin/env bash
# Builds the GPU kit: everything a run on a GPU machine needs, in the ignored folder .gpu-kit/,
# for a machine with no Rust toolchain, no cargo, no crates and no internet. Carry the folder
# there and run `.gpu-kit/run.sh OUTDIR`: it unpacks the Vulkan loader and the Khronos
# validation layer it carries, finds the GPU's driver, runs the run-time test suites and the
# examples on the GPU (validation on), then the benchmark's GPU profile, and writes
# OUTDIR/report.md and OUTDIR/results.json. docs/gpu-kit.md has the details.
#
#   scripts/gpu-kit.sh           the full kit: release binaries, the benchmark's GPU profile
#   scripts/gpu-kit.sh --quick   the quick kit: the test profile's binaries (reused from
#                                `scripts/test.sh`), the benchmark's tiny profile
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

profile=full
for arg in "$@"; do
    case "$arg" in
        --quick) profile=quick ;;
        -h | --help)
            sed -n '2,12p' "$0"
            exit 0
            ;;
        *)
            echo "gpu-kit.sh: unknown argument '$arg' (use --quick or nothing)" >&2
            exit 2
            ;;
    esac
done

scripts/setup.sh

kit="$root/.gpu-kit"
stage="$root/target/gpu-kit-stage"
rm -rf "$kit" "$stage"
mkdir -p "$kit/debs" "$stage/bin" "$stage/tools"

if [ "$profile" = full ]; then
    cargo_profile=(--release)
else
    cargo_profile=()
fi

# Copies the executables that a cargo build reported (compiler-artifact messages with an
# executable) into $stage/bin under their target's name. $1 names a suffix for duplicates.
collect() {
    local json=$1
    grep '"reason":"compiler-artifact"' "$json" | grep -v '"executable":null' | while read -r line; do
        local exe name
        exe=$(printf '%s' "$line" | grep -o '"executable":"[^"]*"' | sed 's/^"executable":"//; s/"$//')
        name=$(printf '%s' "$line" | grep -o '"target":{[^}]*}' | grep -o '"name":"[^"]*"' | head -1 | sed 's/^"name":"//; s/"$//')
        [ -n "$exe" ] && [ -n "$name" ] || continue
        cp "$exe" "$stage/bin/$name"
        strip "$stage/bin/$name" 2>/dev/null || true
    done
}

echo "gpu-kit: building the run-time suites ($profile)" >&2
# The same features as scripts/test.sh, so the quick kit reuses that build.
cargo test "${cargo_profile[@]}" --no-run --all-features -p amp \
    --test device --test native --test accelerator --test robustness --test leaks --test timeout \
    --message-format=json >"$stage/root-tests.json"
collect "$stage/root-tests.json"
# The runtime's own suites are named runtime-<name> in the kit.
cargo test "${cargo_profile[@]}" --no-run --all-features -p amp-runtime --tests \
    --message-format=json >"$stage/runtime-tests.json"
grep '"reason":"compiler-artifact"' "$stage/runtime-tests.json" | grep '"kind":\["test"\]' |
    grep -v '"executable":null' | while read -r line; do
    exe=$(printf '%s' "$line" | grep -o '"executable":"[^"]*"' | sed 's/^"executable":"//; s/"$//')
    name=$(printf '%s' "$line" | grep -o '"target":{[^}]*}' | grep -o '"name":"[^"]*"' | head -1 | sed 's/^"name":"//; s/"$//')
    cp "$exe" "$stage/bin/runtime-$name"
    strip "$stage/bin/runtime-$name" 2>/dev/null || true
done

echo "gpu-kit: building the examples and the benchmark ($profile)" >&2
cargo build "${cargo_profile[@]}" --all-features -p amp-examples --examples \
    --message-format=json >"$stage/examples.json"
mkdir -p "$stage/bin/examples"
grep '"reason":"compiler-artifact"' "$stage/examples.json" | grep '"kind":\["example"\]' |
    grep -v '"executable":null' | while read -r line; do
    exe=$(printf '%s' "$line" | grep -o '"executable":"[^"]*"' | sed 's/^"executable":"//; s/"$//')
    name=$(basename "$exe")
    cp "$exe" "$stage/bin/examples/$name"
    strip "$stage/bin/examples/$name" 2>/dev/null || true
done
cargo build "${cargo_profile[@]}" -p amp-bench --bin amp-bench --message-format=json >"$stage/bench.json"
collect "$stage/bench.json"

# glslangValidator: the benchmark compiles its hand-written GLSL baselines with it at run time,
# and the runtime's suites their RawKernel shaders.
cp "$(command -v glslangValidator)" "$stage/tools/glslangValidator"
strip "$stage/tools/glslangValidator" 2>/dev/null || true

echo "gpu-kit: fetching the Vulkan loader and the validation layer packages" >&2
(
    cd "$kit/debs"
    if ! apt-get download libvulkan1 vulkan-validationlayers >/dev/null 2>&1; then
        # The package lists may be missing on a fresh machine.
        apt-get update -qq >/dev/null 2>&1 || true
        apt-get download libvulkan1 vulkan-validationlayers
    fi
) || {
    echo "gpu-kit: could not download libvulkan1 and vulkan-validationlayers with apt-get" >&2
    exit 1
}

# The binaries travel compressed: the folder must stay small enough to carry (60 MiB).
tar -C "$stage" -czf "$kit/payload.tar.gz" bin tools
cp scripts/gpu-kit/run.sh "$kit/run.sh"
chmod +x "$kit/run.sh"
{
    echo "profile='$profile'"
    echo "commit='$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo '+changes')'"
    echo "built='$(date -u +%Y-%m-%dT%H:%M:%SZ)'"
    echo "builder='$(uname -m) $(rustc --version 2>/dev/null || echo rustc)'"
} >"$kit/kit-info"

size_kib=$(du -sk "$kit" | cut -f1)
echo "gpu-kit: built $kit ($profile, $((size_kib / 1024)) MiB; binaries: $(ls "$stage/bin" | grep -v '^examples$' | tr '\n' ' ')examples: $(ls "$stage/bin/examples" | tr '\n' ' '))" >&2
if [ "$size_kib" -gt $((60 * 1024)) ]; then
    echo "gpu-kit: the kit is over 60 MiB and will not travel" >&2
    exit 1
fi
