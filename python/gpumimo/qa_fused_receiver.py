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
    """x [antennas, n] through mimo_ofdm_rx (fused or the separate blocks; the
    synchroniser on the CPU, so that every path here sees the same frames bit for bit);
    the LLRs and the receiver."""
    tb = gr.top_block()
    rx = gpumimo.mimo_ofdm_rx("small", streams, modulation, nsym, x.shape[0], algorithm,
                              backend=backend, fft_backend="cpu", int8_output=int8,
                              fused=fused, sync_backend="cpu")
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


def decoded_chain(x, code, backend="cpu"):
    """x through mimo_ofdm_rx(fused, decoding `code`) into llr_sink(decoded_input), and
    the same samples' LLRs (fused, no code) into llr_sink(code) decoding them."""
    sinks = []
    for decode_in_receiver in (True, False):
        tb = gr.top_block()
        rx = gpumimo.mimo_ofdm_rx("small", 2, "16qam", 6, x.shape[0], "mmse", backend=backend,
                                  fused=True, code=code if decode_in_receiver else "")
        sink = gpumimo.llr_sink("small", 2, "16qam", 6, prbs_seed=11, code=code,
                                decoded_input=decode_in_receiver)
        for a in range(x.shape[0]):
            tb.connect(blocks.vector_source_c(x[a].tolist()), (rx, a))
        tb.connect(rx, sink)
        tb.run()
        sinks.append((rx, sink))
    return sinks


def codewords_per_frame(code, payload_bits=2 * 44 * 4 * 6):
    """(codewords in a frame of payload_bits, information bits per codeword) of a code."""
    c = gpumimo.ldpc_code_by_name(code)
    return payload_bits // c.n, gpumimo.ldpc_encoder(c).k


# 802.16e n = 576 (3 codewords a frame) and a 5G NR code, BG2 lifted by Z = 24 with 10
# rows (n = 480, k = 240: 4 codewords a frame).
CODES = ["wimax_576", "nr_bg2_z24_rows10"]


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("snr_db", [8, 30])
def test_fused_receiver_decodes_as_the_sink_decodes_its_llrs(snr_db, code):
    """Samples in, decoded bits out (fused_receiver with a code, on the CPU here): the
    same frames, bit errors, codewords and failed codewords as decoding its LLRs in
    llr_sink; at 30 dB every frame right, at 8 dB the code still at work."""
    frames = 6
    per_frame, k = codewords_per_frame(code)
    x, _ = rx_samples(2, 4, "16qam", 6, frames, snr_db=snr_db, cfo=0.1 / 64, delay=33,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 61, prbs_seed=11, code=code)
    (rx_dec, bits_sink), (rx_llr, llr_sink) = decoded_chain(x, code)
    fused = rx_dec.fused
    assert fused.info_bits() == per_frame * k and fused.payload_bits() == 2 * 44 * 4 * 6
    assert bits_sink.frames() == llr_sink.frames() >= frames - 1
    assert bits_sink.info_bits() == fused.info_bits()
    assert fused.codewords() == per_frame * fused.frames() == llr_sink.codewords()
    assert fused.codeword_errors() == llr_sink.codeword_errors()
    assert bits_sink.bit_errors() == llr_sink.bit_errors()
    assert bits_sink.frame_errors() == llr_sink.frame_errors()
    assert fused.raw_ber() == pytest.approx(llr_sink.raw_ber(), rel=1e-9)
    assert fused.mean_iterations() == pytest.approx(llr_sink.mean_iterations(), rel=1e-9)
    if snr_db > 20:
        assert bits_sink.bit_errors() == 0 and fused.codeword_errors() == 0
    else:
        # The decoder met uncoded errors: it corrected them (raw BER counts the codewords
        # that passed their checks) or failed codewords (a deep fade fails them all).
        assert fused.raw_ber() > 1e-3 or fused.codeword_errors() > 0, \
            f"GPUMIMO_TEST_SEED={SEED}"


def test_fused_decoding_refuses_what_it_cannot_do():
    with pytest.raises(ValueError):  # 2 x 44 x 2 x 2 = 352 payload bits < 576
        gpumimo.fused_receiver("small", 2, "qpsk", 2, 2, code="wimax_576")
    with pytest.raises(ValueError):
        gpumimo.fused_receiver("small", 2, "16qam", 6, 4, int8_output=True, code="wimax_576")
    with pytest.raises(ValueError):
        gpumimo.mimo_ofdm_rx("small", 2, "16qam", 6, 4, code="wimax_576")  # not fused
    with pytest.raises(ValueError):
        gpumimo.llr_sink("small", 2, "16qam", 6, filename="/tmp/x", decoded_input=True)


@pytest.mark.parametrize("code", CODES)
def test_gpu_decoding_gives_the_cpu_decodings_bits(code):
    """fused_receiver with a code on the GPU (LLRs decoded on the device, only bits out)
    against the same on the CPU: at 25 dB every frame right on both, the same counts."""
    if not HAVE_GPU:
        assert os.environ.get("GPUMIMO_REQUIRE_GPU") != "1", gpumimo.cuda_device_count()[1]
        pytest.skip("no usable CUDA device: " + gpumimo.cuda_device_count()[1])
    frames = 10
    x, _ = rx_samples(2, 4, "16qam", 6, frames, snr_db=25, cfo=0.1 / 64, delay=33,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 62, prbs_seed=11, code=code)
    (gpu_rx, gpu_sink), _ = decoded_chain(x, code, backend="cuda")
    (cpu_rx, cpu_sink), _ = decoded_chain(x, code, backend="cpu")
    per_frame, _ = codewords_per_frame(code)
    assert gpu_rx.fused.backend() == "cuda"
    assert gpu_sink.frames() == cpu_sink.frames() >= frames - 1
    assert gpu_sink.bit_errors() == cpu_sink.bit_errors() == 0
    assert gpu_rx.fused.codewords() == cpu_rx.fused.codewords() == per_frame * gpu_sink.frames()
    assert gpu_rx.fused.codeword_errors() == 0


DECODING_GRC = """options:
  parameters: {generate_options: no_gui, id: fused_decoding, output_language: python,
    run: 'True', run_options: run, title: fused decoding}
  states: {coordinate: [8, 8], rotation: 0, state: enabled}
blocks:
- name: tx
  id: gpumimo_mimo_ofdm_tx
  parameters: {gap: '40', modulation: 16qam, payload: prbs, payload_symbols: '6',
    preset: small, seed: '11', streams: '2', code: wimax_576}
  states: {coordinate: [16, 150], rotation: 0, state: enabled}
- name: head0
  id: blocks_head
  parameters: {num_items: '7000', type: complex, vlen: '1'}
  states: {coordinate: [200, 150], rotation: 0, state: enabled}
- name: head1
  id: blocks_head
  parameters: {num_items: '7000', type: complex, vlen: '1'}
  states: {coordinate: [200, 250], rotation: 0, state: enabled}
- name: channel
  id: gpumimo_mimo_channel
  parameters: {tx: '2', rx: '4', tap_powers: '[0.7, 0.2, 0.1]', snr_db: '30',
    signal_power: '1.0', cfo: 0.1 / 64, delay: '33', seed: '5'}
  states: {coordinate: [400, 150], rotation: 0, state: enabled}
- name: rx
  id: gpumimo_mimo_ofdm_rx
  parameters: {preset: small, streams: '2', modulation: 16qam, payload_symbols: '6',
    antennas: '4', algorithm: '"mmse"', backend: cpu, fft_backend: cpu, output: 'False',
    fused: 'True', code: wimax_576}
  states: {coordinate: [600, 150], rotation: 0, state: enabled}
- name: sink
  id: gpumimo_llr_sink
  parameters: {preset: small, streams: '2', modulation: 16qam, payload_symbols: '6',
    input: 'False', prbs_seed: '11', code: wimax_576, decoded_input: 'True'}
  states: {coordinate: [800, 150], rotation: 0, state: enabled}
connections:
- [tx, '0', head0, '0']
- [tx, '1', head1, '0']
- [head0, '0', channel, '0']
- [head1, '0', channel, '1']
- [channel, '0', rx, '0']
- [channel, '1', rx, '1']
- [channel, '2', rx, '2']
- [channel, '3', rx, '3']
- [rx, '0', sink, '0']
metadata: {file_format: 1}
"""


def test_grc_blocks_decode_in_the_fused_receiver(tmp_path):
    """The GRC blocks as GNU Radio Companion sees them: Frame Source with an LDPC code ->
    channel -> MIMO-OFDM Receiver (fused, the same code: decoded bits out) -> LLR Sink
    (Input: Decoded bits) compiles with grcc and counts every frame right at 30 dB."""
    from qa_common import compile_flowgraph
    (tmp_path / "fused_decoding.grc").write_text(DECODING_GRC)
    tb = compile_flowgraph(tmp_path / "fused_decoding.grc", tmp_path).fused_decoding()
    tb.start()
    tb.wait()
    assert tb.rx.fused.info_bits() == 864
    assert tb.sink.frames() >= 5 and tb.sink.bits() == tb.sink.frames() * 864
    assert tb.sink.bit_errors() == 0 and tb.rx.fused.codeword_errors() == 0


def through_stream_receiver(x, streams, modulation, nsym, backend="cpu", int8=False):
    """x [antennas, n] through one stream_receiver (synchronisation inside); the LLRs,
    the block and the sink."""
    tb = gr.top_block()
    rx = gpumimo.stream_receiver("small", streams, modulation, nsym, x.shape[0], "mmse",
                                 backend=backend, int8_output=int8)
    sink = blocks.vector_sink_b() if int8 else blocks.vector_sink_f()
    for a in range(x.shape[0]):
        tb.connect(blocks.vector_source_c(x[a].tolist()), (rx, a))
    tb.connect(rx, sink)
    tb.run()
    if int8:
        return np.array(sink.data(), dtype=np.uint8).view(np.int8), rx, sink
    return np.array(sink.data(), dtype=np.float32), rx, sink


def test_stream_receiver_gives_sync_and_fused_receivers_llrs():
    """The stream receiver (sample streams in, LLRs out) against mimo_ofdm_sync and the
    fused receiver on the CPU over the same stream with one damaged frame: the same
    frames, LLRs, frame_start tags (frame, offset, cfo) and drops; int8 as the float
    LLRs scaled; on a GPU the CUDA path within the fused receiver's float bound."""
    x, _ = rx_samples(2, 3, "16qam", 3, 6, snr_db=20, cfo=-0.25 / 64, delay=37,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 27)
    frame = gpumimo.mimo_ofdm_tx("small", 2, "16qam", 3, gap=40).frame_len() - 40
    x[2, 37 + 3 * (frame + 40) + 99] = np.inf  # inside the fourth frame
    want, rx_two, want_sink = through(x, 2, "16qam", 3, fused=True)
    got, rx, sink = through_stream_receiver(x, 2, "16qam", 3)
    assert rx.backend() == "cpu"
    bits = rx.payload_bits()
    assert rx.frames() == rx_two.sync.frames() >= 5 and got.size == rx.frames() * bits
    assert rx.dropped_frames() == rx_two.sync.dropped_frames() == 1
    np.testing.assert_array_equal(got, want)

    def tags(s):
        return [(t.offset, pmt.to_python(t.value)) for t in s.tags()
                if pmt.symbol_to_string(t.key) == "frame_start"]

    assert [o for o, _ in tags(sink)] == [k * bits for k in range(rx.frames())]
    for (_, a), (_, b) in zip(tags(sink), tags(want_sink)):
        assert (a["frame"], a["offset"], a["cfo"]) == (b["frame"], b["offset"], b["cfo"])
    assert rx.last_cfo() * 64 == pytest.approx(-0.25, abs=0.01)
    q, _, _ = through_stream_receiver(x, 2, "16qam", 3, int8=True)
    np.testing.assert_array_equal(q, np.clip(np.round(got * 8.0), -127, 127).astype(np.int8))
    if HAVE_GPU:
        gpu, rx_gpu, _ = through_stream_receiver(x, 2, "16qam", 3, backend="cuda")
        assert rx_gpu.backend() == "cuda" and gpu.size == got.size
        scale = np.maximum(1.0, np.abs(got).reshape(-1, 8).max(axis=1)).repeat(8)
        assert np.all(np.abs(gpu - got) <= 1e-3 * scale)


def test_stream_receiver_refuses_bad_parameters():
    with pytest.raises(ValueError):
        gpumimo.stream_receiver("small", 2, "qpsk", 2, 1)  # fewer antennas than streams
    with pytest.raises(ValueError):
        gpumimo.stream_receiver("small", 2, "qpsk", 2, 2, threshold=1.5)
    with pytest.raises(ValueError):
        gpumimo.stream_receiver("small", 2, "qpsk", 2, 2, int8_output=True, int8_scale=0)
    rx = gpumimo.stream_receiver("small", 2, "qpsk", 2, 2, threshold=0.5)
    with pytest.raises(ValueError):
        rx.set_threshold(-1)
    assert rx.threshold() == 0.5
    rx.set_detector("kbest")
    assert rx.detector().algorithm == "kbest"
