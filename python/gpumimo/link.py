#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Coded link-level simulation from Python: gpumimo.link_simulate() runs the core's link
simulator (docs/link_simulation.md); read_link_csv(), snr_at_fer() and plot_link_results()
turn its results (or gpumimo_link_sim's CSV) into the figures of the docs."""

import csv
import math
import secrets

from . import gpumimo_python as _b


def link_simulate(snr_db, nt=4, nr=4, modulation="16qam", detector="mtt", kbest_k=16,
                  nway_passes=0, list_llr_clip=8.0, llr_clip=0.0, mtt_one_pass=False,
                  channel="rayleigh", coherence=1,
                  tap_powers=(1.0,), fft_len=256, coded=True, code=None,
                  uncoded_frame_bits=2304, decoder="min_sum", iterations=10,
                  normalisation=0.75, offset=0.0, early_termination=True, interleave=True,
                  frame_errors=100, max_frames=10000, backend="auto", device=0, threads=0,
                  seed=None, progress=None):
    """BER and FER against SNR of one detector over a coded MIMO link.

    Each SNR (per receive antenna, dB) runs frames until `frame_errors` frame errors or
    `max_frames` frames. llr_clip clips every LLR (0: not); mtt_one_pass makes
    detector="mtt" the one-pass trellis. code: an ldpc_code (default: 802.16e rate 1/2, n = 2304);
    coded=False sends uncoded frames of uncoded_frame_bits bits. seed: None draws a fresh
    one (returned in the result). progress: called with each point's dict after every
    batch. Returns a dict: "points" (one dict per SNR: snr_db, ebn0_db, frames,
    frame_errors, fer, info_bits, bit_errors, ber, raw_ber, mean_iterations, seconds),
    "backend" ("cpu" or "cuda"), "fallback" (why "auto" took the CPU), "seed".
    Raises ValueError for a configuration out of range."""
    if seed is None:
        seed = secrets.randbits(63)
    params = _b.detector_params()
    params.kbest_k = int(kbest_k)
    params.nway_passes = int(nway_passes)
    params.list_llr_clip = float(list_llr_clip)
    params.llr_clip = float(llr_clip)
    params.mtt_one_pass = bool(mtt_one_pass)
    cfg = _b.ldpc_decoder_config()
    cfg.algorithm = decoder
    cfg.max_iterations = int(iterations)
    cfg.normalisation = float(normalisation)
    cfg.offset = float(offset)
    cfg.early_termination = bool(early_termination)
    if coded and code is None:
        code = _b.wimax_rate_half_code(2304)
    points, used, fallback = _b._link_simulate(
        [float(s) for s in snr_db], int(nt), int(nr), modulation, detector, params, channel,
        int(coherence), [float(p) for p in tap_powers], int(fft_len),
        code if coded else None, int(uncoded_frame_bits), cfg, bool(interleave),
        int(frame_errors), int(max_frames), backend, int(device), int(threads), int(seed),
        progress)
    return {"points": points, "backend": used, "fallback": fallback, "seed": seed}


def read_link_csv(*paths):
    """The rows of gpumimo_link_sim CSV files, numbers converted."""
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                for key in ("snr_db", "ebn0_db", "fer", "ber", "raw_ber", "mean_iterations",
                            "seconds", "frames_per_s"):
                    row[key] = float(row[key])
                for key in ("nt", "nr", "iterations", "frames", "frame_errors", "info_bits",
                            "bit_errors"):
                    row[key] = int(row[key])
                rows.append(row)
    return rows


def snr_at_fer(points, target=1e-2, x="snr_db"):
    """The x (SNR or Eb/N0) where the FER curve crosses `target`, interpolated linearly in
    log FER between the two points around it; None when the points do not bracket it."""
    pts = sorted((p[x], p["fer"]) for p in points)
    for (x0, f0), (x1, f1) in zip(pts, pts[1:]):
        if f0 >= target > f1:
            if f1 <= 0:
                return None  # no errors at x1: the crossing is not resolved
            t = (math.log10(f0) - math.log10(target)) / (math.log10(f0) - math.log10(f1))
            return x0 + t * (x1 - x0)
    return None


def plot_link_results(rows, path, title=None, x="snr_db"):
    """A PNG like the papers' figures: FER (left) and BER (right) against SNR, one curve
    per detector, points without errors left out (a log axis has no zero)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = {}
    for row in rows:
        curves.setdefault(row["detector"], []).append(row)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    markers = "os^vD<>pPX*h"
    for i, (label, pts) in enumerate(curves.items()):
        pts = sorted(pts, key=lambda p: p[x])
        for ax, key in zip(axes, ("fer", "ber")):
            xs = [p[x] for p in pts if p[key] > 0]
            ys = [p[key] for p in pts if p[key] > 0]
            ax.semilogy(xs, ys, marker=markers[i % len(markers)], label=label)
    xlabel = "SNR per receive antenna (dB)" if x == "snr_db" else "Eb/N0 (dB)"
    for ax, name in zip(axes, ("FER", "BER")):
        ax.set_xlabel(xlabel)
        ax.set_ylabel(name)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    if title is None and rows:
        title = rows[0].get("title", "")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
