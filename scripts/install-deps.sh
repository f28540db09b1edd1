#!/usr/bin/env bash
# Installs what gr-gpumimo needs to build and test on Debian 12 or Ubuntu 22.04+:
# GNU Radio 3.10 and its development files, pybind11, GoogleTest, CMake, ninja, numpy,
# pytest. Idempotent; asks for sudo only when not root. The CUDA toolkit is optional
# and not installed here (CMake finds it at /usr/local/cuda when present).
set -euo pipefail
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

packages=(
    gnuradio-dev libvolk2-dev libfftw3-dev libgmp-dev
    pybind11-dev python3-numpy python3-pytest
    libgtest-dev cmake ninja-build g++ git pkg-config
)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
