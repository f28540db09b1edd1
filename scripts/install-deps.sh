#!/usr/bin/env bash
# Installs what gr-gpumimo needs to build and test on Debian 12 or Ubuntu 22.04+:
# GNU Radio 3.10 and its development files, pybind11, GoogleTest, CMake, ninja, numpy,
# nlohmann-json and OpenSSL (SigMF metadata and its hashes),
# pytest, and from PyPI the SigMF reference library (sigmf, into .deps/python, for the
# tests that check our recordings against it). Idempotent; asks for sudo only when not root. The CUDA toolkit is optional
# and not installed here (CMake finds it at /usr/local/cuda when present).
set -euo pipefail
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

packages=(
    gnuradio-dev libvolk2-dev libfftw3-dev libgmp-dev
    pybind11-dev python3-numpy python3-pytest python3-jsonschema python3-pip python3-matplotlib
    nlohmann-json3-dev libssl-dev
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

# The SigMF reference library checks the recordings the module writes. --no-deps: its
# dependencies (numpy, jsonschema) come from Debian above; PyPI's numpy would shadow the
# one GNU Radio was built against.
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -d "$repo/.deps/python/sigmf" ]; then
    /usr/bin/python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps \
        --target "$repo/.deps/python" sigmf==1.14.0
fi
