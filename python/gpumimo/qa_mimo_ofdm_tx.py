#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The MIMO-OFDM frame source in a flowgraph: every frame equals the core's
frame_samples of the next bits of the seeded PRBS, the gap is zeros, frame_start tags
number the frames; and, independently of the core, numpy's FFT of the payload symbols
decides back to those PRBS bits on TS 38.211's constellation, the pilots are orthogonal
in time and the preamble's halves repeat. With payload "bytes" each frame is the core's
frame of the next input bytes, most significant bit first. Bad parameters refused."""

import os
import sys

import numpy as np
import pmt
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import compile_flowgraph, seeded_rng, ts38211_points  # noqa: E402

from gnuradio import blocks, gr, gpumimo  # noqa: E402

N, CP, USED = 64, 16, 48  # the "small" numerology
CARRIERS = list(range(N // 2 - USED // 2, N // 2)) + list(range(N // 2 + 1, N // 2 + USED // 2 + 1))
# Frame format 3's tracking carriers (docs/frame.md): n = max(2, used // 12) (48 - n a
# multiple of 4 already), the j-th at (2 j + 1) used // (2 n); the payload on the others.
N_TRACK = max(2, USED // 12)
TRACK = [(2 * j + 1) * USED // (2 * N_TRACK) for j in range(N_TRACK)]
DATA = [c for c in range(USED) if c not in TRACK]


def run(streams, modulation, payload_symbols, seed, gap, frames):
    tb = gr.top_block()
    tx = gpumimo.mimo_ofdm_tx("small", streams, modulation, payload_symbols, seed=seed, gap=gap)
    n = frames * tx.frame_len() + 7  # a few samples into one more frame
    sinks = []
    for k in range(streams):
        head = blocks.head(gr.sizeof_gr_complex, n)
        sink = blocks.vector_sink_c()
        tb.connect((tx, k), head, sink)
        sinks.append(sink)
    tb.run()
    out = np.array([s.data() for s in sinks], dtype=np.complex64)
    tags = [[(t.offset, pmt.to_uint64(t.value)) for t in s.tags()
             if pmt.symbol_to_string(t.key) == "frame_start"] for s in sinks]
    return tx, out, tags


def test_frames_are_the_cores_frames_of_the_prbs_payload():
    streams, mod, nsym, seed, gap, frames = 2, "16qam", 3, 77, 10, 3
    tx, out, tags = run(streams, mod, nsym, seed, gap, frames)
    flen, fbits = tx.frame_len(), tx.frame_bits()
    samples = flen - gap
    bits = gpumimo.prbs_bits(23, seed, (frames + 1) * fbits)
    for f in range(frames):
        want = gpumimo.frame_samples("small", streams, mod, nsym, bits[f * fbits:(f + 1) * fbits])
        np.testing.assert_array_equal(out[:, f * flen:f * flen + samples], want)
        assert np.all(out[:, f * flen + samples:(f + 1) * flen] == 0)
    for k in range(streams):
        assert tags[k][:frames + 1] == [(f * flen, f) for f in range(frames + 1)]


def test_payload_decides_back_to_the_prbs_bits_with_numpy():
    streams, mod, nsym, seed = 3, "16qam", 4, 1234
    tx, out, _ = run(streams, mod, nsym, seed, 0, 1)
    m = 4
    points, labels = ts38211_points(m)
    bits = gpumimo.prbs_bits(23, seed, tx.frame_bits())
    symbols = 1 + streams + nsym

    def carriers_of(k, s):
        start = s * (N + CP) + CP
        spec = np.fft.fftshift(np.fft.fft(out[k, start:start + N].astype(np.complex128))) / np.sqrt(N)
        return spec[CARRIERS]

    assert gpumimo.numerology("small")["tracking_carriers"] == TRACK
    for s in range(nsym):
        for k in range(streams):
            c = carriers_of(k, 1 + streams + s)
            idx = np.argmin(np.abs(c[DATA, None] - points), axis=1)
            got = labels[idx]  # [data carrier, bit]
            want = bits.reshape(nsym, len(DATA), streams, m)[s, :, k, :]
            assert np.array_equal(got, want), f"payload symbol {s}, stream {k}"
            # The tracking carriers: the stream's pilot values (pilot symbol 0's, cover 1).
            np.testing.assert_allclose(c[TRACK], carriers_of(k, 1)[TRACK], atol=1e-5)
    for k in range(streams):  # every stream in every pilot symbol, under its cover
        first = carriers_of(k, 1)
        np.testing.assert_allclose(np.abs(first), 1, atol=1e-5)
        for j in range(streams):
            cover = np.exp(-2j * np.pi * j * k / streams)
            np.testing.assert_allclose(carriers_of(k, 1 + j), cover * first, atol=1e-5)
        pre = out[k, CP:CP + N]  # every stream's preamble halves repeat
        np.testing.assert_allclose(pre[:N // 2], pre[N // 2:], atol=1e-5)
    assert symbols * (N + CP) == tx.frame_len()


def test_byte_payload_is_taken_a_frame_at_a_time_most_significant_bit_first():
    """payload "bytes": frame f is the core's frame of bytes [f * B, (f + 1) * B) as
    numpy.unpackbits orders their bits; bytes that do not fill a frame are not sent."""
    streams, mod, nsym, gap = 2, "qpsk", 2, 6
    rng = seeded_rng(31)
    probe = gpumimo.mimo_ofdm_tx("small", streams, mod, nsym, gap=gap, payload="bytes")
    B, flen = probe.frame_bytes(), probe.frame_len()
    assert B * 8 == probe.frame_bits() == streams * len(DATA) * 2 * nsym
    frames = 3
    data = rng.integers(0, 256, frames * B + B // 2, dtype=np.uint8)  # half a frame more
    tb = gr.top_block()
    tx = gpumimo.mimo_ofdm_tx("small", streams, mod, nsym, gap=gap, payload="bytes")
    tb.connect(blocks.vector_source_b(data.tolist(), False), tx)
    sinks = []
    for k in range(streams):
        sinks.append(blocks.vector_sink_c())
        tb.connect((tx, k), sinks[-1])
    tb.run()
    out = np.array([s.data() for s in sinks], dtype=np.complex64)
    assert out.shape == (streams, frames * flen) and tx.frames() == frames
    for f in range(frames):
        bits = np.unpackbits(data[f * B:(f + 1) * B])
        want = gpumimo.frame_samples("small", streams, mod, nsym, bits)
        np.testing.assert_array_equal(out[:, f * flen:f * flen + flen - gap], want)
        assert np.all(out[:, f * flen + flen - gap:(f + 1) * flen] == 0)
    for s in sinks:
        tags = [(t.offset, pmt.to_uint64(t.value)) for t in s.tags()]
        assert tags == [(f * flen, f) for f in range(frames)]  # the input's tags not passed


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        gpumimo.mimo_ofdm_tx("huge", 2, "qpsk", 1)
    with pytest.raises(ValueError):
        gpumimo.mimo_ofdm_tx("small", 9, "qpsk", 1)
    with pytest.raises(ValueError):
        gpumimo.mimo_ofdm_tx("small", 2, "qpsk", 0)
    with pytest.raises(ValueError):
        gpumimo.mimo_ofdm_tx("small", 2, "qpsk", 1, gap=-1)
    with pytest.raises(ValueError):
        gpumimo.mimo_ofdm_tx("small", 2, "qpsk", 1, seed=1 << 23)
    with pytest.raises(ValueError):
        gpumimo.frame_samples("small", 2, "qpsk", 1, np.zeros(5, dtype=np.uint8))
    with pytest.raises(ValueError):
        gpumimo.mimo_ofdm_tx("small", 2, "qpsk", 1, payload="file")
    # payload "bytes" ignores the seed: a seed that PRBS refuses is no error there
    assert gpumimo.mimo_ofdm_tx("small", 2, "qpsk", 1, seed=0, payload="bytes").frame_bytes() == 22


GRC = """options:
  parameters: {generate_options: no_gui, id: tx_yml, output_language: python,
    run: 'True', run_options: run, title: tx yml}
  states: {coordinate: [8, 8], rotation: 0, state: enabled}
blocks:
- name: tx
  id: gpumimo_mimo_ofdm_tx
  parameters: {gap: '5', modulation: 16qam, payload: prbs, payload_symbols: '3',
    preset: small, seed: '3', streams: '2'}
  states: {coordinate: [16, 150], rotation: 0, state: enabled}
- name: payload
  id: blocks_vector_source_x
  parameters: {repeat: 'True', tags: '[]', type: byte, vector: 'list(range(7, 250))',
    vlen: '1'}
  states: {coordinate: [16, 350], rotation: 0, state: enabled}
- name: tx_bytes
  id: gpumimo_mimo_ofdm_tx
  parameters: {gap: '0', modulation: qpsk, payload: bytes, payload_symbols: '1',
    preset: small, seed: '0', streams: '1'}
  states: {coordinate: [200, 350], rotation: 0, state: enabled}
- name: head2
  id: blocks_head
  parameters: {num_items: '1000', type: complex, vlen: '1'}
  states: {coordinate: [400, 350], rotation: 0, state: enabled}
- name: sink2
  id: blocks_vector_sink_x
  parameters: {reserve_items: '1024', type: complex, vlen: '1'}
  states: {coordinate: [600, 350], rotation: 0, state: enabled}
- name: head0
  id: blocks_head
  parameters: {num_items: '1000', type: complex, vlen: '1'}
  states: {coordinate: [200, 150], rotation: 0, state: enabled}
- name: head1
  id: blocks_head
  parameters: {num_items: '1000', type: complex, vlen: '1'}
  states: {coordinate: [200, 250], rotation: 0, state: enabled}
- name: sink0
  id: blocks_vector_sink_x
  parameters: {reserve_items: '1024', type: complex, vlen: '1'}
  states: {coordinate: [400, 150], rotation: 0, state: enabled}
- name: sink1
  id: blocks_vector_sink_x
  parameters: {reserve_items: '1024', type: complex, vlen: '1'}
  states: {coordinate: [400, 250], rotation: 0, state: enabled}
connections:
- [tx, '0', head0, '0']
- [tx, '1', head1, '0']
- [head0, '0', sink0, '0']
- [head1, '0', sink1, '0']
- [payload, '0', tx_bytes, '0']
- [tx_bytes, '0', head2, '0']
- [head2, '0', sink2, '0']
metadata: {file_format: 1}
"""


def test_the_grc_block_compiles_and_runs(tmp_path):
    """grc/gpumimo_mimo_ofdm_tx.block.yml as GNU Radio Companion sees it: a flowgraph
    with it, PRBS and byte payloads, compiles with grcc and gives the same samples as
    the block made in Python."""
    (tmp_path / "tx_yml.grc").write_text(GRC)
    tb = compile_flowgraph(tmp_path / "tx_yml.grc", tmp_path).tx_yml()
    tb.start()
    tb.wait()
    got = np.array([tb.sink0.data(), tb.sink1.data()], dtype=np.complex64)
    _, want, _ = run(2, "16qam", 3, 3, 5, 2)
    np.testing.assert_array_equal(got[:, :want.shape[1]], want[:, :got.shape[1]])
    assert got.shape == (2, 1000)
    # payload bytes: 11 bytes a frame of 1 x 44 QPSK data carriers, 240 samples a frame
    stream = np.tile(np.arange(7, 250, dtype=np.uint8), 2)
    B = len(DATA) * 2 // 8
    frames = [gpumimo.frame_samples("small", 1, "qpsk", 1,
                                    np.unpackbits(stream[B * f:B * (f + 1)]))[0]
              for f in range(5)]
    np.testing.assert_array_equal(np.array(tb.sink2.data(), np.complex64),
                                  np.concatenate(frames)[:1000])
