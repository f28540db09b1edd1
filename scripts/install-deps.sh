#!/usr/bin/env bash
# Installs what gr-gpumimo needs to build and test on Debian 12 or Ubuntu 22.04+:
# GNU Radio 3.10 and its development files, pybind11, GoogleTest, CMake, ninja, numpy,
# nlohmann-json and OpenSSL (SigMF metadata and its hashes),
# pytest (with --fuzz also clang and libFuzzer), and from PyPI the SigMF reference library (sigmf, into .deps/python, for the
# tests that check our recordings against it). Idempotent; asks for sudo only when not root. The CUDA toolkit is optional
# and not installed here (CMake finds it at /usr/local/cuda when present).
set -euo pipefail
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

packages=(
    gnuradio-dev libvolk2-dev libfftw3-dev libgmp-dev
    pybind11-dev python3-numpy python3-pytest python3-jsonschema python3-pip python3-matplotlib
    nlohmann-json3-dev libssl-dev
    libgtest-dev cmake ninja-build g++ git pkg-config
    # GNU Radio Companion without a display, for the examples' QA (their canvases as GRC
    # draws them) and scripts/grc_screenshots.py
    xvfb xauth python3-gi python3-gi-cairo gir1.2-gtk-3.0
)
# --fuzz: also clang and its libFuzzer and sanitizer runtimes (scripts/fuzz_and_sanitize.sh).
if [ "${1:-}" = "--fuzz" ]; then
    packages+=(clang)
    # Debian 12 ships libFuzzer in libclang-rt-<version>-dev; Ubuntu 22.04 in
    # libclang-common-<version>-dev, which clang already depends on.
    if ! dpkg-query -W -f='${Status}' clang 2>/dev/null | grep -q "install ok installed"; then
        as_root apt-get update
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends clang
    fi
    clang_major=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
    rt="libclang-rt-$clang_major-dev"
    if ! dpkg-query -W -f='${Status}' "$rt" 2>/dev/null | grep -q "install ok installed"; then
        # A new machine's package lists may be empty: apt-cache knows nothing before them.
        apt-cache show "$rt" > /dev/null 2>&1 || as_root apt-get update
        if apt-cache show "$rt" > /dev/null 2>&1; then
            packages+=("$rt")
        fi
    fi
fi
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
    # PIP_ROOT_USER_ACTION, not --root-user-action: the option came with pip 22.1, and
    # Ubuntu 22.04's pip is 22.0.2 (an unknown PIP_ variable is ignored).
    PIP_ROOT_USER_ACTION=ignore /usr/bin/python3 -m pip install --quiet --disable-pip-version-check --no-deps \
        --target "$repo/.deps/python" sigmf==1.14.0
fi
