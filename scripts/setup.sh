#!/usr/bin/env bash
# Installs the system parts amp-rs needs and that are missing: the Vulkan loader, Mesa's
# software Vulkan driver (lavapipe, so kernels run without a GPU), spirv-tools (spirv-val checks
# every generated module), glslang (hand-written GLSL baselines), the Khronos validation layer,
# the DejaVu fonts the benchmark's chart labels are drawn with, and for the MPI example
# (examples/mpi-heat) MPICH with its headers and libclang, which the `mpi` crate's bindgen
# loads at build time to read `mpi.h`.
# As root on Debian/Ubuntu it installs them with apt; otherwise it prints what to install.
set -euo pipefail

packages=(libvulkan1 mesa-vulkan-drivers spirv-tools glslang-tools vulkan-validationlayers fonts-dejavu-core
          mpich libmpich-dev libclang1)

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
    for p in "${packages[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$p")
        fi
    done
else
    # Not a Debian system: look for the files themselves.
    ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1' || missing+=("the Vulkan loader (libvulkan.so.1)")
    ls /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json >/dev/null 2>&1 || missing+=("a Vulkan driver (Mesa lavapipe or a GPU driver)")
    command -v spirv-val >/dev/null 2>&1 || missing+=("spirv-tools (spirv-val)")
    command -v glslangValidator >/dev/null 2>&1 || missing+=("glslang (glslangValidator)")
    ls /usr/share/vulkan/explicit_layer.d/*validation*.json >/dev/null 2>&1 || missing+=("the Khronos validation layer")
    ls /usr/share/fonts/*/DejaVuSans.ttf /usr/share/fonts/*/*/DejaVuSans.ttf >/dev/null 2>&1 || missing+=("the DejaVu fonts (DejaVuSans.ttf)")
    { command -v mpicc && command -v mpiexec; } >/dev/null 2>&1 || missing+=("an MPI implementation with its headers (MPICH or Open MPI: mpicc, mpiexec)")
    ldconfig -p 2>/dev/null | grep -q 'libclang' || missing+=("libclang (the mpi crate's bindgen loads it)")
fi

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1 && command -v dpkg-query >/dev/null 2>&1; then
    echo "amp-rs setup: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    exit 0
fi

echo "amp-rs needs these system packages, which are missing: ${missing[*]}" >&2
if command -v apt-get >/dev/null 2>&1; then
    echo "install them with:  sudo apt-get install ${missing[*]}" >&2
else
    echo "on Debian/Ubuntu: apt-get install ${packages[*]}" >&2
    echo "on Fedora:        dnf install vulkan-loader mesa-vulkan-drivers spirv-tools glslang vulkan-validation-layers mpich-devel clang-libs" >&2
    echo "on Arch:          pacman -S vulkan-icd-loader vulkan-swrast spirv-tools glslang vulkan-validation-layers openmpi clang" >&2
fi
exit 1
