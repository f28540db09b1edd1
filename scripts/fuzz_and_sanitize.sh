#!/usr/bin/env bash
# The core under AddressSanitizer and UndefinedBehaviorSanitizer, and the parsers of
# outside files fuzzed, in one clang build (build-sanitize):
#   1. every core test (ctest -L core) under ASan + UBSan (any finding fails the test);
#   2. every fuzz harness over its committed corpus (ctest -L fuzz);
#   3. every fuzz harness fuzzed for FUZZ_SECONDS (default 60) from that corpus, with
#      memory limits: any crash, sanitizer report, leak, timeout or allocation beyond
#      -malloc_limit_mb fails, and its input is left in build-sanitize/fuzz/.
# CI runs it after the README's tests (.ci/run); docs/reliability.md reports the runs.
# Needs clang and its libFuzzer runtime (scripts/install-deps.sh --fuzz installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
build=build-sanitize

cmake -S . -B "$build" -G Ninja -DGPUMIMO_CORE_ONLY=ON -DENABLE_CUDA=OFF \
      -DGPUMIMO_SANITIZE=ON -DGPUMIMO_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang > /dev/null
cmake --build "$build"

# halt_on_error: the first finding ends the test with an error; detect_leaks on.
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
ctest --test-dir "$build" -L core --output-on-failure -j "$(nproc)"
ctest --test-dir "$build" -L fuzz --output-on-failure

mkdir -p "$build/fuzz"
status=0
for harness in fuzz_sigmf_meta fuzz_sigmf_collection fuzz_frame_description fuzz_alist \
               fuzz_apsm_container fuzz_cli_numbers; do
    work="$build/fuzz/$harness"
    rm -rf "$work" && mkdir -p "$work/corpus"
    # A scratch copy of the committed corpus: new inputs do not land in the source tree.
    cp tests/fuzz/corpus/$harness/* "$work/corpus/"
    if ! (cd "$work" && "../../tests/fuzz/$harness" corpus -max_total_time="$seconds" \
            -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 -max_len=65536 \
            -print_final_stats=1 > log.txt 2>&1); then
        echo "$harness: FAILED (build-sanitize/fuzz/$harness/log.txt)"; tail -40 "$work/log.txt"
        status=1
        continue
    fi
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log.txt" | grep -o '[0-9]*$')
    echo "$harness: ${runs:-?} executions in ${seconds} s, no finding" \
         "($(ls "$work/corpus" | wc -l) inputs in the corpus)"
done
exit $status
