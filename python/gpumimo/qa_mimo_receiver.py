#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The streaming MIMO-OFDM receiver in flowgraphs: mimo_ofdm_tx -> mimo_channel ->
mimo_ofdm_rx (sync, OFDM FFT, chanest, detector) -> llr_sink. Every detector gets every
payload bit back at high SNR; frames are found under carrier and timing offsets; the
channel estimates' error and the noise estimate match theory on a channel set from
numpy; the LLR file and its sidecar say what the bits were; a payload of bytes is scored
against its file; damaged frames (NaN samples, radio overflows) are dropped and counted,
never turned into NaN LLRs."""

import json
import pathlib
import re
import subprocess
import os
import sys

import numpy as np
import pmt
import pytest

from gnuradio import blocks, gr, gpumimo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import grc_blocks_dir, seeded_rng  # noqa: E402

SEED = int(os.environ.get("GPUMIMO_TEST_SEED", np.random.SeedSequence().entropy % 2**31))
print(f"GPUMIMO_TEST_SEED={SEED}")
PAYLOAD_POWER = 48 / 64  # the small numerology: used carriers / FFT length
# The small numerology's payload carriers (indices into the 48 used ones): 44, the 4
# tracking carriers left out.
DATA = gpumimo.numerology("small")["data_carriers"]
D = len(DATA)
TRACKING = gpumimo.numerology("small")["tracking_carriers"]


@pytest.fixture(autouse=True)
def _print_the_seed():
    """The seed in every test's captured output (a failure shows it; the module-level
    print happens at collection, where a failure's report does not)."""
    print(f"GPUMIMO_TEST_SEED={SEED}")


def assert_turned_by_one_phase(got, sent, noise, antennas, streams, power=None):
    """mimo_chanest's payload output ([frame][symbol][carrier]) is its input turned by one
    phase per symbol (the tracking pilots' common phase). The channel here does not move:
    the phase is noise alone, spread sqrt(N0 / P) with P the tracking pilots' received
    power (sum over the 4 tracking carriers and the antennas of |h p|^2): the received
    pilots' noise, N0 / (2 P), and about as much again from the estimate they are
    compared with. Per frame and symbol from its own power ([frame][symbol]) where the
    test knows it, else for unit gains (4 x antennas x streams). Over 30 seeds of the
    least-squares test the worst of its 60 phases came to 1.7-5.5 spreads (the maximum
    of 60 normal draws is about 2.5) and once to 10.3, on a frame of ordinary pilot
    power (seed 3013, frame 13: 0.22 rad): a tail this model does not explain, left
    open (the closing note of 2026-11-28); the bound is 15. Before, a bound of
    sqrt(N0 / (2 P)) for unit gains failed in CI at 10.2 of its spreads."""
    if power is None:
        power = np.full(got.shape[:2], 4.0 * antennas * streams)
    most = 15 * np.sqrt(noise / power)  # [frame][symbol]
    w = got / sent
    np.testing.assert_allclose(np.abs(w), 1, atol=1e-4)
    np.testing.assert_allclose(w, np.repeat(w[:, :, :1], w.shape[2], 2), atol=1e-4)
    worst = np.max(np.abs(np.angle(w)), axis=2)  # [frame][symbol]
    print(f"tracking phase: at most {np.max(worst / most) * 15:.2f} spreads")
    assert np.all(worst < most), (np.max(worst / most) * 15, "spreads")


def rx_samples(streams, antennas, modulation, nsym, frames, snr_db, cfo, delay,
               taps=(1.0,), gap=40, seed=1, prbs_seed=7, payload_bytes=None, doppler=0.0,
               code="", pilot_interval=0, preset="small"):
    """The channel's output for `frames` frames and one more (the synchroniser needs a
    margin after the last), as an [antennas, n] array. payload_bytes: the payload from
    these bytes, repeated, instead of the PRBS."""
    tb = gr.top_block()
    if payload_bytes is None:
        tx = gpumimo.mimo_ofdm_tx(preset, streams, modulation, nsym, seed=prbs_seed, gap=gap,
                                  code=code, pilot_interval=pilot_interval)
    else:
        tx = gpumimo.mimo_ofdm_tx("small", streams, modulation, nsym, gap=gap, payload="bytes",
                                  code=code)
        tb.connect(blocks.vector_source_b(list(payload_bytes), True), tx)
    ch = gpumimo.mimo_channel(streams, antennas, list(taps), snr_db, PAYLOAD_POWER, cfo,
                              delay, seed, doppler)
    n = (frames + 1) * tx.frame_len() + delay
    sinks = []
    for k in range(streams):
        tb.connect((tx, k), blocks.head(gr.sizeof_gr_complex, n), (ch, k))
    for a in range(antennas):
        s = blocks.vector_sink_c()
        tb.connect((ch, a), s)
        sinks.append(s)
    tb.run()
    return np.array([s.data() for s in sinks], dtype=np.complex64), ch


def receive(x, streams, modulation, nsym, algorithm="mmse", int8=False, filename="",
            prbs_seed=7, tags=(), reference_file="", code="", fused=False, pilot_interval=0,
            estimate_stream=True, preset="small"):
    """x [antennas, n] through mimo_ofdm_rx (the block chain, or fused: the stream
    receiver) into an llr_sink (decoding `code`); tags: (antenna, offset, key, value) on
    the sources."""
    antennas = x.shape[0]
    tb = gr.top_block()
    rx = gpumimo.mimo_ofdm_rx(preset, streams, modulation, nsym, antennas, algorithm,
                              backend="cpu", fft_backend="cpu", int8_output=int8,
                              fused=fused, pilot_interval=pilot_interval,
                              estimate_stream=estimate_stream)
    sink = gpumimo.llr_sink(preset, streams, modulation, nsym, int8_input=int8,
                            filename=filename, prbs_seed=prbs_seed,
                            reference_file=reference_file, code=code)
    for a in range(antennas):
        t = [gr.tag_utils.python_to_tag((off, pmt.intern(k), v, pmt.PMT_NIL))
             for (aa, off, k, v) in tags if aa == a]
        tb.connect(blocks.vector_source_c(x[a].tolist(), False, 1, t), (rx, a))
    tb.connect(rx, sink)
    tb.run()
    return rx, sink


@pytest.mark.parametrize("algorithm", gpumimo.ALGORITHMS)
def test_loopback_gives_every_bit_back_with_every_detector(algorithm):
    frames = 4
    x, _ = rx_samples(2, 4, "16qam", 3, frames, snr_db=45, cfo=0.21 / 64, delay=37,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 1)
    rx, sink = receive(x, 2, "16qam", 3, algorithm)
    assert sink.frames() >= frames, f"{algorithm}: {sink.frames()} frames"
    assert sink.partial_frames() == 0
    assert sink.bit_errors() == 0, f"{algorithm}: BER {sink.ber()}"
    assert sink.bits() == sink.frames() * 2 * D * 4 * 3
    assert sink.non_finite_llrs() == 0 and sink.zero_llrs() == 0
    assert rx.detector.erased_symbols() == 0


@pytest.mark.parametrize("fused", [False, True])
def test_1024qam_frames_come_back_every_bit_right(fused):
    """1024-QAM (TS 38.211 5.1.7) through the transmitter, a 3-tap channel with a carrier
    offset at 55 dB and the receiver (separate blocks or the stream receiver, on the
    CPU; the GPU detectors take up to 256-QAM): every bit of every frame right."""
    frames, nsym = 4, 3
    x, _ = rx_samples(2, 4, "1024qam", nsym, frames, snr_db=55, cfo=0.1 / 64, delay=29,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 72)
    _, sink = receive(x, 2, "1024qam", nsym, fused=fused)
    assert sink.frames() >= frames, sink.frames()
    assert sink.bits() == sink.frames() * 2 * D * 10 * nsym
    assert sink.bit_errors() == 0, f"GPUMIMO_TEST_SEED={SEED}: BER {sink.ber()}"


@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("modulation", ["bpsk", "pi/2-bpsk"])
def test_bpsk_and_pi2_bpsk_frames_come_back_every_bit_right(modulation, fused):
    """BPSK and pi/2-BPSK (TS 38.211 5.1.2, 5.1.1: a stream's odd symbols turned by j,
    turned back by the receiver before it detects BPSK) through the transmitter, a 3-tap
    channel with a carrier offset at 20 dB and the receiver on the CPU: every bit of
    every frame right; a receiver told the other of the two gets the odd carriers (turned
    by j against it) at chance: every frame wrong, a BER about 1/4 where the sink can
    still line the frame up with the PRBS."""
    frames, nsym = 4, 3
    x, _ = rx_samples(2, 4, modulation, nsym, frames, snr_db=20, cfo=0.1 / 64, delay=29,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 73)
    _, sink = receive(x, 2, modulation, nsym, fused=fused)
    assert sink.frames() >= frames, sink.frames()
    assert sink.bits() == sink.frames() * 2 * D * nsym
    assert sink.bit_errors() == 0, f"GPUMIMO_TEST_SEED={SEED}: BER {sink.ber()}"
    other = "bpsk" if modulation != "bpsk" else "pi/2-bpsk"
    _, wrong = receive(x, 2, other, nsym, fused=fused)
    assert wrong.frames() >= frames and wrong.fer() == 1.0
    assert wrong.bits() == 0 or 0.15 < wrong.ber() < 0.35, wrong.ber()


@pytest.mark.parametrize("fused", [False, True])
def test_noise_free_input_decodes_every_bit(fused):
    """The transmitter wired straight into the receiver: the noise estimate is 0, and is
    floored relative to the signal (max_estimated_snr) instead of marking every estimate
    unusable (BER 0.5 before)."""
    frames, streams, nsym = 4, 2, 3
    tb = gr.top_block()
    tx = gpumimo.mimo_ofdm_tx("small", streams, "16qam", nsym, seed=7, gap=40)
    rx = gpumimo.mimo_ofdm_rx("small", streams, "16qam", nsym, streams, "mmse",
                              backend="cpu", fft_backend="cpu", fused=fused)
    sink = gpumimo.llr_sink("small", streams, "16qam", nsym, prbs_seed=7)
    n = (frames + 1) * tx.frame_len()
    for k in range(streams):
        tb.connect((tx, k), blocks.head(gr.sizeof_gr_complex, n), (rx, k))
    tb.connect(rx, sink)
    tb.run()
    assert sink.frames() >= frames - 1
    assert sink.bit_errors() == 0 and sink.bits() == sink.frames() * streams * D * 4 * nsym
    assert sink.zero_llrs() == 0 and sink.non_finite_llrs() == 0
    detector = rx.fused if fused else rx.detector
    assert (detector.unusable_estimates() if fused else detector.erased_symbols()) == 0


@pytest.mark.parametrize("spacing", [-0.8, -0.45, 0.45, 0.8])
def test_frames_are_found_under_carrier_and_timing_offsets(spacing):
    rng = np.random.default_rng(SEED + 2)
    delay = int(rng.integers(0, 300))
    frames = 5
    # Four antennas: a flat 2x2 draw can be ill-conditioned enough for errors at 30 dB
    # whatever the offsets; 2x4 leaves the offsets as the only cause.
    x, _ = rx_samples(2, 4, "qpsk", 2, frames, snr_db=30, cfo=spacing / 64, delay=delay,
                      seed=SEED + 3)
    rx, sink = receive(x, 2, "qpsk", 2)
    assert sink.frames() >= frames, f"cfo {spacing} spacing, delay {delay}"
    assert sink.bit_errors() == 0, f"cfo {spacing} spacing, delay {delay}: BER {sink.ber()}"
    # Coarse (preamble) plus residual (every cyclic prefix): a few thousandths of a spacing.
    assert abs(rx.sync.last_cfo() * 64 - spacing) < 0.004


def grid(streams, modulation, nsym, bits):
    """The frame's carrier values [stream, symbol, used carrier] by numpy's FFT of the
    transmitter reference's samples."""
    num = gpumimo.numerology("small")
    N, cp = num["fft_len"], num["cp_lengths"][0]
    x = gpumimo.frame_samples("small", streams, modulation, nsym, bits)
    sym = x.reshape(streams, -1, N + cp)[:, :, cp:]
    f = np.fft.fftshift(np.fft.fft(sym, axis=2), axes=2) / np.sqrt(N)
    return f[:, :, num["carriers"]]


def estimate_frames(h, streams, antennas, nsym, noise, estimator, rng):
    """mimo_chanest over frames with known channels h [frame][carrier][rx][tx] (small
    preset, QPSK payload): the estimates' squared errors, noise_var and noise_eff per
    frame, the block's payload output of antenna 1 beside its input, and the tracking
    pilots' received power per frame and payload symbol (sum over the tracking carriers
    and antennas of |h p|^2, p the streams' pilot values)."""
    frames = h.shape[0]
    info = gpumimo.frame_info("small", streams, "qpsk", nsym)
    bits = gpumimo.prbs_bits(23, 5, frames * info["payload_bits"])
    S = info["symbols"]
    y = np.zeros((antennas, frames * S, 48), np.complex64)
    power = np.zeros((frames, nsym))
    for f in range(frames):
        X = grid(streams, "qpsk", nsym, bits[f * info["payload_bits"]:(f + 1) * info["payload_bits"]])
        Y = np.einsum("crk,ksc->rsc", h[f], X)
        power[f] = np.sum(np.abs(Y[:, 1 + streams:, TRACKING]) ** 2, axis=(0, 2))
        Y += np.sqrt(noise / 2) * (rng.normal(size=Y.shape) + 1j * rng.normal(size=Y.shape))
        y[:, f * S:(f + 1) * S] = Y
    tb = gr.top_block()
    est = gpumimo.mimo_chanest("small", streams, "qpsk", nsym, antennas, estimator)
    outs = []
    for a in range(antennas):
        tags = [gr.tag_utils.python_to_tag((f * S, pmt.intern("frame_start"), pmt.from_uint64(f),
                                            pmt.PMT_NIL)) for f in range(frames)]
        tb.connect(blocks.vector_source_c(y[a].ravel().tolist(), False, 48, tags), (est, a))
        s = blocks.vector_sink_c(48)
        tb.connect((est, a), s)
        outs.append(s)
    tb.run()
    ests = [t for t in outs[0].tags() if pmt.symbol_to_string(t.key) == "mimo_chan_est"]
    assert len(ests) == frames == est.frames()
    err, nv, eff = [], [], []
    for f, t in enumerate(ests):
        assert t.offset == f * nsym  # on the frame's first payload symbol
        hh = np.array(pmt.c32vector_elements(pmt.dict_ref(t.value, pmt.intern("h"), pmt.PMT_NIL)))
        err.append(np.abs(hh.reshape(48, antennas, streams) - h[f]) ** 2)
        nv.append(pmt.to_double(pmt.dict_ref(t.value, pmt.intern("noise_var"), pmt.PMT_NIL)))
        eff.append(np.array(pmt.f32vector_elements(
            pmt.dict_ref(t.value, pmt.intern("noise_eff"), pmt.PMT_NIL))))
    got = np.array(outs[1].data()).reshape(frames, nsym, 48)
    return (np.array(err), np.array(nv), np.array(eff), got,
            y[1].reshape(frames, S, 48)[:, 1 + streams:], power)


def test_channel_estimates_error_and_noise_estimate_match_theory():
    rng = np.random.default_rng(SEED + 4)
    streams, antennas, nsym, frames, noise = 3, 4, 2, 30, 0.02
    # Independent channels on every carrier: nothing to smooth, least squares.
    h = (rng.normal(size=(frames, 48, antennas, streams)) +
         1j * rng.normal(size=(frames, 48, antennas, streams))) / np.sqrt(2)
    err, nv, eff, got, sent, power = estimate_frames(h, streams, antennas, nsym, noise, "ls", rng)
    # LS on unit-energy pilots under the covers: the error is the noise over Nt, E|e|^2 =
    # N0 / 3; 17,280 values (sd 0.8%) and the noise estimate from 30 x 24 x 4 empty
    # preamble carriers (sd 2.6%).
    assert abs(np.mean(err) / (noise / streams) - 1) < 0.05, np.mean(err) / noise
    assert abs(np.mean(nv) / noise - 1) < 0.12, np.mean(nv) / noise
    # The detector's noise: N0 plus Nt times the estimate's error, N0 / Nt for LS.
    np.testing.assert_allclose(eff, np.repeat(nv[:, None], 48, 1) * 2, rtol=1e-5)
    # The payload passes through, preamble and pilots removed, turned back by the
    # tracking pilots' phase (here only their noise's: the channel does not move).
    assert_turned_by_one_phase(got, sent, noise, antennas, streams, power)


@pytest.mark.parametrize("estimator,most", [("lmmse", 0.45), ("dft", 0.5)])
def test_smoothed_estimates_of_a_tapped_channel(estimator, most):
    rng = np.random.default_rng(SEED + 14)
    streams, antennas, nsym, frames, noise = 2, 4, 2, 30, 0.05
    # Three taps a quarter of the prefix into the FFT window, as the synchroniser puts
    # them: H(c) = sum_l h_l e^{-2 pi i k_c d_l / 64}.
    k = np.array(gpumimo.numerology("small")["carriers"]) - 32
    taps = (rng.normal(size=(frames, 3, antennas, streams)) +
            1j * rng.normal(size=(frames, 3, antennas, streams))) / np.sqrt(2)
    taps *= np.sqrt([0.7, 0.2, 0.1])[None, :, None, None]
    phase = np.exp(-2j * np.pi * np.outer(k, [4, 5, 6]) / 64)  # [carrier][tap]
    h = np.einsum("cl,flrk->fcrk", phase, taps)
    err, nv, eff, got, sent, power = estimate_frames(h, streams, antennas, nsym, noise, estimator, rng)
    mse = np.mean(err)
    # Least squares would leave N0 / Nt; the window keeps 18 of 64 taps' noise.
    assert mse < most * noise / streams, (estimator, mse / noise * streams)
    # What the detector is told: its error within 25% of the error measured. A frame
    # whose lmmse profile leaves out a weak real tap (power 0.03-0.09, about one in
    # 1,500 here) reports what it missed too (the smoother's mismatch, from the
    # residual: channel_smoother.h's smoothing_mismatch); before that was added, 2% of
    # runs of this test came out at 0.63-0.81.
    told = np.mean((eff - nv[:, None]) / streams)
    assert abs(told / mse - 1) < 0.25, (estimator, told / mse)
    assert_turned_by_one_phase(got, sent, noise, antennas, streams, power)


def test_llr_file_and_sidecar_say_what_was_sent(tmp_path):
    frames, nsym = 3, 2
    # 2x4: with 2x2, about one channel draw in 30 is conditioned badly enough to leave a
    # few 16-QAM bit errors even at 40 dB (seeds 49, 73, 81, 118 of 1..120), and every
    # sign is compared below.
    x, _ = rx_samples(2, 4, "16qam", nsym, frames, snr_db=40, cfo=0, delay=5,
                      seed=SEED + 5, prbs_seed=99)
    path = str(tmp_path / "llr.int8")
    _, sink = receive(x, 2, "16qam", nsym, int8=True, filename=path, prbs_seed=99)
    meta = json.load(open(path + ".json"))
    assert meta["dtype"] == "int8" and meta["int8_scale"] == 8
    assert meta["frame"]["bits_per_frame"] == sink.frame_bits() == 2 * D * 4 * nsym
    assert meta["frame"]["data_carriers"] == D and meta["frame"]["frame_version"] == 4
    assert meta["payload"] == {"prbs_order": 23, "seed": 99}
    assert meta["frames"] == sink.frames() >= frames
    q = np.fromfile(path, np.int8)
    assert q.size == meta["llrs_written"] == sink.llrs() == sink.frames() * sink.frame_bits()
    want = gpumimo.prbs_bits(23, 99, q.size)
    np.testing.assert_array_equal((q > 0).astype(np.uint8), want)  # positive means 1
    assert sink.bit_errors() == 0 and sink.mean_abs_llr() > 1


@pytest.mark.parametrize("fused", [False, True])
def test_damaged_frames_are_dropped_and_counted_never_nan(fused):
    """A NaN inside one frame and an rx_time tag (a gap) inside another: both dropped,
    counted, the rest decoded, by the block chain's synchroniser and by the stream
    receiver alike."""
    frames = 6
    x, _ = rx_samples(2, 4, "qpsk", 2, frames, snr_db=30, cfo=0.1 / 64, delay=20,
                      seed=SEED + 6)  # 2x4: no draw of the channel leaves errors at 30 dB
    flen = gpumimo.frame_info("small", 2, "qpsk", 2)["samples"] + 40
    x[1, 20 + flen + 300] = np.nan  # inside frame 1
    overflow = (0, 20 + 3 * flen + 100, "rx_time",
                pmt.make_tuple(pmt.from_uint64(1), pmt.from_double(0.5)))  # inside frame 3
    rx, sink = receive(x, 2, "qpsk", 2, tags=[overflow], fused=fused)
    assert rx.sync.dropped_frames() == 2
    assert sink.frames() == rx.sync.frames() >= frames - 2
    assert sink.bit_errors() == 0  # the tester resynchronised after each gap
    assert sink.resynchronisations() == 2
    assert sink.non_finite_llrs() == 0


def test_byte_payload_is_scored_against_its_file_through_losses_and_wraps(tmp_path):
    """A payload of bytes from a file the transmitter repeats (its length not a whole
    number of frames, so frames straddle its end) is scored against that file: no bit
    errors at high SNR, also after a frame dropped for a NaN sample; a different file
    finds every frame unsynchronised."""
    rng = seeded_rng(41)
    streams, nsym, frames = 2, 2, 7
    frame_bytes = streams * D * 4 * nsym // 8  # 16-QAM
    data = rng.integers(0, 256, frame_bytes * 2 + 17, dtype=np.uint8)
    ref = tmp_path / "payload.bin"
    data.tofile(ref)
    x, _ = rx_samples(streams, 4, "16qam", nsym, frames, snr_db=40, cfo=0.1 / 64, delay=9,
                      seed=SEED + 8, payload_bytes=data)
    flen = gpumimo.frame_info("small", streams, "16qam", nsym)["samples"] + 40
    x[0, 9 + 2 * flen + 200] = np.nan  # inside frame 2: dropped by the synchroniser
    path = str(tmp_path / "llr.f32")
    rx, sink = receive(x, streams, "16qam", nsym, filename=path, reference_file=str(ref))
    assert rx.sync.dropped_frames() == 1
    assert sink.frames() == rx.sync.frames() >= frames - 1
    assert sink.bit_errors() == 0 and sink.bits() == sink.frames() * frame_bytes * 8
    assert sink.resynchronisations() == 1 and sink.unsynchronised_frames() == 0
    meta = json.load(open(path + ".json"))
    assert meta["payload"]["reference_file"] == str(ref)
    assert meta["payload"]["bytes"] == data.size
    # Independently of the counter: the LLR signs are the file's bits, frame 2 missing.
    got = (np.fromfile(path, np.float32) > 0).astype(np.uint8).reshape(-1, frame_bytes * 8)
    stream = np.unpackbits(np.tile(data, frames + 2))
    want = [stream[f * frame_bytes * 8:(f + 1) * frame_bytes * 8] for f in range(frames + 1)
            if f != 2]
    np.testing.assert_array_equal(got, np.array(want[:got.shape[0]]))

    other = tmp_path / "other.bin"
    rng.integers(0, 256, data.size, dtype=np.uint8).tofile(other)
    _, wrong = receive(x, streams, "16qam", nsym, reference_file=str(other))
    # Nothing matches a wrong reference: no frame can be compared, none pollutes the BER.
    assert wrong.unsynchronised_frames() == wrong.frames() >= frames - 1
    assert wrong.bits() == 0 and wrong.ber() == 0 and wrong.fer() == 1


def test_detector_erases_symbols_without_a_usable_channel():
    tb = gr.top_block()
    det = gpumimo.mimo_detector("small", 2, "qpsk", 2, "mmse", backend="cpu")
    rng = np.random.default_rng(SEED + 7)
    y = (rng.normal(size=(2, 5 * 48)) + 1j * rng.normal(size=(2, 5 * 48))).astype(np.complex64)
    # Symbols 0-1: no estimate yet; 2-3: a rank-deficient H; 4: a good H.
    bad = np.ones((48, 2, 2), np.complex64)
    good = np.tile(np.eye(2, dtype=np.complex64), (48, 1, 1))
    def est(h):
        d = pmt.dict_add(pmt.make_dict(), pmt.intern("h"), pmt.init_c32vector(h.size, h.ravel().tolist()))
        return pmt.dict_add(d, pmt.intern("noise_var"), pmt.from_double(0.1))
    tags = [gr.tag_utils.python_to_tag((2, pmt.intern("mimo_chan_est"), est(bad), pmt.PMT_NIL)),
            gr.tag_utils.python_to_tag((4, pmt.intern("mimo_chan_est"), est(good), pmt.PMT_NIL))]
    sink = blocks.vector_sink_f()
    tb.connect(blocks.vector_source_c(y[0].tolist(), False, 48, tags), (det, 0))
    tb.connect(blocks.vector_source_c(y[1].tolist(), False, 48), (det, 1))
    tb.connect(det, sink)
    tb.run()
    llr = np.array(sink.data()).reshape(5, D * 2 * 2)
    assert np.all(llr[:4] == 0) and np.all(llr[4] != 0)
    assert det.erased_symbols() == 4 and det.symbols() == 5
    # H = I: the LLRs of symbol 4 are the per-antenna QPSK LLRs, sign of each component.
    yy = y[:, 4 * 48:].T[DATA]  # [data carrier, antenna]: the tracking carriers skipped
    want = np.stack([-yy.real, -yy.imag], axis=-1).ravel()  # TS 38.211: b=1 -> negative
    np.testing.assert_array_equal(np.sign(llr[4]), np.sign(want))


def test_bad_parameters_are_refused(tmp_path):
    with pytest.raises(ValueError):
        gpumimo.mimo_channel(0, 2)
    with pytest.raises(ValueError):
        gpumimo.mimo_channel(2, 2, [1.0, -1.0])
    with pytest.raises(ValueError):
        gpumimo.mimo_channel(2, 2, signal_power=0)
    with pytest.raises(ValueError):
        gpumimo.mimo_ofdm_sync("small", 2, "qpsk", 2, 0)
    with pytest.raises(ValueError):
        gpumimo.mimo_ofdm_sync("small", 2, "qpsk", 2, 2, threshold=1.5)
    with pytest.raises(ValueError):
        gpumimo.mimo_chanest("small", 4, "qpsk", 2, 2)  # fewer antennas than streams
    with pytest.raises(ValueError):
        gpumimo.mimo_detector("small", 2, "qpsk", 2, "nonesuch")
    with pytest.raises(ValueError):
        gpumimo.mimo_detector("lte30", 2, "qpsk", 2)
    with pytest.raises(ValueError):
        gpumimo.llr_sink("small", 2, "qpsk", 2, prbs_seed=1 << 23)
    with pytest.raises(RuntimeError):
        gpumimo.llr_sink("small", 2, "qpsk", 2, filename="/nonexistent/dir/llr")
    with pytest.raises(RuntimeError):
        gpumimo.llr_sink("small", 2, "qpsk", 2, reference_file="/nonexistent/payload.bin")
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        gpumimo.llr_sink("small", 2, "qpsk", 2, reference_file=str(empty))
    # Devices and FIFOs are not files: refused at once, nothing read (/dev/zero once
    # ended in MemoryError, a FIFO waited for a writer for ever).
    fifo = tmp_path / "payload.fifo"
    os.mkfifo(fifo)
    for special in (os.devnull, "/dev/zero", str(fifo), str(tmp_path)):
        with pytest.raises(RuntimeError, match="not a regular file"):
            gpumimo.llr_sink("small", 2, "qpsk", 2, reference_file=special)


def test_the_main_job_replays_the_shipped_recording(tmp_path):
    """The README's main job, gpumimo_replay, on the recording in examples/recordings
    (LDPC-coded, wimax_2304): every frame found and decoded, the exact-ML detector's
    uncoded BER at least as low as MMSE's, the figure written. (The recording's error
    rates are documented in docs/frame.md.)"""
    import pathlib
    import subprocess
    import sys
    root = pathlib.Path(__file__).resolve().parents[2]
    png = tmp_path / "replay.png"
    out = subprocess.run([sys.executable, str(root / "apps" / "gpumimo_replay"),
                          "--algorithms", "mmse", "psd", "--backend", "cpu", "--png", str(png)],
                         capture_output=True, text=True, timeout=600, cwd=root)
    assert out.returncode == 0, out.stdout + out.stderr
    rows = {line.split()[0]: line.split() for line in out.stdout.splitlines()
            if line.split() and line.split()[0] in ("mmse", "psd")}
    # detector backend frames dropped uncompared uncodedBER codewords failed iter BER FER
    assert int(rows["mmse"][2]) == int(rows["psd"][2]) == 120  # frames found
    assert int(rows["mmse"][4]) == int(rows["psd"][4]) == 0  # every frame compared
    assert int(rows["mmse"][6]) == int(rows["psd"][6]) == 360  # 3 codewords a frame
    assert float(rows["psd"][5]) <= float(rows["mmse"][5])  # uncoded: ML at least as good
    assert float(rows["mmse"][5]) > 1e-3  # errors the code has to correct
    assert float(rows["mmse"][10]) < 0.1 and float(rows["psd"][10]) < 0.1  # decoded FER
    assert png.stat().st_size > 10000


def test_the_main_job_refuses_bad_files_and_paths_before_running(tmp_path):
    """gpumimo_replay with a missing, malformed or hostile .frame.json, or a figure it
    could not write, stops at once with one line naming the problem (no traceback, no
    detector run first)."""
    import pathlib
    import shutil
    import subprocess
    import sys
    root = pathlib.Path(__file__).resolve().parents[2]
    shipped = root / "examples" / "recordings"
    for f in shipped.glob("sim_4x4_16qam*"):
        shutil.copy(f, tmp_path / f.name)
    collection = tmp_path / "sim_4x4_16qam.sigmf-collection"
    frame_json = tmp_path / "sim_4x4_16qam.frame.json"
    good = json.loads(frame_json.read_text())

    def replay(*args):
        return subprocess.run([sys.executable, str(root / "apps" / "gpumimo_replay"),
                               "--recording", str(collection), "--algorithms", "mmse",
                               "--backend", "cpu", *args],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)

    cases = [("code", "wimax_4608", "wimax"), ("code", "/etc/passwd", "not a built-in code"),
             ("code", "nr_bg1_z17", "lifting size"), ("code", "nr_bg1_z384", "longer than"),
             ("code", "wimax_2304", None),  # fits: the run below refuses nothing else
             ("payload_symbols", 2000000000, "payload_symbols"),
             ("payload_symbols", "10", "payload_symbols must be a whole number"),
             ("streams", 9, "streams"), ("prbs_seed", 0, "prbs_seed"),
             ("modulation", "8psk", "modulation"), ("preset", None, "preset"),
             ("frame_version", 2, "not a frame format this receiver reads"),
             ("pilot_interval", -1, "pilot_interval"),
             ("pilot_interval", 3000, "pilot_interval")]
    for key, value, message in cases:
        if message is None:
            continue
        bad = dict(good)
        if value is None:
            bad.pop(key)
        else:
            bad[key] = value
        frame_json.write_text(json.dumps(bad))
        out = replay("--png", "")
        assert out.returncode != 0 and message in out.stderr, (key, out.stderr)
        assert "Traceback" not in out.stderr and "detector" not in out.stdout
    # A binary description: the reason arrives, its bytes escaped (before: an empty
    # ValueError, and gpumimo_replay printed its name alone).
    frame_json.write_bytes(b"\xff\xfe{\x00\x81garbage\x00")
    with pytest.raises(ValueError, match="sim_4x4_16qam.frame.json"):
        gpumimo.read_frame_description(str(frame_json))
    out = replay("--png", "")
    assert out.returncode != 0 and "frame.json" in out.stderr and "JSON" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    # Format 3 (no pilot_interval field) plays; one naming pilot blocks is refused.
    frame_json.write_text(json.dumps(dict(good, frame_version=3, pilot_interval=4)))
    out = replay("--png", "")
    assert out.returncode != 0 and "pilot_interval is a field of frame format 4" in out.stderr
    three = dict(good, frame_version=3)
    three.pop("pilot_interval")
    frame_json.write_text(json.dumps(three))
    out = replay("--png", "", "--algorithms", "zf")
    assert out.returncode == 0 and "zf" in out.stdout, out.stderr
    frame_json.write_text("{not json")
    out = replay("--png", "")
    assert out.returncode != 0 and "is not valid JSON" in out.stderr
    frame_json.unlink()
    out = replay("--png", "")
    assert out.returncode != 0 and "frame.json: cannot be opened" in out.stderr
    frame_json.write_text(json.dumps(good))
    for png in (str(tmp_path / "no" / "such" / "folder.png"), str(tmp_path / "figure.xyz")):
        out = replay("--png", png)
        assert out.returncode == 2 and "--png" in out.stderr, out.stderr
        assert "detector" not in out.stdout  # refused before anything ran


def run_detector_block(det, y, h, noise_var=0.1):
    """One run of the detector block on y ([antennas, symbols * 48]) with one H
    ([48, antennas, streams]) given at symbol 0: its LLRs."""
    tb = gr.top_block()
    d = pmt.dict_add(pmt.make_dict(), pmt.intern("h"),
                     pmt.init_c32vector(h.size, h.ravel().tolist()))
    d = pmt.dict_add(d, pmt.intern("noise_var"), pmt.from_double(noise_var))
    tags = [gr.tag_utils.python_to_tag((0, pmt.intern("mimo_chan_est"), d, pmt.PMT_NIL))]
    sink = blocks.vector_sink_f()
    tb.connect(blocks.vector_source_c(y[0].tolist(), False, 48, tags), (det, 0))
    for a in range(1, y.shape[0]):
        tb.connect(blocks.vector_source_c(y[a].tolist(), False, 48), (det, a))
    tb.connect(det, sink)
    tb.run()
    return np.array(sink.data())


def test_set_detector_switches_to_what_a_new_block_gives():
    """set_detector() (the GRC callback): a block switched to a detector spec gives the
    LLRs of a block made with that spec, on fresh random symbols; a spec the block's
    configuration cannot take is refused and the running detector kept."""
    rng = np.random.default_rng(SEED + 11)
    h = (rng.normal(size=(48, 2, 2)) + 1j * rng.normal(size=(48, 2, 2))).astype(np.complex64)
    y = (rng.normal(size=(2, 3 * 48)) + 1j * rng.normal(size=(2, 3 * 48))).astype(np.complex64)
    spec = gpumimo.detector_spec("kbest", kbest_k=2, list_llr_clip=3.0)
    switched = gpumimo.mimo_detector("small", 2, "16qam", 2, "mmse", backend="cpu")
    assert switched.detector().algorithm == "mmse"
    switched.set_detector(spec)
    assert switched.detector() == spec
    direct = gpumimo.mimo_detector("small", 2, "16qam", 2, spec, backend="cpu")
    got, want = run_detector_block(switched, y, h), run_detector_block(direct, y, h)
    assert got.size == 3 * switched.bits_per_symbol() and np.any(got != 0)
    np.testing.assert_array_equal(got, want)
    # Not what mmse gives: the switch took effect.
    mmse = run_detector_block(gpumimo.mimo_detector("small", 2, "16qam", 2, "mmse",
                                                    backend="cpu"), y, h)
    assert np.any(mmse != got)
    with pytest.raises(ValueError):
        switched.set_detector(gpumimo.detector_spec("nway", nway_passes=3))  # > nt
    assert switched.detector() == spec


def test_fused_receiver_set_detector():
    fr = gpumimo.fused_receiver("small", 2, "qpsk", 2, 2, "mmse", backend="cpu")
    spec = gpumimo.detector_spec("psd", psd_block_search=True)
    fr.set_detector(spec)
    assert fr.detector() == spec
    with pytest.raises(ValueError):
        fr.set_detector("nonesuch")
    assert fr.detector() == spec


def test_detector_spec_checks():
    assert gpumimo.detector_spec().algorithm == "mmse"
    assert gpumimo.detector_spec("mtt", mtt_one_pass=True).params.mtt_one_pass
    with pytest.raises(ValueError):
        gpumimo.detector_spec("nonesuch")
    with pytest.raises(ValueError):
        gpumimo.detector_spec("mmse", llr_clip=-1)
    with pytest.raises(ValueError):
        gpumimo.detector_spec("ml").check("256qam", 4, 4)  # 2^32 candidates
    gpumimo.detector_spec("ml").check("qpsk", 4, 4)


def test_grc_detector_choices_are_the_registry():
    """The GRC blocks' algorithm menus, written at build time from the core's registry,
    list its detectors in its order."""
    import yaml
    for name in ("mimo_detector", "fused_receiver", "stream_receiver", "mimo_ofdm_rx"):
        block = yaml.safe_load((grc_blocks_dir() / f"gpumimo_{name}.block.yml").read_text())
        param = next(p for p in block["parameters"] if p["id"] == "algorithm")
        assert tuple(param["options"]) == gpumimo.ALGORITHMS, name
        assert len(param["option_labels"]) == len(gpumimo.ALGORITHMS), name
        assert any("set_detector(" in c for c in block["templates"]["callbacks"]), name


def test_channel_setters_take_effect_while_running():
    """mimo_channel's setters (the GRC callbacks): a new SNR changes the noise, a new seed
    the taps, a new delay or seed gives what a block made with them gives; values make()
    refuses are refused and leave the block as it was."""
    rng = np.random.default_rng(SEED + 12)
    x = (rng.normal(size=(2, 400)) + 1j * rng.normal(size=(2, 400))).astype(np.complex64)

    def run(ch):
        tb = gr.top_block()
        sinks = [blocks.vector_sink_c() for _ in range(3)]
        for k in range(2):
            tb.connect(blocks.vector_source_c(x[k].tolist()), (ch, k))
        for r in range(3):
            tb.connect((ch, r), sinks[r])
        tb.run()
        return np.array([s.data() for s in sinks])

    ch = gpumimo.mimo_channel(2, 3, [0.8, 0.2], 20.0, 1.0, 0.01, 3, 5)
    before = ch.noise_var()
    ch.set_snr_db(30.0)
    assert ch.snr_db() == 30.0 and ch.noise_var() == pytest.approx(before / 10)
    taps = np.array(ch.taps())
    ch.set_seed(6)
    assert ch.seed() == 6 and np.any(np.array(ch.taps()) != taps)
    ch.set_delay(7)
    ch.set_cfo(0.02)
    fresh = gpumimo.mimo_channel(2, 3, [0.8, 0.2], 30.0, 1.0, 0.02, 7, 6)
    np.testing.assert_array_equal(run(ch), run(fresh))
    with pytest.raises(ValueError):
        ch.set_delay(-1)
    with pytest.raises(ValueError):
        ch.set_snr_db(float("nan"))
    # Values that would make the noise infinite (every later call failing) or the delay
    # buffer 2^31 samples: refused at the setter, as by the constructor.
    with pytest.raises(ValueError, match="snr_db"):
        ch.set_snr_db(-1e308)
    with pytest.raises(ValueError, match="delay"):
        ch.set_delay(2**31 - 1)
    with pytest.raises(ValueError, match="snr_db"):
        gpumimo.mimo_channel(2, 3, [0.8, 0.2], -1e308)
    assert ch.delay() == 7 and ch.snr_db() == 30.0
    np.testing.assert_array_equal(run(ch), run(fresh))


def test_llr_sink_reset_counters_starts_the_counts_over():
    """reset_counters(): the counts start over while the PRBS synchronisation goes on, so
    the frames after it count from zero, without the errors before and in sequence."""
    streams, nsym, seed = 2, 2, 0x1234
    sink = gpumimo.llr_sink("small", streams, "qpsk", nsym, prbs_seed=seed)
    n = sink.frame_bits()
    bits = gpumimo.prbs_bits(23, seed, 6 * n)
    llr = np.where(bits == 1, 4.0, -4.0).astype(np.float32)
    rng = np.random.default_rng(SEED + 13)
    flips = rng.choice(3 * n, 25, replace=False)  # errors in frames 0-2 only
    llr[flips] = -llr[flips]

    def feed(part):
        tb = gr.top_block()
        tb.connect(blocks.vector_source_f(part.tolist()), sink)
        tb.run()

    feed(llr[:3 * n])
    assert sink.frames() == 3 and sink.bit_errors() == 25
    sink.reset_counters()
    assert sink.frames() == 0 and sink.bit_errors() == 0 and sink.llrs() == 0
    assert sink.ber() == 0 and sink.fer() == 0
    feed(llr[3 * n:])
    assert sink.frames() == 3 and sink.bits() == 3 * n
    assert sink.bit_errors() == 0 and sink.resynchronisations() == 0
    assert sink.llrs() == 3 * n and sink.mean_abs_llr() == pytest.approx(4.0)


def test_sync_threshold_setter():
    """mimo_ofdm_sync.set_threshold (the GRC callback): taken while the block exists,
    refused outside [0, 1] with the old value kept; a threshold of 1 (the metric's bound,
    reached only without noise) finds none of the frames that 0.7 and 0 (automatic, the
    default) find."""
    x, _ = rx_samples(2, 2, "qpsk", 2, 4, snr_db=30, cfo=0.0, delay=40,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 14)

    def frames_found(threshold):
        sync = gpumimo.mimo_ofdm_sync("small", 2, "qpsk", 2, 2, 0.7)
        sync.set_threshold(threshold)
        assert sync.threshold() == threshold
        tb = gr.top_block()
        for a in range(2):
            tb.connect(blocks.vector_source_c(x[a].tolist()), (sync, a))
            tb.connect((sync, a), blocks.null_sink(gr.sizeof_gr_complex))
        tb.run()
        return sync.frames()

    assert frames_found(0.7) >= 3
    assert frames_found(0.0) == frames_found(0.7)
    assert frames_found(1.0) == 0
    assert gpumimo.mimo_ofdm_sync("small", 2, "qpsk", 2, 2).threshold() == 0.0
    sync = gpumimo.mimo_ofdm_sync("small", 2, "qpsk", 2, 2, 0.6)
    with pytest.raises(ValueError):
        sync.set_threshold(1.5)
    with pytest.raises(ValueError):
        sync.set_threshold(-0.1)
    assert sync.threshold() == 0.6


def test_sync_backends_find_the_same_frames():
    """mimo_ofdm_sync on each backend over the same stream (NaN in one frame, a carrier
    offset, a 3-tap channel): the CPU's frames, samples and frame_start tags, and on a
    machine with a usable GPU the CUDA backend's the same (offsets and samples to
    float rounding: core::frame_sync_engine); "auto" runs where it can, "cuda" without
    a GPU is refused with the reason."""
    x, _ = rx_samples(2, 3, "qpsk", 2, 6, snr_db=18, cfo=0.2 / 64, delay=57,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 15)
    frame = gpumimo.mimo_ofdm_tx("small", 2, "qpsk", 2, gap=40).frame_len() - 40
    x[1, 57 + 2 * (frame + 40) + 30] = np.nan  # inside the third frame: it is dropped

    def run(backend):
        sync = gpumimo.mimo_ofdm_sync("small", 2, "qpsk", 2, 3, 0.0, backend)
        tb = gr.top_block()
        sinks = []
        for a in range(3):
            tb.connect(blocks.vector_source_c(x[a].tolist()), (sync, a))
            sinks.append(blocks.vector_sink_c())
            tb.connect((sync, a), sinks[-1])
        tb.run()
        tags = [(t.offset, pmt.to_python(t.value)) for t in sinks[0].tags()]
        return sync, np.array([s.data() for s in sinks]), tags

    cpu, y_cpu, tags_cpu = run("cpu")
    assert cpu.backend() == "cpu"
    assert cpu.frames() >= 4 and cpu.dropped_frames() == 1
    assert len(tags_cpu) == cpu.frames() and y_cpu.shape[1] == cpu.frames() * frame
    assert [o for o, _ in tags_cpu] == [k * frame for k in range(cpu.frames())]
    auto, y_auto, tags_auto = run("auto")
    assert auto.backend() == ("cuda" if gpumimo.cuda_device_count()[0] > 0 else "cpu")
    assert [o for o, _ in tags_auto] == [o for o, _ in tags_cpu]
    for (_, a), (_, c) in zip(tags_auto, tags_cpu):
        assert a["offset"] == c["offset"] and a["frame"] == c["frame"]
        assert a["cfo"] == pytest.approx(c["cfo"], abs=1e-12)
        assert a["metric"] == pytest.approx(c["metric"], abs=1e-9)
    np.testing.assert_allclose(y_auto, y_cpu, rtol=0, atol=2e-6 * (1 + np.abs(y_cpu).max()))
    if gpumimo.cuda_device_count()[0] == 0:
        with pytest.raises(RuntimeError, match="not usable"):
            gpumimo.mimo_ofdm_sync("small", 2, "qpsk", 2, 3, 0.0, "cuda")


def test_chanest_smoothing_backends_agree():
    """The block chain with mimo_chanest's estimation (and the detector) on "cpu" and on
    "auto" (the GPU where one is usable: core::make_chanest_engine): the same frames
    and LLRs within the GPU's float bound (1e-3 of each vector's largest LLR); "cuda"
    without a GPU refused with the reason."""
    x, _ = rx_samples(2, 4, "16qam", 3, 4, snr_db=22, cfo=0.1 / 64, delay=21,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 16)

    def run(backend):
        tb = gr.top_block()
        rx = gpumimo.mimo_ofdm_rx("small", 2, "16qam", 3, 4, "mmse", backend=backend,
                                  fft_backend="cpu", sync_backend="cpu")
        sink = blocks.vector_sink_f()
        for a in range(4):
            tb.connect(blocks.vector_source_c(x[a].tolist()), (rx, a))
        tb.connect(rx, sink)
        tb.run()
        return np.array(sink.data(), dtype=np.float32), rx

    want, rx_cpu = run("cpu")
    got, rx_auto = run("auto")
    assert rx_cpu.chanest.backend() == "cpu"
    have_gpu = gpumimo.cuda_device_count()[0] > 0
    assert rx_auto.chanest.backend() == ("cuda" if have_gpu else "cpu")
    assert want.size == got.size > 0 and rx_cpu.chanest.frames() >= 3
    scale = np.maximum(1.0, np.abs(want).reshape(-1, 8).max(axis=1)).repeat(8)
    assert np.all(np.abs(got - want) <= 1e-3 * scale)
    if not have_gpu:
        with pytest.raises(RuntimeError, match="not usable"):
            gpumimo.mimo_chanest("small", 2, "16qam", 3, 4, backend="cuda")


def test_quality_plot_tool_writes_png(tmp_path):
    """gpumimo_rx_quality_plot: a PNG per detector from the quality tool's CSV (its
    columns as gpumimo_rx_quality writes them)."""
    csv = tmp_path / "q.csv"
    rows = ["detector,receiver,snr_db,frames,frames_found,bit_errors,bits,ber,frame_errors"]
    for det in ("mmse", "ml"):
        for rcv, scale in (("genie", 1), ("lmmse", 2), ("ls", 5)):
            for snr, ber in ((10, 3e-2), (14, 5e-3), (18, 4e-4)):
                rows.append(f"{det},{rcv},{snr},100,100,{int(ber * scale * 1e5)},100000,"
                            f"{ber * scale},{min(100, int(ber * scale * 1e4))}")
    csv.write_text("\n".join(rows) + "\n")
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "apps",
                        "gpumimo_rx_quality_plot")
    out = subprocess.run([sys.executable, tool, str(csv), "--out-dir", str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout
    for det in ("mmse", "ml"):
        assert (tmp_path / f"rx-quality-{det}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"{det}: " in out
    bad = tmp_path / "bad.csv"
    bad.write_text("detector,receiver\nmmse,genie\n")
    failed = subprocess.run([sys.executable, tool, str(bad)], capture_output=True, text=True)
    assert failed.returncode == 2 and "bad.csv" in failed.stderr


def test_chanest_equalized_outputs_put_the_payload_on_the_constellation():
    """mimo_chanest's equalised outputs: stream k's payload symbols, MMSE-equalised with
    the block's estimate; at 40 dB on a 3-tap channel every one is within 0.15 of the
    16-QAM point sent (its decisions all right), and the antennas' outputs are as before."""
    rng = seeded_rng(44)
    streams, antennas, nsym, frames, noise = 2, 4, 3, 6, 1e-4
    info = gpumimo.frame_info("small", streams, "16qam", nsym)
    bits = gpumimo.prbs_bits(23, 9, frames * info["payload_bits"])
    S = info["symbols"]
    k = np.array(gpumimo.numerology("small")["carriers"]) - 32
    y = np.zeros((antennas, frames * S, 48), np.complex64)
    sent = []
    for f in range(frames):
        taps = (rng.normal(size=(3, antennas, streams)) +
                1j * rng.normal(size=(3, antennas, streams))) * np.sqrt([0.35, 0.1, 0.05])[:, None, None]
        h = np.einsum("cl,lrk->crk", np.exp(-2j * np.pi * np.outer(k, [4, 5, 6]) / 64), taps)
        X = grid(streams, "16qam", nsym, bits[f * info["payload_bits"]:(f + 1) * info["payload_bits"]])
        Y = np.einsum("crk,ksc->rsc", h, X)
        Y += np.sqrt(noise / 2) * (rng.normal(size=Y.shape) + 1j * rng.normal(size=Y.shape))
        y[:, f * S:(f + 1) * S] = Y
        sent.append(X[:, 1 + streams:, :])  # [stream][payload symbol][carrier]
    tb = gr.top_block()
    est = gpumimo.mimo_chanest("small", streams, "16qam", nsym, antennas, "lmmse", True)
    outs = []
    for a in range(antennas):
        tags = [gr.tag_utils.python_to_tag((f * S, pmt.intern("frame_start"), pmt.from_uint64(f),
                                            pmt.PMT_NIL)) for f in range(frames)]
        tb.connect(blocks.vector_source_c(y[a].ravel().tolist(), False, 48, tags), (est, a))
    for o in range(antennas + streams):
        s = blocks.vector_sink_c(48 if o < antennas else D)  # equalised: data carriers
        tb.connect((est, o), s)
        outs.append(s)
    tb.run()
    for kk in range(streams):
        got = np.array(outs[antennas + kk].data()).reshape(frames, nsym, D)
        want = np.array([x[kk][:, DATA] for x in sent])
        assert np.max(np.abs(got - want)) < 0.15, np.max(np.abs(got - want))
    assert_turned_by_one_phase(np.array(outs[1].data()).reshape(frames, nsym, 48),
                               y[1].reshape(frames, S, 48)[:, 1 + streams:], noise, antennas,
                               streams)


def test_channel_tdl_model_is_its_taps_and_its_impairments_their_definitions():
    """mimo_channel with a TR 38.901 TDL model: an impulse on each stream comes out as
    the block's own taps (continuous delays as a windowed sinc behind a 16-sample
    latency: tdl-c's 300 ns at 7.68 Msample/s spans 20 samples, so more than 36 taps),
    each antenna pair its own; a tone through an IQ imbalance of 1 dB and 5 degrees
    comes out with its image at the closed-form rejection ratio; bad values refused."""
    tx, rx, n = 2, 3, 200
    ch = gpumimo.mimo_channel(tx, rx, [1.0], 300.0, 1.0, 0.0, 0, SEED % 1000 + 1, 0.0,
                              "tdl-c", 300e-9, 7.68e6, "medium")
    taps = np.array(ch.taps()).reshape(rx, tx, -1)
    assert taps.shape[2] > 36
    assert np.argmax(np.abs(taps[0, 0])) >= 16  # the bulk latency
    for k in range(tx):
        tb = gr.top_block()
        impulse = [0j] * n
        impulse[0] = 1 + 0j
        srcs = [blocks.vector_source_c(impulse if j == k else [0j] * n) for j in range(tx)]
        sinks = [blocks.vector_sink_c() for _ in range(rx)]
        fresh = gpumimo.mimo_channel(tx, rx, [1.0], 300.0, 1.0, 0.0, 0, SEED % 1000 + 1,
                                     0.0, "tdl-c", 300e-9, 7.68e6, "medium")
        for j in range(tx):
            tb.connect(srcs[j], (fresh, j))
        for r in range(rx):
            tb.connect((fresh, r), sinks[r])
        tb.run()
        for r in range(rx):
            got = np.array(sinks[r].data())[: taps.shape[2]]
            np.testing.assert_allclose(got, taps[r, k], atol=1e-5)

    nu, m = 1 / 16, 4096
    tone = np.exp(2j * np.pi * nu * np.arange(m)).astype(np.complex64)
    tb = gr.top_block()
    iq = gpumimo.mimo_channel(1, 1, [1.0], 300.0, 1.0, 0.0, 0, 3, 0.0, "tdl-a", 1e-9, 1e6,
                              "none", 0.0, 1.0, 5.0)
    sink = blocks.vector_sink_c()
    tb.connect(blocks.vector_source_c(tone.tolist()), iq, sink)
    tb.run()
    y = np.array(sink.data())[64:]
    t = np.arange(64, m)
    at_nu = abs(np.sum(y * np.exp(-2j * np.pi * nu * t))) ** 2
    image = abs(np.sum(y * np.exp(2j * np.pi * nu * t))) ** 2
    g, c = 10 ** 0.05, np.cos(np.radians(5))
    irr = (1 + 2 * g * c + g * g) / (1 - 2 * g * c + g * g)
    assert abs(10 * np.log10(at_nu / image) - 10 * np.log10(irr)) < 0.05

    # The same imbalance set while running (a GRC callback) gives the same image.
    tb = gr.top_block()
    late = gpumimo.mimo_channel(1, 1, [1.0], 300.0, 1.0, 0.0, 0, 3, 0.0, "tdl-a", 1e-9, 1e6)
    late.set_iq_imbalance(1.0, 5.0)
    assert (late.iq_gain_db(), late.iq_phase_deg()) == (1.0, 5.0)
    sink = blocks.vector_sink_c()
    tb.connect(blocks.vector_source_c(tone.tolist()), late, sink)
    tb.run()
    np.testing.assert_allclose(np.array(sink.data())[64:], y, atol=1e-5)
    for setter, value in ((late.set_iq_imbalance, (float("nan"), 0.0)),
                          (late.set_phase_noise_var, (-1.0,)), (late.set_dc_dbc, (100.0,))):
        with pytest.raises(ValueError):
            setter(*value)
    assert (late.iq_gain_db(), late.phase_noise_var(), late.dc_dbc()) == (1.0, 0.0, float("-inf"))

    for kwargs in ({"model": "tdl-x"}, {"model": "tdl-a"},  # no delay spread
                   {"correlation": "medium"},  # the sample-spaced model has none
                   {"model": "tdl-a", "delay_spread": 1e-7, "sample_rate": 1e6,
                    "correlation": "huge"},
                   {"dc_dbc": float("nan")}, {"iq_gain_db": 40.0},
                   {"phase_noise_var": -1.0}):
        with pytest.raises(ValueError):
            gpumimo.mimo_channel(1, 1, **kwargs)


def test_pilot_blocks_follow_a_channel_that_fades_within_the_frame():
    """Frame format 4 through the blocks: 24 payload symbols of 2x4 16-QAM at 30 dB
    fading at 1.5e-4 cycles per sample (150 Hz at the small preset's 1 Msample/s: the
    channel at the frame's end has a correlation of about 0.6 with its start). A pilot
    block every 4 symbols (transmitter, synchroniser and fused receiver told alike) keeps
    the BER below 1e-3 (usually 0; a deep fade of a 2x4 draw costs a few bits at 30 dB
    with perfect knowledge too); one block loses more than 1% of the bits (measured
    0.2)."""
    frames, results = 5, {}
    for interval in (0, 4):
        x, _ = rx_samples(2, 4, "16qam", 24, frames, snr_db=30, cfo=0.05 / 64, delay=30,
                          taps=(0.7, 0.2, 0.1), seed=SEED + 23, doppler=1.5e-4,
                          pilot_interval=interval)
        _, sink = receive(x, 2, "16qam", 24, fused=True, pilot_interval=interval)
        assert sink.frames() >= frames - 1
        results[interval] = sink.ber()
    assert results[4] < 1e-3, results
    assert results[0] > 1e-2, results
    with pytest.raises(ValueError, match="pilot_interval"):
        gpumimo.mimo_ofdm_tx("small", 2, "16qam", 24, pilot_interval=-1)
    with pytest.raises(ValueError, match="pilot_interval"):
        gpumimo.mimo_chanest("small", 2, "16qam", 24, 4, pilot_interval=-1)
    with pytest.raises(ValueError, match="pilot_interval"):
        gpumimo.mimo_detector("small", 2, "16qam", 4, payload_symbols=24, pilot_interval=3000)


@pytest.mark.parametrize("estimate_stream", [True, False])
def test_separate_blocks_track_pilot_blocks_as_the_fused_receiver(tmp_path, estimate_stream):
    """The chain of blocks (mimo_chanest: an estimate per payload symbol, in the estimate
    stream or in a tag each; mimo_detector: each symbol with its own) on the fading
    channel above, a pilot block every 4 symbols: the same frames and the same LLRs as
    the fused receiver (the same references on the CPU, to float rounding), BER below
    1e-3."""
    frames, nsym, interval = 5, 24, 4
    x, _ = rx_samples(2, 4, "16qam", nsym, frames, snr_db=30, cfo=0.05 / 64, delay=30,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 23, doppler=1.5e-4,
                      pilot_interval=interval)
    llrs = {}
    for fused in (True, False):
        name = str(tmp_path / f"llr_{fused}.f32")
        rx, sink = receive(x, 2, "16qam", nsym, fused=fused, pilot_interval=interval,
                           filename=name, estimate_stream=estimate_stream)
        assert sink.frames() >= frames - 1
        assert sink.ber() < 1e-3, (fused, sink.ber())
        llrs[fused] = np.fromfile(name, dtype=np.float32)
        if not fused:
            assert rx.detector.erased_symbols() == 0
            assert rx.chanest.frames() == sink.frames()
    assert llrs[True].size == llrs[False].size > 0
    np.testing.assert_allclose(llrs[False], llrs[True], rtol=1e-3, atol=1e-3 * np.abs(llrs[True]).max())


def test_frames_not_whole_prefix_periods_batch_with_one_frames_pattern(tmp_path):
    """lte20's prefixes repeat every 7 symbols; a 2x4 frame of 8 payload symbols with a
    pilot block every 4 has 15 (1 + 3 blocks x 2 + 8), so mimo_ofdm_rx gives ofdm_fft
    the pattern of one frame, and frames batch back to back (frame_cp_lengths). The
    chain of blocks then gives the fused receiver's frames and LLRs (the same CPU
    references, to float rounding), BER below 1e-3 at 35 dB (a prefix pattern off by
    one symbol would leave about half the bits wrong; a flat 2x2 draw once cost a bit
    at 35 dB, so four antennas); a frame of whole periods keeps the preset's pattern."""
    cp = gpumimo.numerology("lte20")["cp_lengths"]
    assert gpumimo.frame_cp_lengths("lte20", 4, "16qam", 9) == cp  # 14 symbols
    assert gpumimo.frame_cp_lengths("small", 2, "16qam", 24, 4) == [16]
    pattern = gpumimo.frame_cp_lengths("lte20", 2, "16qam", 8, 4)
    assert pattern == [cp[k % 7] for k in range(15)]
    assert gpumimo.frame_cp_lengths("lte20", 2, "16qam", 60, 4)[:7] == cp  # 92 symbols
    frames, nsym, interval = 4, 8, 4
    x, _ = rx_samples(2, 4, "16qam", nsym, frames, snr_db=35, cfo=0.0, delay=50,
                      taps=(1.0,), seed=SEED + 29, pilot_interval=interval, gap=0,
                      preset="lte20")
    llrs = {}
    for fused in (True, False):
        name = str(tmp_path / f"llr_{fused}.f32")
        rx, sink = receive(x, 2, "16qam", nsym, fused=fused, pilot_interval=interval,
                           filename=name, preset="lte20")
        assert sink.frames() >= frames - 1, (fused, sink.frames())
        assert sink.ber() < 1e-3, (fused, sink.ber())
        llrs[fused] = np.fromfile(name, dtype=np.float32)
        if not fused:
            assert rx.fft.dropped_symbols() == 0 and rx.detector.erased_symbols() == 0
    assert llrs[True].size == llrs[False].size > 0
    np.testing.assert_allclose(llrs[False], llrs[True], rtol=1e-3, atol=1e-3 * np.abs(llrs[True]).max())


def test_channel_doppler_fades_the_taps_and_the_chain_follows():
    """mimo_channel's doppler: a constant input comes out as the fading tap itself
    (moving, with the profile's power on average), still with doppler 0; the receiver
    decodes 2x4 QPSK at 30 dB through a channel fading by 1e-5 cycles per sample (0.01
    Doppler cycles per frame) with a carrier offset, every bit right; bad values refused."""
    n = 4000
    outs = []
    for doppler in (0.0, 0.002):
        tb = gr.top_block()
        ch = gpumimo.mimo_channel(1, 1, [1.0], 300.0, 1.0, 0.0, 0, SEED % 1000 + 1, doppler)
        assert ch.doppler() == doppler
        sink = blocks.vector_sink_c()
        tb.connect(blocks.vector_source_c([1.0 + 0j] * n), ch, sink)
        tb.run()
        outs.append(np.array(sink.data()))
    still, fading = outs
    np.testing.assert_allclose(still, still[0], atol=1e-6)
    assert np.std(np.abs(fading)) > 0.1  # 8 Doppler cycles in 4000 samples
    # Smooth, no jumps: a step of the tap moves at most about 2 pi doppler times its
    # size, and a Rayleigh tap's size peaks at 2-3 (seed 946: 2.4, a step of 2.002 x
    # 2 pi doppler; at most that over 200 seeds). A jump (a block boundary restarting
    # the fading) is of the order of the tap itself, 1, twenty times the bound.
    assert np.max(np.abs(np.diff(fading))) < 2 * np.pi * 0.002 * 4
    for bad in (-0.1, 0.6):
        with pytest.raises(ValueError):
            gpumimo.mimo_channel(1, 1, [1.0], 30.0, 1.0, 0.0, 0, 1, bad)

    frames = 6
    x, _ = rx_samples(2, 4, "qpsk", 4, frames, snr_db=30, cfo=0.1 / 64, delay=30,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 21, doppler=1e-5)
    _, sink = receive(x, 2, "qpsk", 4)
    assert sink.frames() >= frames - 1
    assert sink.bit_errors() == 0, sink.ber()


def coded_link(snr_db, frames=5, modulation="16qam", nsym=6, code="wimax_576", seed=0):
    """mimo_ofdm_tx encoding with `code` -> 2x4 3-tap channel with a carrier offset ->
    mimo_ofdm_rx (mmse) -> llr_sink decoding the same code: the sink."""
    x, _ = rx_samples(2, 4, modulation, nsym, frames, snr_db=snr_db, cfo=0.1 / 64, delay=33,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 31 + seed, prbs_seed=11, code=code)
    _, sink = receive(x, 2, modulation, nsym, prbs_seed=11, code=code)
    return sink


def assert_code_corrects_the_typical_channel(code, draws=5):
    """At 9 dB through five static channel draws, in at least three the uncoded BER is
    above 1e-2 and the decoded BER at least ten times lower. One draw decides nothing: a
    deep fade defeats the code (raw BER 0.16, every codeword failed), a kind draw leaves
    under 1e-2 uncoded errors; each is a few percent of draws."""
    points = []
    for d in range(draws):
        noisy = coded_link(9, frames=8, seed=100 + d, code=code)
        points.append((noisy.raw_ber(), noisy.ber()))
    corrected = sum(raw > 1e-2 and ber < raw / 10 for raw, ber in points)
    assert corrected >= 3, f"GPUMIMO_TEST_SEED={SEED}: (raw BER, decoded BER) per draw {points}"


def test_coded_payload_is_decoded_by_the_sink():
    """LDPC in the stream: the transmitter encodes (802.16e n = 576, three codewords in a
    2x4 16-QAM frame of 6 payload symbols), the sink decodes and scores the information
    bits: at 30 dB every codeword and frame right; at 9 dB the code corrects what the
    detector gets wrong in the typical channel (assert_code_corrects_the_typical_channel)."""
    info = 2 * D * 4 * 6 // 576 * 288  # codewords x k
    sink = coded_link(30)
    assert sink.frames() >= 4 and sink.frame_bits() == 2 * D * 4 * 6
    assert sink.info_bits() == info and sink.bits() == sink.frames() * info
    assert sink.bit_errors() == 0 and sink.frame_errors() == 0
    assert sink.codewords() == 3 * sink.frames() and sink.codeword_errors() == 0
    assert 1 <= sink.mean_iterations() <= 2 and sink.decoder_backend() in ("cpu", "cuda")
    stats = sink.stats()
    assert pmt.to_uint64(pmt.dict_ref(stats, pmt.intern("codewords"), pmt.PMT_NIL)) == sink.codewords()
    assert_code_corrects_the_typical_channel("wimax_576")


def test_5g_nr_code_in_the_stream():
    """A 5G NR code through the stream: BG1 lifted by Z = 24 with 22 rows (rate 1/2, n =
    1056, k = 528: two codewords in the 2112-bit frame). At 30 dB every frame right; at
    9 dB the decoded BER at least ten times below the uncoded in the typical channel."""
    code = "nr_bg1_z24_rows22"
    c = gpumimo.ldpc_code_by_name(code)
    assert (c.n, c.m) == (44 * 24, 22 * 24)
    sink = coded_link(30, code=code)
    assert sink.frames() >= 4 and sink.info_bits() == 2 * 528
    assert sink.codewords() == 2 * sink.frames() and sink.codeword_errors() == 0
    assert sink.bit_errors() == 0 and sink.frame_errors() == 0
    assert_code_corrects_the_typical_channel(code)
    with pytest.raises(ValueError):  # 17 is not a lifting size
        gpumimo.mimo_ofdm_tx("small", 2, "16qam", 6, code="nr_bg1_z17")
    with pytest.raises(ValueError):  # longer than the frame: 68 x 64 bits
        gpumimo.mimo_ofdm_tx("small", 2, "16qam", 6, code="nr_bg1_z64")


def test_coded_transmitter_checks_its_code():
    with pytest.raises(ValueError):  # longer than the frame's 176 payload bits
        gpumimo.mimo_ofdm_tx("small", 1, "qpsk", 2, code="wimax_576")
    with pytest.raises(ValueError):
        gpumimo.mimo_ofdm_tx("small", 2, "16qam", 6, code="wimax_577")
    with pytest.raises(ValueError):
        gpumimo.llr_sink("small", 1, "qpsk", 2, code="wimax_576")
    tx = gpumimo.mimo_ofdm_tx("small", 2, "16qam", 6, payload="bytes", code="wimax_576")
    assert tx.frame_bits() == 3 * 288 and tx.frame_bytes() == 108


def test_sink_error_rates_follow_each_window():
    """llr_sink's error_rates port (report_every = 2): one PDU per two frames carrying
    [BER, FER] of just those frames. Clean LLRs of a 45 dB loopback, then chosen bits
    of chosen frames flipped: every PDU's rates are the flipped bits of its window; the
    stats port's dicts (also every 2 frames) count the same errors."""
    streams, nsym, frames = 2, 3, 8
    x, _ = rx_samples(streams, 4, "qpsk", nsym, frames, snr_db=45, cfo=0.0, delay=20,
                      taps=(0.8, 0.2), seed=SEED + 41)
    tb = gr.top_block()
    rx = gpumimo.mimo_ofdm_rx("small", streams, "qpsk", nsym, 4, "mmse", backend="cpu",
                              fft_backend="cpu")
    llr_sink = blocks.vector_sink_f()
    for a in range(4):
        tb.connect(blocks.vector_source_c(x[a].tolist()), (rx, a))
    tb.connect(rx, llr_sink)
    tb.run()
    bits = 2 * D * 2 * nsym  # streams x data carriers x 2 bits x symbols
    llr = np.array(llr_sink.data(), dtype=np.float32)[:frames * bits].reshape(frames, bits)
    assert llr.shape == (frames, bits)
    rng = seeded_rng(SEED + 42)
    flips = rng.integers(0, 4, size=frames)  # bit errors per frame, 0 to 3
    flips[1] = 0  # a window (frames 0, 1) with one error-free frame at least
    for f in range(frames):
        where = rng.choice(bits, size=flips[f], replace=False)
        llr[f, where] = -llr[f, where]

    sink = gpumimo.llr_sink("small", streams, "qpsk", nsym, prbs_seed=7, report_every=2)
    debug, stats = blocks.message_debug(), blocks.message_debug()
    tb = gr.top_block()
    tb.connect(blocks.vector_source_f(llr.ravel().tolist()), sink)
    tb.msg_connect((sink, "error_rates"), (debug, "store"))
    tb.msg_connect((sink, "stats"), (stats, "store"))
    tb.run()  # work() reports while holding the sink's lock: this once deadlocked
    assert sink.frames() == frames and sink.bit_errors() == flips.sum()
    assert debug.num_messages() == frames // 2
    # One every 2 frames; the one stop() sends may reach message_debug before the
    # flowgraph ends, or not.
    assert frames // 2 <= stats.num_messages() <= frames // 2 + 1
    last = stats.get_message(frames // 2 - 1)
    assert pmt.to_uint64(pmt.dict_ref(last, pmt.intern("bit_errors"), pmt.PMT_NIL)) == flips.sum()
    for w in range(frames // 2):
        msg = debug.get_message(w)
        meta, values = pmt.car(msg), pmt.f32vector_elements(pmt.cdr(msg))
        assert pmt.to_uint64(pmt.dict_ref(meta, pmt.intern("frames"), pmt.PMT_NIL)) == 2 * (w + 1)
        assert pmt.to_uint64(pmt.dict_ref(meta, pmt.intern("window_frames"), pmt.PMT_NIL)) == 2
        window = flips[2 * w:2 * w + 2]
        assert values[0] == pytest.approx(window.sum() / (2 * bits), rel=1e-6), w
        assert values[1] == pytest.approx(np.count_nonzero(window) / 2), w


@pytest.mark.parametrize("transport", ["", "--zmq", "--zmq --transport-only", "--apsm --profile",
                                       "--channel tdl-c --delay-spread 300e-9"])
def test_rx_rate_tool_reports_every_link(transport):
    """gpumimo_rx_rate, small and short on the CPU: a line per link with a rate above 0,
    the slowest link, and the host CPU it used; links spread over --devices in turn;
    with --zmq each link's samples cross ZeroMQ on 127.0.0.1 first (--transport-only:
    no receiver); --apsm the APSM receiver, its blocks profiled. Bad --devices is
    refused; --channel a TR 38.901 TDL model, named in the first line."""
    root = pathlib.Path(__file__).resolve().parents[2]
    tool = [sys.executable, str(root / "apps" / "gpumimo_rx_rate")]
    args = ["--preset", "small", "--links", "2", "--antennas", "2", "--streams", "2",
            "--payload-symbols", "4", "--frames", "2", "--backend", "cpu", "--seconds", "1",
            "--warmup", "0.5", "--devices", "0,0"] + transport.split()
    out = subprocess.run(tool + args, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    links = re.findall(r"link (\d): +([\d.]+) frames/s", out.stdout)
    assert [int(k) for k, _ in links] == [0, 1], out.stdout
    assert all(float(rate) > 0 for _, rate in links), out.stdout
    assert "slowest link" in out.stdout
    cpu = re.search(r"host CPU: ([\d.]+) cores busy, ([\d.]+) core-seconds per Gsample",
                    out.stdout)
    assert cpu and float(cpu.group(1)) > 0, out.stdout
    assert "links on GPU(s) 0, 0" in out.stdout
    if "--zmq" in transport:
        assert ("ZeroMQ transport alone" in out.stdout) == ("--transport-only" in transport)
        assert "--transport-only" in transport or "over ZeroMQ" in out.stdout
    if "--channel" in transport:
        assert "channel tdl-c 300 ns" in out.stdout, out.stdout
    if "--apsm" in transport:
        assert "APSM receiver on cpu" in out.stdout, out.stdout
        assert re.search(r"apsm_frame_demux +[\d.]+%  on cpu", out.stdout), out.stdout
        assert re.search(r"apsm_detector +[\d.]+%  on cpu", out.stdout), out.stdout
    bad = subprocess.run(tool + ["--devices", "x"], capture_output=True, text=True)
    assert bad.returncode != 0 and "--devices" in bad.stderr


def test_frame_clock_times_every_whole_frame():
    """frame_clock: a time per whole frame, in order, within the run; only the first
    `capacity` timed, all counted; nonsense arguments refused."""
    for capacity, want in ((100, 10), (4, 4)):
        tb = gr.top_block()
        clock = gpumimo.frame_clock(gr.sizeof_float, 100, capacity)
        tb.connect(blocks.vector_source_f([0.0] * 1050), clock)  # 10.5 frames
        before = gpumimo.frame_clock.now()
        tb.run()
        after = gpumimo.frame_clock.now()
        times = clock.times()
        assert clock.frames() == 10 and len(times) == want, (clock.frames(), len(times))
        assert all(before <= t <= after for t in times), (before, times, after)
        assert times == sorted(times)
    for bad in ((0, 10), (4, 0), (4, 10, 0)):
        with pytest.raises(ValueError):
            gpumimo.frame_clock(*bad)


FRAME_CLOCK_GRC = """options:
  parameters: {generate_options: no_gui, id: frame_clock_grc, output_language: python,
    run: 'True', run_options: run, title: frame clock}
  states: {coordinate: [8, 8], rotation: 0, state: enabled}
blocks:
- name: source
  id: blocks_vector_source_x
  parameters: {type: complex, vector: '[0j] * 3000', repeat: 'False', vlen: '1', tags: '[]'}
  states: {coordinate: [16, 150], rotation: 0, state: enabled}
- name: clock
  id: gpumimo_frame_clock
  parameters: {type: complex, vlen: '2', items_per_frame: '500', capacity: '100'}
  states: {coordinate: [400, 150], rotation: 0, state: enabled}
- name: to_vector
  id: blocks_stream_to_vector
  parameters: {type: complex, num_items: '2', vlen: '1'}
  states: {coordinate: [200, 150], rotation: 0, state: enabled}
connections:
- [source, '0', to_vector, '0']
- [to_vector, '0', clock, '0']
metadata: {file_format: 1}
"""


def test_frame_clock_grc_block(tmp_path):
    """The Frame Clock as GNU Radio Companion sees it (grcc): 3000 samples as 1500
    2-vectors, 500 a frame: 3 frames timed."""
    from qa_common import compile_flowgraph
    (tmp_path / "frame_clock_grc.grc").write_text(FRAME_CLOCK_GRC)
    tb = compile_flowgraph(tmp_path / "frame_clock_grc.grc", tmp_path).frame_clock_grc()
    tb.start()
    tb.wait()
    assert tb.clock.frames() == 3 and len(tb.clock.times()) == 3


def test_rx_rate_tool_reports_latency():
    """gpumimo_rx_rate --latency, small on the CPU, paced well below what it sustains:
    per link and over all links the median and 99th percentile of the time from a
    frame's last sample to its LLRs, the median at least 0 (a frame's LLRs cannot come
    before its samples: frames matched wrongly by a frame or more would show it) and at
    most the 99th percentile, and frames timed on every link. --latency with --zmq is
    refused; --channel a TR 38.901 TDL model, named in the first line."""
    root = pathlib.Path(__file__).resolve().parents[2]
    tool = [sys.executable, str(root / "apps" / "gpumimo_rx_rate")]
    args = ["--preset", "small", "--links", "2", "--antennas", "2", "--streams", "2",
            "--payload-symbols", "4", "--frames", "2", "--backend", "cpu", "--seconds", "1.5",
            "--warmup", "0.5", "--latency", "--target", "50e3"]
    out = subprocess.run(tool + args, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = re.findall(r"link (\d): median ([\d.-]+) ms, 99th percentile ([\d.-]+) ms, (\d+) frames",
                      out.stdout)
    assert [int(k) for k, *_ in rows] == [0, 1], out.stdout
    for _, median, p99, frames in rows:
        assert 0 <= float(median) <= float(p99) and int(frames) > 0, out.stdout
    # 50 ksample/s of 560-sample frames: about 89 frames a second a link
    assert all(20 <= int(frames) <= 200 for *_, frames in rows), out.stdout
    assert re.search(r"all links: median [\d.]+ ms, 99th percentile [\d.]+ ms", out.stdout)
    bad = subprocess.run(tool + ["--latency", "--zmq"], capture_output=True, text=True)
    assert bad.returncode != 0 and "--latency" in bad.stderr


@pytest.mark.parametrize("streams", [4, 8])
def test_one_link_over_the_whole_array(streams):
    """4 and 8 streams received on all 16 ports of an N310 array at once (one link, as
    the APSM recordings were made; examples/n310_rx_array_link): the block chain and the
    fused receiver (backend auto: the GPU where there is one) find every frame over a
    3-tap channel with a carrier offset and give every bit back at 30 dB."""
    frames = 4
    x, _ = rx_samples(streams, 16, "16qam", 4, frames, snr_db=30, cfo=0.1 / 64, delay=29,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 40)
    for fused in (False, True):
        tb = gr.top_block()
        rx = gpumimo.mimo_ofdm_rx("small", streams, "16qam", 4, 16, "mmse", backend="auto",
                                  fft_backend="auto", fused=fused)
        sink = gpumimo.llr_sink("small", streams, "16qam", 4, prbs_seed=7)
        for a in range(16):
            tb.connect(blocks.vector_source_c(x[a].tolist(), False), (rx, a))
        tb.connect(rx, sink)
        tb.run()
        assert sink.frames() >= frames and sink.partial_frames() == 0, (fused, sink.frames())
        assert sink.bit_errors() == 0, (fused, sink.ber())
        assert sink.bits() == sink.frames() * streams * D * 4 * 4
