#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The fused receiver block (FFT, channel estimation and detection of whole frames in
one block, on the GPU or the CPU): the same LLRs as the separate blocks after the same
synchroniser, every bit back at high SNR, frame tags on each frame's first LLR, int8 as
the float LLRs scaled, damaged frames as zeros and counted, bad parameters refused, and
on a GPU the CUDA path against the CPU path (skipped without a GPU;
GPUMIMO_REQUIRE_GPU=1 makes its absence a failure)."""

import os
import sys

import numpy as np
import pmt
import pytest

from gnuradio import blocks, gr, gpumimo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_mimo_receiver import SEED, rx_samples  # noqa: E402

HAVE_GPU = gpumimo.cuda_device_count()[0] > 0


def through(x, streams, modulation, nsym, fused, backend="cpu", algorithm="mmse",
            int8=False):
    """x [antennas, n] through mimo_ofdm_rx (fused or the separate blocks); the LLRs
    and the receiver."""
    tb = gr.top_block()
    rx = gpumimo.mimo_ofdm_rx("small", streams, modulation, nsym, x.shape[0], algorithm,
                              backend=backend, fft_backend="cpu", int8_output=int8,
                              fused=fused)
    sink = blocks.vector_sink_b() if int8 else blocks.vector_sink_f()
    for a in range(x.shape[0]):
        tb.connect(blocks.vector_source_c(x[a].tolist()), (rx, a))
    tb.connect(rx, sink)
    tb.run()
    if int8:  # vector_sink_b hands bytes back as 0..255
        return np.array(sink.data(), dtype=np.uint8).view(np.int8), rx, sink
    return np.array(sink.data(), dtype=np.float32), rx, sink


def test_fused_gives_the_separate_blocks_llrs():
    x, _ = rx_samples(2, 3, "16qam", 3, 4, snr_db=18, cfo=0.2 / 64, delay=50,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 21)
    sep, rx_sep, _ = through(x, 2, "16qam", 3, fused=False)
    fus, rx_fus, _ = through(x, 2, "16qam", 3, fused=True)
    assert rx_fus.fused.backend() == "cpu"
    assert sep.size == fus.size == rx_fus.fused.frames() * rx_fus.fused.payload_bits() > 0
    np.testing.assert_allclose(fus, sep, rtol=1e-4, atol=1e-4)
    assert rx_fus.fused.damaged_frames() == 0 and rx_fus.fused.unusable_estimates() == 0


@pytest.mark.parametrize("algorithm", ["mmse", "kbest", "psd"])
def test_fused_loopback_every_bit_and_frame_tags(algorithm):
    frames, nsym = 4, 3
    x, _ = rx_samples(2, 4, "16qam", nsym, frames, snr_db=45, cfo=0.3 / 64, delay=11,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 22, prbs_seed=7)
    llr, rx, sink = through(x, 2, "16qam", nsym, fused=True, algorithm=algorithm)
    bits = rx.fused.payload_bits()
    assert rx.fused.frames() >= frames and llr.size == rx.fused.frames() * bits
    want = gpumimo.prbs_bits(23, 7, llr.size)  # the transmitter's PRBS, frame after frame
    np.testing.assert_array_equal((llr > 0).astype(np.uint8), want)
    starts = [t for t in sink.tags() if pmt.symbol_to_string(t.key) == "frame_start"]
    assert [t.offset for t in starts] == [f * bits for f in range(rx.fused.frames())]
    assert 0 < rx.fused.last_noise_var() < 1e-3  # 45 dB below a unit-power signal


def test_int8_output_is_the_float_llrs_scaled():
    x, _ = rx_samples(2, 2, "qpsk", 2, 3, snr_db=12, cfo=0, delay=3, seed=SEED + 23)
    f, _, _ = through(x, 2, "qpsk", 2, fused=True)
    q, _, _ = through(x, 2, "qpsk", 2, fused=True, int8=True)
    np.testing.assert_array_equal(q, np.clip(np.round(f * 8.0), -127, 127).astype(np.int8))


def test_damaged_frames_leave_as_zeros_and_are_counted():
    """Frames straight in (as the synchroniser sends them): one with a NaN, one silent."""
    info = gpumimo.frame_info("small", 2, "qpsk", 2)
    n, frames = info["samples"], 4
    rng = np.random.default_rng(SEED + 24)
    bits = gpumimo.prbs_bits(23, 3, frames * info["payload_bits"])
    tx = np.concatenate([gpumimo.frame_samples("small", 2, "qpsk", 2,
                                               bits[f * info["payload_bits"]:(f + 1) * info["payload_bits"]])
                         .reshape(2, n) for f in range(frames)], axis=1)
    h = (rng.normal(size=(2, 2)) + 1j * rng.normal(size=(2, 2))) / np.sqrt(2)
    x = (h @ tx).astype(np.complex64)
    x += (0.01 * (rng.normal(size=x.shape) + 1j * rng.normal(size=x.shape))).astype(np.complex64)
    x[1, n + 30] = np.nan  # frame 1
    x[:, 2 * n:3 * n] = 0  # frame 2: silent, no usable estimate
    tb = gr.top_block()
    fr = gpumimo.fused_receiver("small", 2, "qpsk", 2, 2, "mmse", backend="cpu")
    sink = blocks.vector_sink_f()
    for a in range(2):
        tb.connect(blocks.vector_source_c(x[a].tolist()), (fr, a))
    tb.connect(fr, sink)
    tb.run()
    llr = np.array(sink.data()).reshape(frames, -1)
    assert fr.frames() == frames and fr.damaged_frames() == 1 and fr.unusable_estimates() == 1
    assert np.all(np.isfinite(llr))
    assert np.all(llr[1] == 0) and np.all(llr[2] == 0)
    good = np.r_[0, 3]
    np.testing.assert_array_equal((llr[good] > 0).astype(np.uint8).ravel(),
                                  bits.reshape(frames, -1)[good].ravel())


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        gpumimo.fused_receiver("small", 4, "qpsk", 2, 2)  # fewer antennas than streams
    with pytest.raises(ValueError):
        gpumimo.fused_receiver("small", 2, "qpsk", 0, 2)
    with pytest.raises(ValueError):
        gpumimo.fused_receiver("small", 2, "qpsk", 2, 2, "nonesuch")
    with pytest.raises(ValueError):
        gpumimo.fused_receiver("small", 2, "qpsk", 2, 2, backend="opencl")
    with pytest.raises(ValueError):
        gpumimo.fused_receiver("small", 2, "qpsk", 2, 2, int8_scale=0)
    if not HAVE_GPU:
        with pytest.raises(RuntimeError):
            gpumimo.fused_receiver("small", 2, "qpsk", 2, 2, backend="cuda")


def test_gpu_path_equals_the_cpu_path():
    if not HAVE_GPU:
        assert os.environ.get("GPUMIMO_REQUIRE_GPU") != "1", gpumimo.cuda_device_count()[1]
        pytest.skip("no usable CUDA device: " + gpumimo.cuda_device_count()[1])
    x, _ = rx_samples(4, 4, "16qam", 5, 12, snr_db=22, cfo=-0.1 / 64, delay=70,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 25)
    cpu, _, _ = through(x, 4, "16qam", 5, fused=True, backend="cpu")
    gpu, rx, _ = through(x, 4, "16qam", 5, fused=True, backend="cuda")
    assert rx.fused.backend() == "cuda"
    assert gpu.size == cpu.size > 0
    # Within 1e-3 of each LLR's vector's largest |LLR| (at least 1): float rounding errs
    # in proportion to the squared distances an LLR is the difference of
    # (tests/frame/test_gpu_fused_receiver.cc, vector_scale).
    per_vector = 4 * 4  # 4 streams of 16-QAM
    scale = np.maximum(1, np.abs(cpu).reshape(-1, per_vector).max(axis=1)).repeat(per_vector)
    assert np.all(np.abs(gpu - cpu) <= 1e-3 * scale), np.max(np.abs(gpu - cpu) / scale)
