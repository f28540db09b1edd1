# Sourced by the GPU machine's scripts (gpu_check.sh, multi_gpu_check.sh), from the
# repository root with OUT set: where the carried data lie, a summary line per step, and
# the core's build for sm_90.

# The APSM over-the-air recordings: carried in .deps/apsm-ota
# (cp -r ../shared/data/apsm-ota .deps/), else the APSM recording tests are skipped.
if [ -d .deps/apsm-ota ]; then
    export GPUMIMO_APSM_OTA_DIR="$PWD/.deps/apsm-ota"
elif [ ! -d ../shared/data/apsm-ota ]; then
    export GPUMIMO_ALLOW_MISSING_DATA=1
fi
# The 802.16e code files (../shared/data/ldpc), carried in .deps/ldpc.
[ -d .deps/ldpc ] && export GPUMIMO_LDPC_DIR="$PWD/.deps/ldpc"

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
