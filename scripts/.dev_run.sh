#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu_common.sh
nvidia-smi --query-gpu=name --format=csv,noheader
( build_gpu_core && echo build ok || { tail -30 $OUT/build.log; exit 1; } ) | tail -3
build-gpu/tests/test_gpu_payload_detector > "$OUT/pd.log" 2>&1; echo "test_gpu_payload_detector rc=$? $(grep -E 'PASSED|FAILED' $OUT/pd.log | tr '\n' ' ')"
compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/tests/test_gpu_payload_detector > $OUT/memcheck.log 2>&1; echo "memcheck payload rc=$?"
( set -- && source .device-gr/env.sh &&
  DEVICE_GR_PYTHONPATH="$PWD/.deps/python" GPUMIMO_REQUIRE_GPU=1 \
  grpython -B -m pytest -q -rf -p no:cacheprovider python/gpumimo/qa_device_buffers.py python/gpumimo/qa_mimo_receiver.py python/gpumimo/qa_grc_examples.py python/gpumimo/qa_robustness.py -k 'not radio_flowgraphs and not committed_scripts and not main_job and not plot_tool' ) > "$OUT/python-qa.log" 2>&1
tail -4 "$OUT/python-qa.log"
rate() { grpython .device-gr/prefix/bin/gpumimo_rx_rate --algorithm mmse "$@" 2>&1 | awk '!/:info:/ && !/:debug:/' | grep -E "slowest|mimo_|host CPU|refused|erased"; }
( set -- && source .device-gr/env.sh
  for links in 1 4; do
    echo "== chain $links links, estimate stream"; rate --chain --profile --links $links --seconds 3 --warmup 1
    echo "== chain $links links, estimate tags"; rate --chain --profile --links $links --seconds 3 --warmup 1 --estimate-tags
  done
  echo "== chain 4 links, estimate stream (again)"; rate --chain --links 4 --seconds 3 --warmup 1
  echo "== stream receiver 4 links"; rate --seconds 4 )
