#!/usr/bin/env bash
# The GPU kit's runner (copied into .gpu-kit/ by scripts/gpu-kit.sh). Needs no Rust, no cargo,
# no network: bash, tar, gzip, dpkg-deb and coreutils.
#
#   .gpu-kit/run.sh OUTDIR
#
# Unpacks the kit's Vulkan loader and Khronos validation layer, finds the GPU's Vulkan driver
# (the standard folders, then NVIDIA's /usr/local/nvidia), prints the devices, runs every
# run-time test suite and example on AMP_DEVICE (the caller's, else `vulkan`: the preferred
# Vulkan device, a discrete GPU first) with the validation layer on, then the benchmark (the
# full kit's GPU profile with the layer off, since it times), and writes OUTDIR/report.md,
# OUTDIR/results.json and one log per suite. A failing suite is reported (binary, tests,
# messages) and the run goes on. Exits 0 only if every suite passed.
#
# Environment: AMP_DEVICE (respected), AMP_KIT_SUITES (a space-separated subset of suite names),
# AMP_KIT_SKIP (a space-separated list of suite names not to run),
# AMP_KIT_DEADLINE (seconds for the whole run, default 450 for the full kit: each suite's limit
# is cut to what is left, and suites that cannot start in time are reported as skipped),
# AMP_KIT_BENCH_ONLY (the full kit's benchmark runs only these sections: `amp-bench --only`),
# AMP_KIT_SYSTEM_LOADER=1 (use the machine's libvulkan instead of the kit's),
# AMP_KIT_NO_VALIDATION=1 (run every suite without the validation layer).
set -uo pipefail

kit=$(cd "$(dirname "$0")" && pwd)
if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
mkdir -p "$1" || exit 2
out=$(cd "$1" && pwd)
logs="$out/logs"
mkdir -p "$logs"
started=$(date +%s)

say() { echo "[gpu-kit $(($(date +%s) - started))s] $*" >&2; }

# --- unpack --------------------------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/amp-gpu-kit.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xzf "$kit/payload.tar.gz" || {
    echo "gpu-kit: cannot unpack $kit/payload.tar.gz" >&2
    exit 1
}
sys="$work/sys"
mkdir -p "$sys"
for deb in "$kit"/debs/*.deb; do
    if command -v dpkg-deb >/dev/null 2>&1; then
        dpkg-deb -x "$deb" "$sys"
    else
        # A .deb is an ar archive; without dpkg, take its data member apart by hand.
        (cd "$work" && ar x "$deb" data.tar.xz && tar -C "$sys" -xJf data.tar.xz && rm -f data.tar.xz) || {
            echo "gpu-kit: cannot unpack $deb (neither dpkg-deb nor ar + tar)" >&2
            exit 1
        }
    fi
done
libdir=$(dirname "$(find "$sys" -name 'libvulkan.so.1' | head -1)")
layerdir=$(dirname "$(find "$sys" -name 'VkLayer_khronos_validation.json' | head -1)")
if [ "${AMP_KIT_SYSTEM_LOADER:-0}" != 1 ]; then
    export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
    # Only the layer's library, in a folder of its own: the folder it was unpacked into also
    # holds the kit's loader, which must not shadow the machine's.
    mkdir -p "$work/layer-lib"
    layer_so=$(find "$sys" -name 'libVkLayer_khronos_validation.so' | head -1)
    [ -n "$layer_so" ] && ln -sf "$layer_so" "$work/layer-lib/"
    export LD_LIBRARY_PATH="$work/layer-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export VK_LAYER_PATH="$layerdir${VK_LAYER_PATH:+:$VK_LAYER_PATH}"
export PATH="$work/tools:$PATH"

# --- the driver ----------------------------------------------------------------------------
# NVIDIA's container images keep the ICD and its libraries under /usr/local/nvidia, where the
# loader does not look by itself.
for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do
    [ -d "$d" ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
done
if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ]; then
    icds=()
    for d in /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/share/vulkan/icd.d \
        /usr/local/nvidia/share/vulkan/icd.d /usr/local/nvidia/etc/vulkan/icd.d; do
        for f in "$d"/*.json; do
            [ -f "$f" ] || continue
            # The same manifest in two folders would list every GPU twice.
            dup=0
            for g in "${icds[@]}"; do cmp -s "$f" "$g" && dup=1; done
            [ $dup = 0 ] && icds+=("$f")
        done
    done
    if [ ${#icds[@]} -gt 0 ]; then
        joined=$(IFS=:; echo "${icds[*]}")
        export VK_DRIVER_FILES="$joined" VK_ICD_FILENAMES="$joined"
    fi
fi
# GLVND's EGL finds NVIDIA's vendor library through a manifest the container image may keep
# under /usr/local/nvidia as well.
if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ]; then
    for f in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json; do
        [ -f "$f" ] && export __EGL_VENDOR_LIBRARY_FILENAMES="$f"
    done
fi
export AMP_DEVICE="${AMP_DEVICE:-vulkan}"
if [ "${AMP_KIT_NO_VALIDATION:-0}" = 1 ]; then
    validation=0
else
    validation=1
fi

source "$kit/kit-info" 2>/dev/null || true
bin="$work/bin"
bench_validation=$([ "${profile:-full}" != quick ] && [ $validation = 1 ] && echo " (off for the benchmark's GPU profile)")
say "kit ${commit:-?} (${profile:-?} profile, built ${built:-?}); AMP_DEVICE=$AMP_DEVICE; validation layer: $([ $validation = 1 ] && echo on || echo off)$bench_validation"
nvidia=$( (nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader) 2>/dev/null | head -1)
[ -n "$nvidia" ] && say "nvidia-smi: $nvidia"
devices=$(AMP_VALIDATION=$validation "$bin/amp-bench" --devices 2>&1)
echo "$devices" >"$logs/devices.log"
echo "$devices" >&2
if [ "$AMP_DEVICE" != cpu ] && printf '%s' "$devices" | grep -q NoDevice; then
    # No Vulkan device: say why, from the loader's own account (which manifests it read, which
    # libraries it loaded and what failed), and which libraries the drivers lack.
    say "no Vulkan device found; the loader's account is in $logs/loader.log"
    VK_LOADER_DEBUG=error,warn,driver "$bin/amp-bench" --devices >"$logs/loader.log" 2>&1
    {
        echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-}"
        echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
        IFS=: read -ra manifests <<<"${VK_DRIVER_FILES:-}"
        for m in "${manifests[@]}"; do
            lib=$(grep -o '"library_path"[^,]*' "$m" 2>/dev/null | sed 's/.*: *"//; s/".*//')
            [ -n "$lib" ] || continue
            path=$(ldconfig -p 2>/dev/null | grep -F "$lib" | head -1 | sed 's/.*=> //')
            echo "$m -> $lib -> ${path:-not found by ldconfig}"
            [ -n "$path" ] && ldd "$path" 2>&1 | grep -i 'not found'
        done
    } >>"$logs/loader.log" 2>&1
    tail -n 40 "$logs/loader.log" >&2
fi

# --- the suites ----------------------------------------------------------------------------
# name | command (relative to the unpacked bin/) | seconds allowed | extra environment
# The main device suite, the experiments and the benchmark first: a run cut short by its
# deadline keeps them.
# The quick kit's tiny benchmark is a test and stays validated; the full kit's GPU profile
# measures, so it runs without the validation layer (which adds host time to every launch), and
# its report says whether the layer was on.
if [ "${profile:-full}" = quick ]; then
    bench="bench|amp-bench --tiny --report-dir $out/bench|300|"
    deadline=${AMP_KIT_DEADLINE:-0}
else
    bench="bench|amp-bench --gpu${AMP_KIT_BENCH_ONLY:+ --only $AMP_KIT_BENCH_ONLY} --report-dir $out/bench|300|AMP_VALIDATION=0"
    deadline=${AMP_KIT_DEADLINE:-450}
fi
# The device suite runs on the kit's device only (not again natively: its test
# `every_device_test_on_the_other_accelerator` is skipped).
one_device="--skip every_device_test_on_the_other_accelerator"
suites=("device|device $one_device|180|")
# The full kit's experiments on what a GPU needs come next (they are short, and a run cut
# short by its deadline keeps them). Which exact paths this device needs: how often its own
# f32 division, square root and trigonometry differ from Rust's (printed). A checked kernel's
# stale read of its own store without robust buffer access (NVIDIA's 580 driver, while every
# buffer shared one block type; checked kernels run without it by default now): the kernel in
# four module forms with robust access off for every pipeline (`stale_read`, which prints each
# form's count of wrong elements).
if [ "${profile:-full}" != quick ]; then
    suites+=(
        "exact-needed|device exact::fast_math_is_within_vulkans_precision --nocapture|60|"
        "stale-read|device stale_read:: --nocapture|60|AMP_PIPELINE_ROBUSTNESS=off"
    )
fi
suites+=("$bench")
if [ "${profile:-full}" != quick ]; then
    # Launch shapes of simple kernels (docs/performance.md): the vector section (copy, vector
    # add, the yardsticks) at other workgroup sizes and indices per thread than the default
    # 256 x 4 of the GPU profile above, each its own report under shape-W-I/.
    for shape in 64-1 128-1 256-1 512-1 1024-1 256-8; do
        w=${shape%-*} i=${shape#*-}
        suites+=("shape-$shape|amp-bench --gpu --only vector --report-dir $out/shape-$shape|90|AMP_VALIDATION=0 AMP_WORKGROUP_SIZE=$w AMP_ITEMS_PER_THREAD=$i")
    done
    # The same section with 4-byte accesses only (`AMP_VECTOR_ACCESS=0`): what the 16-byte
    # loads and stores of simple kernels gain on this GPU; and the stencils and Rodinia, whose
    # kernels write their own element in the quad form and read their neighbours one by one
    # (whether four lanes per invocation cost those reads their coalescing).
    suites+=("scalar-access|amp-bench --gpu --only vector,stencils,rodinia --report-dir $out/scalar-access|150|AMP_VALIDATION=0 AMP_VECTOR_ACCESS=0")
fi
suites+=(
    "native_accelerator|native_accelerator|120|"
    "accelerator|accelerator|120|"
    "robustness|robustness|120|"
    "timeout|timeout|120|"
    "leaks|leaks|180|"
    "multi_device|multi_device|120|"
)
# The device suite with every transfer staged, and the exact paths forced on the device (the
# full kit only: the README's test command runs the same code, staging in its simulated
# discrete GPU).
if [ "${profile:-full}" != quick ]; then
    suites+=(
        "device-staging|device $one_device|180|AMP_FORCE_STAGING=1"
        "exact-forced|device exact:: textures::every_normalized|120|AMP_FORCE_EXACT_PATHS=1"
    )
fi
for t in "$bin"/runtime-*; do
    [ -x "$t" ] && suites+=("$(basename "$t")|$(basename "$t")|120|")
done
for e in "$bin"/examples/*; do
    [ -x "$e" ] || continue
    name=$(basename "$e")
    case "$name" in
        # The quick kit proves the soak runs; the full kit soaks.
        soak) [ "${profile:-full}" = quick ] && suites+=("example-soak|examples/soak 5000|60|") ||
            suites+=("example-soak|examples/soak 20000|180|") ;;
        # The quick kit's binaries are unoptimised: its one-thread CPU reference at the default
        # 1024 would take most of the run.
        matmul) [ "${profile:-full}" = quick ] && suites+=("example-matmul|examples/matmul 256 256 256|60|") ||
            suites+=("example-matmul|examples/matmul|60|") ;;
        # The trace goes into the output folder, not the working directory.
        trace) suites+=("example-trace|examples/trace $out/trace.json|60|") ;;
        *) suites+=("example-$name|examples/$name|60|") ;;
    esac
done

json_escape() {
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/\\t/g' -e 's/\r//g' | awk 'BEGIN{ORS=""} NR>1{print "\\n"} {print}'
}

results=()
summary=()
failed_any=0
for entry in "${suites[@]}"; do
    IFS='|' read -r name cmd limit extra <<<"$entry"
    if [ -n "${AMP_KIT_SUITES:-}" ] && ! [[ " $AMP_KIT_SUITES " == *" $name "* ]]; then
        continue
    fi
    if [[ " ${AMP_KIT_SKIP:-} " == *" $name "* ]]; then
        continue
    fi
    log="$logs/$name.log"
    if [ "$deadline" -gt 0 ]; then
        left=$((deadline - ($(date +%s) - started)))
        if [ "$left" -lt 15 ]; then
            say "$name: skipped (the kit's deadline of ${deadline}s is reached)"
            failed_any=1
            summary+=("| $name | \`$cmd\`${extra:+ ($extra)} | skipped: deadline | 0 | 0 | 0 |")
            results+=("    {\"suite\": \"$name\", \"status\": \"skipped: deadline\", \"exit_code\": null, \"seconds\": 0, \"tests_passed\": 0, \"tests_failed\": 0, \"failing_tests\": [], \"log_tail\": \"\"}")
            continue
        fi
        [ "$limit" -gt "$left" ] && limit=$left
    fi
    say "running $name: $cmd ${extra:+($extra)}"
    t0=$(date +%s.%N)
    # Examples write their pictures under target/: run everything in a scratch folder.
    scratch="$work/run-$name"
    mkdir -p "$scratch/target"
    # shellcheck disable=SC2086
    (cd "$scratch" && env AMP_VALIDATION=$validation $extra timeout --kill-after=10 "$limit" "$bin"/$cmd) >"$log" 2>&1
    rc=$?
    secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
    passed=$(grep -Eo 'test result: [a-zA-Z]+\. [0-9]+ passed' "$log" | awk '{s+=$4} END{print s+0}')
    failed=$(grep -Eo '[0-9]+ failed' "$log" | awk '{s+=$1} END{print s+0}')
    failures=""
    if [ $rc -eq 0 ]; then
        status=passed
    else
        failed_any=1
        if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
            status="timed out after ${limit}s"
        else
            status="failed (exit $rc)"
        fi
        # libtest lists the failing tests after the last "failures:" line.
        failures=$(awk '/^failures:$/{n++} {lines[NR]=$0} END{c=0; for(i=1;i<=NR;i++){ if(lines[i]=="failures:"){c++; if(c==n){for(j=i+1;j<=NR;j++){ if(lines[j] ~ /^    /){sub(/^    /,"",lines[j]); print lines[j]} }}}}}' "$log")
        echo "---- $name $status: binary $cmd" >&2
        if [ -n "$failures" ]; then
            echo "$failures" | sed 's/^/     failing test: /' >&2
            # The panic message of each failing test.
            awk '/^---- .* stdout ----$/{p=1; c=0} p{print; c++} p && c>15{p=0}' "$log" | head -80 >&2
        else
            tail -20 "$log" >&2
        fi
    fi
    say "$name: $status in ${secs}s${passed:+, $passed tests passed}"
    summary+=("| $name | \`$cmd\`${extra:+ ($extra)} | $status | $passed | $failed | $secs |")
    failures_json=$(printf '%s' "$failures" | awk 'BEGIN{ORS=""} {gsub(/\\/,"\\\\"); gsub(/"/,"\\\""); printf "%s\"%s\"", (NR>1?", ":""), $0}')
    tail_json=""
    [ $rc -ne 0 ] && tail_json=$(tail -30 "$log" | json_escape)
    results+=("    {\"suite\": \"$name\", \"command\": \"$(printf '%s' "$cmd" | json_escape)\", \"env\": \"$extra\", \"status\": \"$status\", \"exit_code\": $rc, \"seconds\": $secs, \"tests_passed\": $passed, \"tests_failed\": $failed, \"failing_tests\": [$failures_json], \"log_tail\": \"$tail_json\"}")
done

# --- the report ----------------------------------------------------------------------------
total=$(($(date +%s) - started))
npass=0
for r in "${results[@]}"; do [[ "$r" == *'"status": "passed"'* ]] && npass=$((npass + 1)); done
{
    echo "# amp-rs GPU kit report"
    echo
    echo "Kit \`${commit:-?}\` (${profile:-?} profile, built ${built:-?} on ${builder:-?}); run $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n) ($(nproc) CPU cores), ${total} s in all. AMP_DEVICE=\`$AMP_DEVICE\`; validation layer $([ $validation = 1 ] && echo on || echo off)$bench_validation."
    [ -n "$nvidia" ] && echo && echo "nvidia-smi: $nvidia"
    echo
    echo "## Devices"
    echo
    echo '```text'
    echo "$devices"
    echo '```'
    echo
    echo "## Suites: $npass of ${#results[@]} passed"
    echo
    echo "| suite | binary | result | tests passed | tests failed | seconds |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${summary[@]}"
    echo
    if [ -f "$out/bench/bench.md" ]; then
        echo "## Benchmark"
        echo
        cat "$out/bench/bench.md"
    fi
} >"$out/report.md"
bench_json=null
[ -f "$out/bench/bench.json" ] && bench_json=$(cat "$out/bench/bench.json")
{
    echo "{"
    echo "  \"kit\": {\"commit\": \"${commit:-}\", \"profile\": \"${profile:-}\", \"built\": \"${built:-}\"},"
    echo "  \"host\": \"$(uname -n)\","
    echo "  \"amp_device\": \"$(printf '%s' "$AMP_DEVICE" | json_escape)\","
    echo "  \"validation\": $([ $validation = 1 ] && echo true || echo false),"
    echo "  \"nvidia_smi\": \"$(printf '%s' "$nvidia" | json_escape)\","
    echo "  \"devices\": \"$(printf '%s' "$devices" | json_escape)\","
    echo "  \"seconds\": $total,"
    echo "  \"all_passed\": $([ $failed_any = 0 ] && echo true || echo false),"
    echo "  \"suites\": ["
    (IFS=$'\n'; printf '%s' "${results[*]}" | awk 'BEGIN{ORS=""} NR>1{print ",\n"} {print}')
    echo
    echo "  ],"
    echo "  \"bench\": $bench_json"
    echo "}"
} >"$out/results.json"
say "$npass of ${#results[@]} suites passed; wrote $out/report.md and $out/results.json"
exit $failed_any
