# Sourced by the GPU machine's scripts (gpu_check.sh, multi_gpu_check.sh), from the
# repository root with OUT set: where the carried data lie, a summary line per step, and
# the core's build for sm_90.

# The APSM over-the-air recordings and the 802.16e code files: the repository's own
# (examples/recordings/apsm-ota, examples/codes/ldpc), in the checkout that travels.
export GPUMIMO_APSM_OTA_DIR="$PWD/examples/recordings/apsm-ota"
export GPUMIMO_LDPC_DIR="$PWD/examples/codes/ldpc"

# One line of $OUT/summary.txt: a step and how it went.
status() { printf '%-28s %s\n' "$1" "$2" >> "$OUT/summary.txt"; }

# The core (no GNU Radio) for sm_90 into build-gpu, with the compiler's resource report;
# GoogleTest installed, or its sources in .deps/googletest (carried to the GPU machine:
# cp -r /usr/src/googletest .deps/). Logs: $OUT/configure.log, $OUT/build.log.
build_gpu_core() {
    local gtest_arg=()
    [ -d .deps/googletest ] && gtest_arg=(-DGPUMIMO_GTEST_SOURCE_DIR="$PWD/.deps/googletest")
    cmake -S . -B build-gpu -G Ninja -DGPUMIMO_CORE_ONLY=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DGPUMIMO_PTXAS_INFO=ON "${gtest_arg[@]}" > "$OUT/configure.log" 2>&1 &&
        cmake --build build-gpu -j "$(nproc)" > "$OUT/build.log" 2>&1
}
