#!/usr/bin/env bash
# Installs the dependencies, builds gr-gpumimo and installs it (to /usr/local by default;
# PREFIX=... to change). Idempotent and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

scripts/install-deps.sh
# GNU Radio's Python is Debian's /usr/bin/python3; another python3 earlier on PATH may
# lack GNU Radio and numpy.
cmake -S . -B build -G Ninja -DPYTHON_EXECUTABLE=/usr/bin/python3 \
      -DCMAKE_INSTALL_PREFIX="${PREFIX:-/usr/local}"
cmake --build build
as_root cmake --install build > build/install.log
as_root ldconfig
