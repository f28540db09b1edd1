#!/usr/bin/env bash
# Old code against new in one device session: builds the core (sm_90, no tests) of the
# source tree in OLD_TAR (a `git archive` of the earlier commit) and of this tree side by
# side, then runs the detector, FFT and receiver benchmarks of both, alternating, ROUNDS
# times (run-to-run noise shows as the spread between rounds). Logs go to $OUT.
#
#   OLD_TAR=.deps/compare/old.tar.gz ROUNDS=2 scripts/compare_speed.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/build-compare/out}
OLD_TAR=${OLD_TAR:-.deps/compare/old.tar.gz}
ROUNDS=${ROUNDS:-2}
mkdir -p "$OUT" build-compare/old-src
tar xzf "$OLD_TAR" -C build-compare/old-src
jobs=$(( $(nproc) / 2 ))
build() { # source dir, build dir
    cmake -S "$1" -B "$2" -G Ninja -DGPUMIMO_CORE_ONLY=ON -DGPUMIMO_BUILD_TESTS=OFF \
        -DCMAKE_CUDA_ARCHITECTURES=90 > "$2.configure.log" 2>&1 &&
        cmake --build "$2" -j "$jobs" --target gpumimo_bench gpumimo_fft_bench gpumimo_rx_bench \
        > "$2.build.log" 2>&1
}
build build-compare/old-src build-compare/old & old_pid=$!
build . build-compare/new & new_pid=$!
wait $old_pid || { echo "old build failed"; tail -30 build-compare/old.build.log; exit 1; }
wait $new_pid || { echo "new build failed"; tail -30 build-compare/new.build.log; exit 1; }
for round in $(seq "$ROUNDS"); do
    for which in old new; do
        for bench in gpumimo_bench gpumimo_fft_bench gpumimo_rx_bench; do
            echo "=== round $round $which $bench" >> "$OUT/compare-$which.log"
            build-compare/$which/apps/bench/$bench --quick >> "$OUT/compare-$which.log" 2>&1
        done
    done
done
echo "compare: done ($ROUNDS rounds)"
