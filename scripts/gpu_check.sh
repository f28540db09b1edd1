#!/usr/bin/env bash
# One command for the GPU machine (an H100 or H200, sm_90; CMake, nvcc, no GNU Radio):
# build the core for sm_90 with the compiler's resource report, run every test (the gpu
# label included), compute-sanitizer memcheck and racecheck on small runs, then the
# benchmark; print a short table last. Logs go to $OUT when it is set.
#
#   scripts/gpu_check.sh [--full] [--part core|tests|gr|chain]
#     --full       the benchmark at full size, 2^20 vectors
#     --part core  the core only: build, tests, sanitizers, benchmarks
#     --part tests the core's build, tests and sanitizers, no benchmark
#     --part gr    the GNU Radio module only (carried in .device-gr): Python QA, rates
#     --part chain the chain of blocks against the stream receiver only (.device-gr):
#                  their rates, twice each, and their GPU timelines (about 3 minutes)
#
# All of it takes about ten minutes on an H200, the device tool's limit for one command:
# run it as two calls (--part core, then --part gr) under `timeout 580`. Every log goes
# into one archive ($OUT/gpu-check-logs.tgz, the summary beside it) also when the run is
# cut short: a TERM ends the script through the same exit.
#
# What it reads from .deps (GoogleTest's sources, the recordings, the codes):
# scripts/gpu_common.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/build-gpu/out}
mkdir -p "$OUT"
bench_arg=--quick
part=all
while [ $# -gt 0 ]; do
    case "$1" in
        --full) bench_arg= ;;
        --part) part=${2:?--part needs core, tests, gr or chain}; shift ;;
        *) echo "gpu_check.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
case "$part" in all|core|tests|gr|chain) ;; *) echo "gpu_check.sh: --part is core, tests, gr or chain" >&2; exit 2 ;; esac
run_core() { [ "$part" != gr ] && [ "$part" != chain ]; }
run_bench() { [ "$part" = all ] || [ "$part" = core ]; }
run_gr() { [ "$part" = all ] || [ "$part" = gr ]; }
run_chain() { run_gr || [ "$part" = chain ]; }

# Only a few files come back from the GPU machine (8): every log in one archive, the
# summary beside it. (The archive is written outside $OUT first: tar fails on a file
# that grows as it reads.)
archive_logs() {
    local archive
    archive=$(mktemp -d)/gpu-check-logs.tgz
    (cd "$OUT" && tar czf "$archive" --exclude=./summary.txt --exclude=./gpu-check-logs.tgz . &&
        find . -type f ! -name summary.txt -delete && mv "$archive" .)
}
trap archive_logs EXIT
trap 'status "cut short" "by a signal (the time limit?)"; exit 124' TERM INT

source scripts/gpu_common.sh
: > "$OUT/summary.txt"

# memcheck then racecheck on one GPU test program (their gtest filters; an empty memcheck
# filter runs every test), one summary line for both.
sanitize() { # label program memcheck-filter racecheck-filter
    local prog=build-gpu/tests/$2
    compute-sanitizer --tool memcheck --error-exitcode 9 $prog ${3:+"--gtest_filter=$3"} >> "$OUT/memcheck.log" 2>&1 &&
        compute-sanitizer --tool racecheck --error-exitcode 9 $prog --gtest_filter="$4" >> "$OUT/racecheck.log" 2>&1
    status "sanitizers ($1)" "$([ $? -eq 0 ] && echo clean || echo ERRORS)"
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$OUT/device.txt"

if run_core; then
    if build_gpu_core; then
        status build ok
    else
        status build FAILED; tail -40 "$OUT/configure.log" "$OUT/build.log"; cat "$OUT/summary.txt"; exit 1
    fi
    # Resource report: registers, shared memory, spills per kernel.
    grep -E "Compiling entry|Used [0-9]+ registers|spill" "$OUT/build.log" > "$OUT/ptxas.txt" || true

    ctest --test-dir build-gpu -j 4 --output-on-failure -L core > "$OUT/core-tests.log" 2>&1
    status "core tests (CPU)" "$(grep -E 'tests passed' "$OUT/core-tests.log" || echo FAILED)"
    ctest --test-dir build-gpu --output-on-failure -L gpu -V > "$OUT/gpu-tests.log" 2>&1
    status "gpu tests" "$(grep -E 'tests passed' "$OUT/gpu-tests.log" || echo FAILED)"
    grep -E "\[ float" "$OUT/gpu-tests.log" | sed 's/^[0-9]*: //' > "$OUT/float-precision.txt" || true

    san=build-gpu/tests/test_gpu_detectors
    if command -v compute-sanitizer > /dev/null; then
        compute-sanitizer --tool memcheck --error-exitcode 9 $san --gtest_filter='Gpu.Pipeline*:Gpu.BadInput*:Gpu.DeviceResident*:Gpu.PsdAtLowSnr*' > "$OUT/memcheck.log" 2>&1
        status memcheck "$([ $? -eq 0 ] && echo clean || echo ERRORS)"
        compute-sanitizer --tool racecheck --error-exitcode 9 $san --gtest_filter='Gpu.BadInput*:Gpu.PsdAtLowSnr*' > "$OUT/racecheck.log" 2>&1
        status racecheck "$([ $? -eq 0 ] && echo clean || echo ERRORS)"
        # The streaming ring under every pipeline: its own test, abandon included.
        compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/tests/test_gpu_slot_ring >> "$OUT/memcheck.log" 2>&1
        status "memcheck (slot ring)" "$([ $? -eq 0 ] && echo clean || echo ERRORS)"
        ofdm=build-gpu/tests/test_gpu_ofdm_fft
        compute-sanitizer --tool memcheck --error-exitcode 9 $ofdm --gtest_filter='*Chunks*:*NonFinite*:*Window*:*Pinned*:*Separate*:*DeviceResident*:*Registered*' >> "$OUT/memcheck.log" 2>&1
        status "memcheck (ofdm_fft)" "$([ $? -eq 0 ] && echo clean || echo ERRORS)"
        compute-sanitizer --tool racecheck --error-exitcode 9 $ofdm --gtest_filter='*NonFinite*' >> "$OUT/racecheck.log" 2>&1
        status "racecheck (ofdm_fft)" "$([ $? -eq 0 ] && echo clean || echo ERRORS)"
        sanitize 'fused rx' test_gpu_fused_receiver '*Damaged*:*Chunking*:*Decodes*' '*Damaged*'
        sync=build-gpu/tests/test_gpu_frame_sync
        compute-sanitizer --tool memcheck --error-exitcode 9 $sync --gtest_filter='*Small*:*Noise*:*Refuses*' >> "$OUT/memcheck.log" 2>&1 &&
        compute-sanitizer --tool racecheck --error-exitcode 9 $sync --gtest_filter='*Small*' >> "$OUT/racecheck.log" 2>&1 &&
        compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/tests/test_gpu_stream_receiver --gtest_filter='*Small*' >> "$OUT/memcheck.log" 2>&1
        status "sanitizers (sync, stream rx)" "$([ $? -eq 0 ] && echo clean || echo ERRORS)"
        sanitize 'channel smoother' test_gpu_channel_smoother '*Alone*:*Engine*' '*Alone*'
        sanitize 'chanest engine' test_gpu_chanest_engine '' '*Refuses*'
        sanitize 'payload detector' test_gpu_payload_detector '' '*Refuses*'
        sanitize 'apsm' test_gpu_apsm '*NonFinite*:*Refused*:*Refuses*:*OutOfPairs*:*Streamed*' '*NonFinite*:*Refuses*:*OutOfPairs*'
        sanitize 'ldpc' test_gpu_ldpc '*DeviceResident*:*Refuses*' '*DeviceResident*:*Refuses*'
        sanitize 'link sim' test_gpu_link_simulator '*FramesEqual*:*Refusals*' '*FramesEqual*'
    else
        status sanitizers "compute-sanitizer not found"
    fi

    if run_bench; then
        build-gpu/apps/bench/gpumimo_bench $bench_arg > "$OUT/bench.log" 2>&1
        status benchmark "$([ $? -eq 0 ] && echo ok || echo FAILED)"
        build-gpu/apps/bench/gpumimo_fft_bench $bench_arg > "$OUT/fft-bench.log" 2>&1
        status "fft benchmark" "$([ $? -eq 0 ] && echo ok || echo FAILED)"
        # The pipelines' copies alone (the best their chunking allows), appended to the FFT log:
        # only a few files come back.
        { echo; build-gpu/apps/bench/gpumimo_copy_bench; } > "$OUT/copy-bench.log" 2>&1
        status "copy benchmark" "$([ $? -eq 0 ] && echo ok || echo FAILED)"
        cat "$OUT/copy-bench.log" >> "$OUT/fft-bench.log"; rm -f "$OUT/copy-bench.log"
        # The receiver chain: synchronisation (CPU and GPU) and the fused GPU receiver for 16 channels
        # (4 links of 4x4 16-QAM, lte20) against 30.72 Msample/s per channel.
        build-gpu/apps/bench/gpumimo_rx_bench $bench_arg > "$OUT/rx-bench.log" 2>&1
        status "rx chain benchmark" "$([ $? -eq 0 ] && echo ok || echo FAILED)"
        # What the chain loses against perfect channel knowledge, the fused receiver on the GPU
        # (appended to rx-bench.log: only a few files come back).
        { echo; build-gpu/apps/quality/gpumimo_rx_quality --backend cuda --frames 200 --snr 10:1:22; } >> "$OUT/rx-bench.log" 2>&1
        status "rx quality (GPU)" "$(grep -c 'implementation loss' "$OUT/rx-bench.log") curves"
        # LDPC decoding: 802.16e n = 2304 at 10 iterations, GPU beside the CPU on all cores.
        build-gpu/apps/bench/gpumimo_ldpc_bench $bench_arg > "$OUT/ldpc-bench.log" 2>&1
        status "ldpc benchmark" "$([ $? -eq 0 ] && echo ok || echo FAILED)"
        # The link simulator: frames/s of the whole chain, 4x4 16-QAM mtt, GPU beside the CPU.
        build-gpu/apps/bench/gpumimo_link_bench $bench_arg > "$OUT/link-bench.log" 2>&1
        status "link sim benchmark" "$([ $? -eq 0 ] && echo ok || echo FAILED)"
        # APSM on the over-the-air recordings: SER per user and the GPU's detection time for
        # all users at once, with gr-gpumimo's and the library's defaults.
        if [ -n "${GPUMIMO_APSM_OTA_DIR:-}" ]; then
            { build-gpu/apps/apsm/gpumimo_apsm_ota --data "$GPUMIMO_APSM_OTA_DIR" --backend cuda &&
              build-gpu/apps/apsm/gpumimo_apsm_ota --data "$GPUMIMO_APSM_OTA_DIR" --backend cuda --library-defaults; } > "$OUT/apsm.log" 2>&1
            status "apsm (recordings, GPU)" "$([ $? -eq 0 ] && echo ok || echo FAILED)"
        fi
        # APSM training and detection of all users, GPU beside the CPU reference (appended to
        # apsm.log: only a few files come back).
        build-gpu/apps/bench/gpumimo_apsm_bench ${GPUMIMO_APSM_OTA_DIR:+--data "$GPUMIMO_APSM_OTA_DIR"} > "$OUT/apsm-bench.log" 2>&1
        status "apsm benchmark" "$([ $? -eq 0 ] && echo ok || echo FAILED)"
        cat "$OUT/apsm-bench.log" >> "$OUT/apsm.log"
    fi
fi

# The GNU Radio module, where its install prefix and Debian's GNU Radio runtime were
# carried (.device-gr, ../shared/tools/device-gr): the Python QA with the GPU required,
# and the block's rate in a flowgraph.
if [ "$part" = chain ] && [ -f .device-gr/env.sh ]; then
    # The chain's comparison alone, for a change to the chain's blocks: the stream
    # receiver and the chain of 1 and 4 links, with the sample sources' buffers at GNU
    # Radio's default and at 16 frames, alternated, twice.
    ( set -- && source .device-gr/env.sh &&
      for round in 1 2; do for buffer in 0 16; do
          grpython .device-gr/prefix/bin/gpumimo_rx_rate --algorithm mmse --seconds 4 --warmup 1 --source-buffer $buffer &&
          for links in 4 1; do grpython .device-gr/prefix/bin/gpumimo_rx_rate --algorithm mmse --chain --profile --links $links --seconds 3 --warmup 1 --source-buffer $buffer; done
      done; done ) 2>&1 | awk '!/:info:/' > "$OUT/rx-flowgraph-rate.log"
    status "rx flowgraph rate" "$(grep -c 'slowest link' "$OUT/rx-flowgraph-rate.log") runs"
fi
if run_gr && [ -f .device-gr/env.sh ]; then
    # The bundle carries no gr-uhd and no matplotlib: the radio flowgraphs' tests (and
    # the comparison of every example's script, which compiles them) and the main job's
    # figure and the link figure tool's PNG run in CI only. The SigMF reference library
    # comes from .deps/python, without jsonschema: its schema validation runs in CI only.
    ( set -- && source .device-gr/env.sh &&
      DEVICE_GR_PYTHONPATH="$PWD/.deps/python" GPUMIMO_REQUIRE_GPU=1 \
      grpython -B -m pytest -q -rf -p no:cacheprovider -o python_files='qa_*.py' python/gpumimo \
          -k 'not radio_flowgraphs and not committed_scripts and not main_job and not plot_tool and not reference_library_reads_and_validates' ) > "$OUT/python-qa.log" 2>&1
    status "python QA (GPU required)" "$(tail -1 "$OUT/python-qa.log")"
    ( set -- && source .device-gr/env.sh &&
      for fmt in fc16 sc8; do grpython .device-gr/prefix/bin/gpumimo_ofdm_rate --output-format $fmt --seconds 8 --batch 1024; done &&
      grpython .device-gr/prefix/bin/gpumimo_ofdm_rate --output-format fc16 --seconds 8 &&
      for round in 1 2; do for streaming in "" --unstreamed; do
          grpython .device-gr/prefix/bin/gpumimo_ofdm_rate --output-format fc16 --seconds 8 --host-buffers $streaming
      done; done &&
      grpython .device-gr/prefix/bin/gpumimo_ofdm_rate --channels 16 --seconds 5 --backend cpu ) 2>&1 |
        awk '!/:info:/ || /page-locked/ || /cuFFT/ || /single-pass/' > "$OUT/flowgraph-rate.log"
    status "flowgraph rate" "$(grep -c 'Msample/s' "$OUT/flowgraph-rate.log") runs"
    # The receiver chain in a flowgraph: 4 links x 4 antennas of lte20 4x4 16-QAM (the
    # stream receiver: synchronisation inside), and for comparison mimo_ofdm_sync on the
    # CPU before the fused receiver, and the chain of separate GPU blocks (1 and 4 links,
    # each block's share of the time; 1 link again with host buffers between the blocks),
    # the sample sources' buffers at GNU Radio's default; the stream receiver and the
    # 4-link chain again with 16-frame source buffers; then paced at the rate, each
    # frame's latency.
    ( set -- && source .device-gr/env.sh &&
      for algo in mmse mtt psd; do grpython .device-gr/prefix/bin/gpumimo_rx_rate --algorithm $algo --seconds 8; done &&
      grpython .device-gr/prefix/bin/gpumimo_rx_rate --algorithm mmse --seconds 8 --sync-backend cpu &&
      for links in 1 4; do grpython .device-gr/prefix/bin/gpumimo_rx_rate --algorithm mmse --chain --profile --links $links --seconds 3 --warmup 1; done &&
      grpython .device-gr/prefix/bin/gpumimo_rx_rate --algorithm mmse --seconds 8 --source-buffer 16 &&
      grpython .device-gr/prefix/bin/gpumimo_rx_rate --algorithm mmse --chain --links 4 --seconds 3 --warmup 1 --source-buffer 16 &&
      grpython .device-gr/prefix/bin/gpumimo_rx_rate --algorithm mmse --chain --host-buffers --profile --links 1 --seconds 3 --warmup 1 &&
      grpython .device-gr/prefix/bin/gpumimo_rx_rate --algorithm mmse --seconds 8 --latency ) 2>&1 |
        awk '!/:info:/' > "$OUT/rx-flowgraph-rate.log"
    status "rx flowgraph rate" "$(grep -c 'slowest link' "$OUT/rx-flowgraph-rate.log") runs"
    status "latency (mmse, paced)" "$(grep -o 'all links: median.*' "$OUT/rx-flowgraph-rate.log" || echo none)"
fi
if run_chain && [ -f .device-gr/env.sh ]; then
    # The GPU's timeline under the 4-link chain and under the stream receiver (CUPTI's
    # records through apps/bench/gpu_trace; no Nsight Systems there): how much of the
    # time the GPU runs anything, the kernels, the idle gaps, each block's waits.
    trace_lib=/tmp/libgpumimo_gpu_trace.so
    if c++ -std=c++17 -O2 -shared -fPIC apps/bench/gpu_trace/gpu_trace.cc -I/usr/local/cuda/include \
           -L/usr/local/cuda/lib64 -lcupti -Wl,-rpath,/usr/local/cuda/lib64 -o $trace_lib 2> "$OUT/gpu-timeline.log"; then
        for mode in "--chain --links 4" "--links 4" "--chain --links 1"; do
            echo "=== gpumimo_rx_rate --algorithm mmse $mode --seconds 3 --warmup 1, traced" >> "$OUT/gpu-timeline.log"
            ( set -- && source .device-gr/env.sh &&
              CUDA_INJECTION64_PATH=$trace_lib GPUMIMO_TRACE_FILE=/tmp/trace.csv \
              grpython .device-gr/prefix/bin/gpumimo_rx_rate --algorithm mmse $mode --seconds 3 --warmup 1 ) 2>&1 |
                grep -E 'frames/s|slowest|host CPU|gpu_trace' > /tmp/traced-rate.log
            cat /tmp/traced-rate.log >> "$OUT/gpu-timeline.log"
            # The frames of all links in the 1.5 s window, for the figures per frame.
            frames=$(awk '/^ +link [0-9]+: .*frames\/s/ { s += $3 } END { print s * 1.5 }' /tmp/traced-rate.log)
            python3 scripts/gpu_timeline.py /tmp/trace.csv --end-margin 0.7 --span 1.5 --frames "$frames" >> "$OUT/gpu-timeline.log" 2>&1
        done
        status "gpu timeline" "$(grep -c 'GPU running a kernel or a copy' "$OUT/gpu-timeline.log") traces"
    else
        status "gpu timeline" "the tracer did not build"
    fi
fi

if run_core; then
    echo; echo "=== gpu tests (failures) ==="; grep -E "Failure|FAILED" "$OUT/gpu-tests.log" | head -20
    echo; echo "=== link simulator tests: GPU against CPU ==="; grep -E "largest H difference|frame errors, |Q\(sqrt" "$OUT/gpu-tests.log" | sed 's/^[0-9]*: //'
    echo; echo "=== float precision: largest error/bound ==="; awk '{print $NF, $0}' "$OUT/float-precision.txt" | sort -g | tail -5 | cut -d' ' -f2-
    for log in bench fft-bench rx-bench ldpc-bench link-bench; do
        [ -f "$OUT/$log.log" ] && { echo; echo "=== $log ==="; cat "$OUT/$log.log"; }
    done
    [ -f "$OUT/apsm.log" ] && { echo; echo "=== apsm (recordings) ==="; grep -E "^detector|^Q|GPU detection|GPU training" "$OUT/apsm.log" | cut -c1-110; }
    [ -f "$OUT/apsm-bench.log" ] && { echo; echo "=== apsm benchmark ==="; cat "$OUT/apsm-bench.log"; }
fi
[ -f "$OUT/flowgraph-rate.log" ] && { echo; echo "=== flowgraph rate ==="; cat "$OUT/flowgraph-rate.log"; grep -E "passed|failed|FAILED|Error" "$OUT/python-qa.log" | tail -8; }
[ -f "$OUT/rx-flowgraph-rate.log" ] && { echo; echo "=== rx flowgraph rate ==="; cat "$OUT/rx-flowgraph-rate.log"; }
echo; echo "=== summary ==="; cat "$OUT/summary.txt"
