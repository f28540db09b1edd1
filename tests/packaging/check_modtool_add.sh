#!/bin/bash
# Copyright 2026 gr-gpumimo authors.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# `gr_modtool add` works on this module: in a scratch copy of the repository's tracked
# files it adds a C++ sync block with Python bindings and a Python QA, then configures
# the copy and compiles the new block's source and its binding (the objects only: a
# whole second build of the module would take most of CI's time).
# Usage: check_modtool_add.sh SOURCE_DIR
set -eu
source=$(cd "${1:?usage: check_modtool_add.sh SOURCE_DIR}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
copy=$work/gr-gpumimo
mkdir -p "$copy"
(cd "$source" && git ls-files -z | tar --null -T - -cf -) | tar xf - -C "$copy"
cd "$copy"
git init -q && git add -A && git -c user.name=ci -c user.email=ci@localhost commit -qm copy

# The copyright holder, then "no C++ QA".
printf 'gr-gpumimo authors\nn\n' |
    gr_modtool add -t sync -l cpp --argument-list "float gain" --add-python-qa scale_by > "$work/add.log" 2>&1 ||
    { cat "$work/add.log"; exit 1; }
grep -q 'void bind_scale_by(py::module& m);' python/gpumimo/bindings/python_bindings.cc
grep -q 'bind_scale_by(m);' python/gpumimo/bindings/python_bindings.cc
grep -q 'scale_by_impl.cc' lib/CMakeLists.txt
grep -q 'scale_by_python.cc' python/gpumimo/bindings/CMakeLists.txt
echo "gr_modtool add: $(git status --short | wc -l) files added or edited"

cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=80 -DPYTHON_EXECUTABLE=/usr/bin/python3 \
    > "$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; exit 1; }
ninja -C build lib/CMakeFiles/gnuradio-gpumimo.dir/scale_by_impl.cc.o \
    python/gpumimo/bindings/CMakeFiles/gpumimo_python.dir/scale_by_python.cc.o \
    > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
echo "the new block and its binding compile"
