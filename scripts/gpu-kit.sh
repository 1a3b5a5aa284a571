#!/usr/bin/env bash
# Builds the GPU kit: everything a run on a GPU machine needs, in the ignored folder .gpu-kit/,
# for a machine with no Rust toolchain, no cargo, no crates and no internet. Carry the folder
# there and run `.gpu-kit/run.sh OUTDIR`: it unpacks the Vulkan loader and the Khronos
# validation layer it carries, finds the GPU's driver, runs the run-time test suites and the
# examples on the GPU (validation on), then the benchmark's GPU profile (validation off), and
# writes OUTDIR/report.md and OUTDIR/results.json. docs/gpu-kit.md has the details.
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

# The kit's binaries, picked from cargo's compiler-artifact messages (read from stdin) by
# package and target: the root package's run-time suites as bin/NAME, the runtime's own suites
# as bin/runtime-NAME, the examples as bin/examples/NAME, the benchmark as bin/amp-bench.
collect() {
    grep '"reason":"compiler-artifact"' | grep -v '"executable":null' | while read -r line; do
        field() { printf '%s' "$line" | grep -o "\"$1\":\"[^\"]*\"" | head -1 | sed "s/^\"$1\":\"//; s/\"\$//"; }
        exe=$(field executable)
        manifest=$(field manifest_path)
        target=$(printf '%s' "$line" | grep -o '"target":{[^}]*}')
        name=$(printf '%s' "$target" | grep -o '"name":"[^"]*"' | head -1 | sed 's/^"name":"//; s/"$//')
        kind=$(printf '%s' "$target" | grep -o '"kind":\["[a-z-]*"' | sed 's/.*\["//; s/"$//')
        dest=""
        case "$kind:$manifest" in
            "test:$root/Cargo.toml")
                case " $suites " in *" $name "*) dest="bin/$name" ;; esac
                ;;
            "test:$root/amp-runtime/Cargo.toml") dest="bin/runtime-$name" ;;
            "example:"*) dest="bin/examples/$name" ;;
            "bin:"*) [ "$name" = amp-bench ] && dest="bin/amp-bench" ;;
        esac
        [ -n "$dest" ] || continue
        cp "$exe" "$stage/$dest"
        strip "$stage/$dest" 2>/dev/null || true
    done
}
suites="device native_accelerator accelerator robustness leaks timeout multi_device"
mkdir -p "$stage/bin/examples"

if [ "$profile" = quick ]; then
    # The command of scripts/test.sh, so everything it built is reused as it is.
    echo "gpu-kit: collecting the test build's binaries (quick)" >&2
    cargo test --workspace --all-features --no-run --message-format=json | collect
else
    echo "gpu-kit: building the run-time suites, the examples and the benchmark (release)" >&2
    # shellcheck disable=SC2046
    cargo test --release --no-run --all-features -p amp $(printf -- '--test %s ' $suites) \
        --message-format=json | collect
    cargo test --release --no-run --all-features -p amp-runtime --tests --message-format=json | collect
    cargo build --release --all-features -p amp-examples --examples --message-format=json | collect
    cargo build --release -p amp-bench --bin amp-bench --message-format=json | collect
fi
for want in $suites amp-bench; do
    [ -x "$stage/bin/$want" ] || {
        echo "gpu-kit: the build produced no $want binary" >&2
        exit 1
    }
done

# glslangValidator: the benchmark compiles its hand-written GLSL baselines with it at run time,
# and the runtime's suites their RawKernel shaders.
cp "$(command -v glslangValidator)" "$stage/tools/glslangValidator"
strip "$stage/tools/glslangValidator" 2>/dev/null || true

# Beside the loader and the layer, GLVND's dispatch libraries (about 250 KiB): NVIDIA's Vulkan
# driver lives in its GLX vendor library (libGLX_nvidia.so.0), which cannot create an instance
# without them, and a GPU container image often has the driver but not GLVND.
packages="libvulkan1 vulkan-validationlayers libglvnd0 libglx0 libegl1 libgl1 libopengl0 libgles2"
echo "gpu-kit: fetching the Vulkan loader, the validation layer and GLVND packages" >&2
(
    cd "$kit/debs"
    # shellcheck disable=SC2086 # a list of package names
    if ! apt-get download $packages >/dev/null 2>&1; then
        # The package lists may be missing on a fresh machine.
        apt-get update -qq >/dev/null 2>&1 || true
        apt-get download $packages
    fi
) || {
    echo "gpu-kit: could not download $packages with apt-get" >&2
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
