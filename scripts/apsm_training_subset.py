#!/usr/bin/env python3
#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""What training on a subset of a frame's pilots costs the APSM receiver (apsm_ofdm_rx's
max_training, core::training_subset): the users of mimo_ofdm_tx's frames through the
channel simulator (flat Rayleigh, a delay of 37 samples) into the APSM chain once per
subset size, and the MMSE chain beside it on the same samples; one training, on the
first frame; BER of each, counted by llr_sink against the PRBS.

    PYTHONPATH=build/test_modules scripts/apsm_training_subset.py --preset lte20 \\
        --users 6 --antennas 16 --snr 14,18 --frames 8 --subsets 0,4096,2048,685

Runs on the CPU unless --backend cuda (the GPU trains on at most 4096 pilots).
"""

import argparse
import time

from gnuradio import gpumimo


def run(preset, users, antennas, modulation, nsym, snr_db, frames, subset, backend, seed):
    """(APSM BER, MMSE BER, pilots a training took, training ms) for one subset size."""
    apsm, *sinks = gpumimo.apsm_beside_mmse(preset, users, modulation, nsym, antennas, snr_db,
                                             frames + 1, seed=seed, backend=backend,
                                             max_training=subset)
    return (sinks[0].ber(), sinks[1].ber(), apsm.detector.training_used(),
            apsm.detector.last_training_ms(), sinks[0].frames())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--preset", default="lte20")
    p.add_argument("--users", type=int, default=6)
    p.add_argument("--antennas", type=int, default=16)
    p.add_argument("--modulation", default="16qam")
    p.add_argument("--payload-symbols", type=int, default=4)
    p.add_argument("--snr", default="14,18", help="SNRs in dB, comma-separated")
    p.add_argument("--frames", type=int, default=8)
    p.add_argument("--subsets", default="0,4096,2048,685",
                   help="max_training values, comma-separated (0: every pilot)")
    p.add_argument("--backend", default="cpu")
    p.add_argument("--seed", type=int, default=7)
    a = p.parse_args()
    print(f"apsm_training_subset: {a.preset}, {a.users} users, {a.antennas} antennas, "
          f"{a.modulation}, {a.payload_symbols} payload symbols, {a.frames} frames, "
          f"flat Rayleigh, seed {a.seed}, backend {a.backend}")
    print(f"{'SNR dB':>6} {'max_training':>12} {'pilots':>6} {'frames':>6} "
          f"{'APSM BER':>9} {'MMSE BER':>9} {'training ms':>11} {'wall s':>6}")
    for snr in (float(s) for s in a.snr.split(",")):
        for subset in (int(s) for s in a.subsets.split(",")):
            t0 = time.perf_counter()
            ber, mmse, used, ms, frames = run(a.preset, a.users, a.antennas, a.modulation,
                                              a.payload_symbols, snr, a.frames, subset,
                                              a.backend, a.seed)
            print(f"{snr:6.1f} {subset:12d} {used:6d} {frames:6d} {ber:9.2e} {mmse:9.2e} "
                  f"{ms:11.1f} {time.perf_counter() - t0:6.1f}", flush=True)


if __name__ == "__main__":
    main()
