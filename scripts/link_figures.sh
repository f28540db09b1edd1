#!/usr/bin/env bash
# The papers' coded error-rate figures on the GPU machine (core only): builds
# gpumimo_link_sim for sm_90 and runs the configurations of mtt-soft-mimo-detector-gpu.txt
# figure 7 and nway-mimo-detector-gpu.txt figure 3 into $OUT/link-*.csv, each run under
# a time limit so that one device call holds them all. gpumimo_link_plot draws the CSVs
# (docs/link_simulation.md).
#
#   scripts/link_figures.sh [SECONDS_PER_RUN]
#
# LINK_FIGURES_ONLY=REGEX runs only the detectors it matches (to add curves to the CSVs).
# "mtt+clip" is mtt with its LLRs clipped to +-8 (--llr-clip 8), the list detectors' bound.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/build-gpu/out}
mkdir -p "$OUT"
per_run=${1:-40}
gtest_arg=()
[ -d .deps/googletest ] && gtest_arg=(-DGPUMIMO_GTEST_SOURCE_DIR="$PWD/.deps/googletest")
cmake -S . -B build-gpu -G Ninja -DGPUMIMO_CORE_ONLY=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    "${gtest_arg[@]}" > "$OUT/figures-build.log" 2>&1 &&
    cmake --build build-gpu -j "$(nproc)" --target gpumimo_link_sim >> "$OUT/figures-build.log" 2>&1 ||
    { tail -30 "$OUT/figures-build.log"; exit 1; }
sim=build-gpu/apps/link/gpumimo_link_sim

# run CSV TITLE ARGS...: one figure's curves, each detector under the time limit.
run() {
    local csv=$1 title=$2; shift 2
    local common=(--title "$title" --csv "$OUT/$csv" --seed 2026 --quiet --backend cuda "$@")
    echo "== $title" >> "$OUT/figures.log"
    for det in "${detectors[@]}"; do
        [[ $det =~ ${LINK_FIGURES_ONLY:-.} ]] || continue
        local frames=$max_frames which=(--detectors "$det")
        case $det in ml|kbest:64|kbest:128) frames=$slow_frames ;; esac
        [[ $det == *+clip ]] && which=(--detectors "${det%+clip}" --llr-clip 8)
        timeout "$per_run" "$sim" "${common[@]}" "${which[@]}" --max-frames "$frames" \
            >> "$OUT/figures.log" 2>&1 || echo "   $det: stopped (exit $?)" >> "$OUT/figures.log"
    done
}

max_frames=100000
slow_frames=20000
# mtt paper, figure 7: MTT, the one-pass trellis (ot), K-best with K = Q, exhaustive ML;
# min-sum, 15 iterations.
fig7=(--iterations 15 --frame-errors 100)
detectors=(mtt ot kbest:4 ml)
run link-mtt-fig7.csv "2x2 QPSK (mtt fig. 7a)" --nt 2 --nr 2 --modulation qpsk --snr 0:1:14 "${fig7[@]}"
detectors=(mtt mtt+clip ot kbest:4 ml)
run link-mtt-fig7.csv "4x4 QPSK (mtt fig. 7b)" --nt 4 --nr 4 --modulation qpsk --snr 0:1:14 "${fig7[@]}"
detectors=(mtt ot kbest:16 ml)
run link-mtt-fig7.csv "2x2 16-QAM (mtt fig. 7c)" --nt 2 --nr 2 --modulation 16qam --snr 4:1:20 "${fig7[@]}"
detectors=(mtt mtt+clip ot kbest:16 ml)
run link-mtt-fig7.csv "4x4 16-QAM (mtt fig. 7d)" --nt 4 --nr 4 --modulation 16qam --snr 4:1:20 "${fig7[@]}"
detectors=(mtt ot kbest:64 ml)
run link-mtt-fig7.csv "2x2 64-QAM (mtt fig. 7e)" --nt 2 --nr 2 --modulation 64qam --snr 8:1:26 "${fig7[@]}"
detectors=(mtt mtt+clip ot kbest:64)
run link-mtt-fig7.csv "4x4 64-QAM (mtt fig. 7f)" --nt 4 --nr 4 --modulation 64qam --snr 8:1:26 "${fig7[@]}"
# nway paper, figure 3: N = 1..4, the trellis detector (mtt), K-best, ML; 20 iterations.
fig3=(--iterations 20 --frame-errors 100)
detectors=(nway:1 nway:2 nway:3 nway:4 mtt mtt+clip kbest:64 ml)
run link-nway-fig3.csv "4x4 16-QAM (nway fig. 3)" --nt 4 --nr 4 --modulation 16qam --snr 4:1:20 "${fig3[@]}"
detectors=(nway:1 nway:2 nway:3 nway:4 mtt mtt+clip kbest:128)
run link-nway-fig3.csv "4x4 64-QAM (nway fig. 3)" --nt 4 --nr 4 --modulation 64qam --snr 8:1:26 "${fig3[@]}"
grep -E "^==|stopped|gpumimo_link_sim:" "$OUT/figures.log" | tail -40
