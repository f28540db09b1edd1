#!/bin/bash
# Copyright 2026 gr-gpumimo authors.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Other modules can build against this one: installs BUILD_DIR to a scratch prefix, then
# builds tests/packaging/consumer there with find_package(gnuradio-gpumimo) (the config,
# its version file, gnuradio::gnuradio-gpumimo) and again with pkg-config's flags, and
# runs both. Usage: check_consumer.sh BUILD_DIR
set -eu
build=$(cd "${1:?usage: check_consumer.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"

libdir=$(dirname "$(find "$prefix" -name 'libgnuradio-gpumimo.so' | head -1)")
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

echo "== find_package(gnuradio-gpumimo)"
cmake -S "$here/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log" ||
    { cat "$work/configure.log"; exit 1; }
cmake --build "$work/consumer" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
"$work/consumer/consumer"

echo "== pkg-config gnuradio-gpumimo"
export PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
echo "version $(pkg-config --modversion gnuradio-gpumimo)"
# shellcheck disable=SC2046 # the flags are words
c++ -std=c++17 -o "$work/consumer-pc" "$here/consumer/consumer.cc" \
    $(pkg-config --cflags --libs gnuradio-gpumimo)
"$work/consumer-pc"
