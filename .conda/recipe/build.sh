#!/usr/bin/env bash
# conda-build's build script (the gr_modtool 3.10 template's): conda's prefix, python and
# CMake arguments only, never the system's (/usr/bin/python3, /usr/local).
set -ex

cmake -E make_directory buildconda
cd buildconda

cmake_config_args=(
    -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_INSTALL_PREFIX="$PREFIX"
    -DCMAKE_PREFIX_PATH="$PREFIX"
    -DPYTHON_EXECUTABLE="$PYTHON"
    -DLIB_SUFFIX=""
    -DENABLE_DOXYGEN=OFF
    # conda-forge's CUDA toolchain is not in the recipe: the CPU path (every block works)
    -DENABLE_CUDA=OFF
)

cmake ${CMAKE_ARGS:-} -G "Ninja" .. "${cmake_config_args[@]}"
cmake --build . --config Release -- -j"${CPU_COUNT:-2}"
cmake --build . --config Release --target install

if [[ "${CONDA_BUILD_CROSS_COMPILATION:-}" != "1" || "${CROSSCOMPILING_EMULATOR:-}" != "" ]]; then
    # The core's tests and the Python QA; the packaging tests install elsewhere and
    # run gr_modtool, which a conda build environment need not have.
    ctest --build-config Release --output-on-failure --timeout 900 -j"${CPU_COUNT:-2}" -LE packaging
fi
