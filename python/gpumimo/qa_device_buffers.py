#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Device-resident stream buffers between GPU blocks (lib/device_stream_buffer.h):
mimo_chanest on the GPU writes its payload into GPU memory, and mimo_detector on the
GPU reads it there. Every mix of the two blocks' backends gives the host chain's frames,
tags and LLRs: both on the GPU (the payload never leaves the device), the estimator on
the GPU before a CPU detector (GNU Radio copies to the host after each call), a CPU
estimator before the GPU detector (copied up); long enough that the single-mapped
buffers wrap. A device output feeding a GPU and a CPU block at once is refused at
start. Without a GPU the same flowgraphs run on the CPU ("auto") and must give the host
chain's LLRs bit for bit (GPUMIMO_REQUIRE_GPU=1 makes a missing GPU a failure)."""

import os
import sys

import numpy as np
import pytest

from gnuradio import blocks, gr, gpumimo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_mimo_receiver import SEED, rx_samples  # noqa: E402

HAVE_GPU = gpumimo.cuda_device_count()[0] > 0
GPU = "cuda" if HAVE_GPU else "auto"
STREAMS, ANTENNAS, MOD, NSYM = 2, 4, "16qam", 3
BITS = 8  # LLRs per vector: 2 streams x 4 bits


def test_gpu_presence_is_as_required():
    if os.environ.get("GPUMIMO_REQUIRE_GPU") == "1":
        assert HAVE_GPU, gpumimo.cuda_device_count()[1]


def chain(x, chanest_backend, detector_backend, tap_payload=False):
    """x through sync and FFT on the CPU, then mimo_chanest and mimo_detector on the
    backends given; tap_payload: mimo_chanest's antenna 0 also into a CPU sink."""
    tb = gr.top_block()
    num = gpumimo.numerology("small")
    sync = gpumimo.mimo_ofdm_sync("small", STREAMS, MOD, NSYM, ANTENNAS, 0.0, "cpu")
    fft = gpumimo.ofdm_fft(num["fft_len"], num["cp_lengths"], num["carriers"], forward=True,
                           scale=num["scale"], channels=ANTENNAS, backend="cpu",
                           sync_tag="frame_start")
    chanest = gpumimo.mimo_chanest("small", STREAMS, MOD, NSYM, ANTENNAS, "lmmse", False,
                                   chanest_backend)
    detector = gpumimo.mimo_detector("small", STREAMS, MOD, ANTENNAS, "mmse", detector_backend)
    sink = blocks.vector_sink_f()
    for a in range(ANTENNAS):
        tb.connect(blocks.vector_source_c(x[a].tolist()), (sync, a), (fft, a), (chanest, a),
                   (detector, a))
    tb.connect(detector, sink)
    if tap_payload:
        tap = blocks.vector_sink_c(num["used_carriers"])
        tb.connect((chanest, 0), tap)
        return tb, chanest, detector, sink, tap
    return tb, chanest, detector, sink


def run_chain(x, chanest_backend, detector_backend):
    tb, chanest, detector, sink = chain(x, chanest_backend, detector_backend)
    tb.run()
    return np.array(sink.data(), dtype=np.float32), chanest, detector


@pytest.fixture(scope="module")
def samples():
    # 60 frames: several times each block's buffer (mimo_chanest's holds 32 frames'
    # payload), so that the single-mapped device buffers wrap.
    x, _ = rx_samples(STREAMS, ANTENNAS, MOD, NSYM, 60, snr_db=24, cfo=0.1 / 64, delay=21,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 41)
    return x


@pytest.fixture(scope="module")
def host_chain(samples):
    llr, chanest, detector = run_chain(samples, "cpu", "cpu")
    assert chanest.backend() == "cpu" and detector.backend() == "cpu"
    assert chanest.frames() >= 55 and llr.size == detector.symbols() * BITS * 44
    return llr, chanest.frames(), detector.symbols()


@pytest.mark.parametrize("backends", [(GPU, GPU), (GPU, "cpu"), ("cpu", GPU)],
                         ids=["both-on-gpu", "gpu-then-cpu", "cpu-then-gpu"])
def test_every_mix_of_backends_gives_the_host_chains_llrs(samples, host_chain, backends):
    want, frames, symbols = host_chain
    got, chanest, detector = run_chain(samples, *backends)
    on_gpu = [b != "cpu" and HAVE_GPU for b in backends]
    assert [chanest.backend() == "cuda", detector.backend() == "cuda"] == on_gpu
    # The same frames, symbols and tags' worth of LLRs: nothing lost or doubled in the
    # buffers' copies and wraps.
    assert chanest.frames() == frames and chanest.dropped_frames() == 0
    assert detector.symbols() == symbols and detector.erased_symbols() == 0
    assert got.size == want.size
    assert np.all(np.isfinite(got))
    if not any(on_gpu):  # the CPU fallback: the host chain exactly
        np.testing.assert_array_equal(got, want)
        return
    # The GPU's float smoothing and detection: within 1e-3 of each vector's largest LLR
    # (as test_chanest_smoothing_backends_agree).
    scale = np.maximum(1.0, np.abs(want).reshape(-1, BITS).max(axis=1)).repeat(BITS)
    assert np.all(np.abs(got - want) <= 1e-3 * scale), np.max(np.abs(got - want) / scale)


def test_a_device_output_feeding_gpu_and_cpu_blocks(samples, host_chain):
    """GNU Radio keeps one transfer type a buffer: mimo_chanest's antenna 0 on the GPU read
    by the GPU detector and a CPU sink at once is refused when the flowgraph starts, a
    RuntimeError before any thread runs. On the CPU (no GPU: host buffers) the same
    flowgraph runs, the sink getting the host chain's payload."""
    want, frames, _ = host_chain
    tb, chanest, _, sink, tap = chain(samples, GPU, GPU, tap_payload=True)
    if HAVE_GPU:
        with pytest.raises(RuntimeError, match="Cannot change to transfer type"):
            tb.run()
        return
    tb.run()
    np.testing.assert_array_equal(np.array(sink.data(), dtype=np.float32), want)
    tb_host, _, _, _, tap_host = chain(samples, "cpu", "cpu", tap_payload=True)
    tb_host.run()
    payload = np.array(tap.data(), dtype=np.complex64)
    assert chanest.frames() == frames and payload.size == frames * NSYM * 48
    np.testing.assert_array_equal(payload, np.array(tap_host.data(), dtype=np.complex64))
