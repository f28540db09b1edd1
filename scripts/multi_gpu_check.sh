#!/usr/bin/env bash
# One command for a machine of several GPUs (issue 29; the device tool's nvidia-h200-x2,
# -x4 or -x8): build the core for sm_90, run the GPU tests (test_gpu_ofdm_fft's
# multi-GPU paths take every visible GPU), then measure the work spread over 1, 2, ...
# and all GPUs: the OFDM FFT (gpumimo_fft_bench), the link simulator
# (gpumimo_link_bench) and, where GNU Radio's runtime was carried (.device-gr), the
# 16-channel receiver and the OFDM FFT block in a flowgraph (gpumimo_rx_rate --devices,
# gpumimo_ofdm_rate --devices) and the receiver's GPU
# Python QA; last the sanitizers on the newest GPU engine.
# Each step has a time limit so that the whole fits one 10-minute call; logs in $OUT.
#
#   scripts/multi_gpu_check.sh [SECONDS]     (SECONDS: each receiver run's measurement, 4)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/build-gpu/out}
mkdir -p "$OUT"
seconds=${1:-4}

source scripts/gpu_common.sh
: > "$OUT/summary.txt"
SECONDS=0

{ nvidia-smi --query-gpu=index,name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max --format=csv
  nvidia-smi topo -m; } > "$OUT/device.txt" 2>&1
gpus=$(nvidia-smi -L | grep -c '^GPU')
all=$(seq -s, 0 $((gpus - 1)))
two=$([ "$gpus" -ge 2 ] && echo 0,1 || echo 0)
status "GPUs" "$gpus ($(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs))"

if build_gpu_core; then
    status build "ok (${SECONDS} s)"
else
    status build FAILED; tail -40 "$OUT/configure.log" "$OUT/build.log"; cat "$OUT/summary.txt"; exit 1
fi

timeout 240 ctest --test-dir build-gpu --output-on-failure -L gpu -V > "$OUT/gpu-tests.log" 2>&1
status "gpu tests" "$(grep -E 'tests passed' "$OUT/gpu-tests.log" || echo FAILED) (${SECONDS} s)"
if [ -f .device-gr/env.sh ]; then
    # The 16-channel receiver (4 links x 4x4 16-QAM, lte20; the stream receiver) on GPU 0
    # alone, then one link per GPU; 8 links (two N310 arrays' 32 channels) over every
    # GPU; the chain of separate blocks over every GPU.
    rx_rate() { timeout 60 grpython .device-gr/prefix/bin/gpumimo_rx_rate --seconds "$seconds" --warmup 2 "$@" 2>&1 |
                awk '!/:info:/'; }
    ( set -- && source .device-gr/env.sh &&
      for devices in 0 "$two" "$all"; do rx_rate --algorithm mmse --devices "$devices"; done
      rx_rate --algorithm psd --devices "$two"
      for algo in mtt psd; do rx_rate --algorithm $algo --devices "$all"; done
      rx_rate --algorithm mmse --links 8 --devices "$all"
      rx_rate --algorithm psd --links 8 --devices "$all"
      rx_rate --algorithm mmse --chain --profile --devices "$all" ) > "$OUT/rx-flowgraph-rate.log"
    status "rx flowgraph rate" "$(grep -c 'slowest link' "$OUT/rx-flowgraph-rate.log") runs (${SECONDS} s)"
    # The OFDM FFT block of 16 channels in a flowgraph, its chunks over 1, 2 and every GPU.
    ( set -- && source .device-gr/env.sh &&
      for devices in 0 "$two" "$all"; do
          timeout 40 grpython .device-gr/prefix/bin/gpumimo_ofdm_rate --output-format fc16 \
              --seconds "$seconds" --devices "$devices"
      done ) 2>&1 | awk '!/:info:/' > "$OUT/flowgraph-rate.log"
    status "flowgraph rate (ofdm_fft)" "$(grep -c 'Msample/s' "$OUT/flowgraph-rate.log") runs (${SECONDS} s)"
fi

timeout 90 build-gpu/apps/bench/gpumimo_fft_bench --quick > "$OUT/fft-bench.log" 2>&1
status "fft benchmark" "$([ $? -eq 0 ] && echo ok || echo FAILED)"
timeout 90 build-gpu/apps/bench/gpumimo_link_bench --quick > "$OUT/link-bench.log" 2>&1
status "link sim benchmark" "$([ $? -eq 0 ] && echo ok || echo FAILED) (${SECONDS} s)"

# The GPU Python QA of the receiver's blocks (the rest, and why the main job's and the
# plot tool's tests run in CI only, as in gpu_check.sh) and the sanitizers on the
# payload detector, last: measurements first.
if [ -f .device-gr/env.sh ]; then
    ( set -- && source .device-gr/env.sh &&
      DEVICE_GR_PYTHONPATH="$PWD/.deps/python" GPUMIMO_REQUIRE_GPU=1 \
      timeout 100 grpython -B -m pytest -q -rf -p no:cacheprovider python/gpumimo/qa_mimo_receiver.py \
          -k 'not main_job and not plot_tool' ) > "$OUT/python-qa.log" 2>&1
    status "python QA (receiver, GPU)" "$(tail -1 "$OUT/python-qa.log")"
fi
if command -v compute-sanitizer > /dev/null; then
    payload=build-gpu/tests/test_gpu_payload_detector
    timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $payload > "$OUT/sanitizers.log" 2>&1 &&
    timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $payload --gtest_filter='*Refuses*' >> "$OUT/sanitizers.log" 2>&1
    status "sanitizers (payload det.)" "$([ $? -eq 0 ] && echo clean || echo ERRORS)"
fi

(cd "$OUT" && tar czf multi-gpu-logs.tgz configure.log build.log gpu-tests.log sanitizers.log python-qa.log 2>/dev/null &&
    rm -f configure.log build.log sanitizers.log)
echo "=== device ==="; cat "$OUT/device.txt"
echo; echo "=== gpu tests ==="; grep -E "tests passed|Failure|FAILED|\[ devices" "$OUT/gpu-tests.log" | head -20; rm -f "$OUT/gpu-tests.log"
echo; echo "=== fft benchmark ==="; cat "$OUT/fft-bench.log"
echo; echo "=== link simulator benchmark ==="; cat "$OUT/link-bench.log"
[ -f "$OUT/rx-flowgraph-rate.log" ] && { echo; echo "=== rx flowgraph rate ==="; cat "$OUT/rx-flowgraph-rate.log"; }
[ -f "$OUT/flowgraph-rate.log" ] && { echo; echo "=== ofdm_fft flowgraph rate ==="; cat "$OUT/flowgraph-rate.log"; }
[ -f "$OUT/python-qa.log" ] && { echo; echo "=== python QA ==="; grep -E "passed|failed|FAILED|Error" "$OUT/python-qa.log" | tail -8; rm -f "$OUT/python-qa.log"; }
echo; echo "=== summary ==="; cat "$OUT/summary.txt"
