#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The OFDM FFT block in flowgraphs, against numpy's FFT on fresh random symbols:
prefix patterns, carriers, shift, scale, channels, sample formats, the inverse, sync
tags (alignment, incomplete symbols dropped and counted), tag propagation, NaN input
and bad parameters. The CPU path (FFTW) everywhere; the GPU path too where one is
usable (GPUMIMO_REQUIRE_GPU=1 makes its absence a failure)."""

import os
import sys

import numpy as np
import pmt
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import seeded_rng  # noqa: E402

from gnuradio import blocks, gr, gpumimo  # noqa: E402

HAVE_GPU = gpumimo.cuda_device_count()[0] > 0
BACKENDS = ["cpu", "cuda"] if HAVE_GPU else ["cpu"]


def test_gpu_presence_is_as_required():
    if os.environ.get("GPUMIMO_REQUIRE_GPU") == "1":
        assert HAVE_GPU, gpumimo.cuda_device_count()[1]


def numpy_forward(x, n, cps, first, nsym, carriers, shift, scale, window=None):
    """Independent model: symbols of one channel, numpy's FFT, [nsym, ncar]."""
    out, t = [], 0
    for s in range(nsym):
        cp = cps[(first + s) % len(cps)]
        body = x[t + cp:t + cp + n] * (1 if window is None else window)
        spec = np.fft.fft(body.astype(np.complex128))
        if shift:
            spec = np.fft.fftshift(spec)
        out.append(spec[carriers] * scale)
        t += cp + n
    return np.array(out), t


def run_forward(inputs, block, sink_type, vlen, max_items=None):
    """Connects inputs (per channel: (source block)) through block into sinks; max_items:
    every block's output held to that many items a call."""
    tb = gr.top_block()
    sinks = []
    for c, src in enumerate(inputs):
        snk = sink_type(vlen)
        tb.connect(src, (block, c))
        tb.connect((block, c), snk)
        sinks.append(snk)
    if max_items:
        tb.run(max_items)
    else:
        tb.run()
    return sinks


def sc16(x):
    """Complex values to interleaved int16 (x 32768, rounded, saturated)."""
    v = np.empty(2 * len(x))
    v[0::2], v[1::2] = x.real, x.imag
    return np.clip(np.round(v * 32768), -32768, 32767).astype(np.int16)


@pytest.mark.parametrize("backend", BACKENDS)
def test_forward_equals_numpy(backend):
    rng = seeded_rng(20)
    n, cps, C, nsym = 256, [26, 18, 18], 3, 23
    carriers = [k for k in range(20, n - 20) if k != n // 2]
    scale = 1 / np.sqrt(n)
    total = sum(cps[s % 3] + n for s in range(nsym))
    x = [(rng.standard_normal(total) + 1j * rng.standard_normal(total)).astype(np.complex64)
         for _ in range(C)]
    blk = gpumimo.ofdm_fft(n, cps, carriers, True, "fc32", "fc32", True, scale,
                           channels=C, backend=backend, batch=7)
    assert blk.backend() == backend
    sinks = run_forward([blocks.vector_source_c(xc.tolist()) for xc in x], blk,
                        blocks.vector_sink_c, len(carriers))
    for c in range(C):
        want, used = numpy_forward(x[c], n, cps, 0, nsym, carriers, True, scale)
        got = np.array(sinks[c].data()).reshape(-1, len(carriers))
        assert got.shape == want.shape
        assert np.linalg.norm(got - want) / np.linalg.norm(want) < 1e-5
    assert blk.symbols() == nsym and blk.dropped_samples() == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_sc16_in_fc16_and_sc8_out(backend):
    rng = seeded_rng(21)
    n, cps, C, nsym = 512, [40], 2, 9
    total = nsym * (n + 40)
    x = [0.2 * (rng.standard_normal(total) + 1j * rng.standard_normal(total)) for _ in range(C)]
    wire = [sc16(xc) for xc in x]
    quantised = [w[0::2] / 32768 + 1j * w[1::2] / 32768 for w in wire]
    scale = 0.5 / np.sqrt(n)
    for out_fmt, sink_type, decode in (
            ("fc16", blocks.vector_sink_s,
             lambda a: a.astype(np.int16).view(np.float16).astype(np.float64)),
            ("sc8", blocks.vector_sink_b,
             lambda a: a.astype(np.uint8).view(np.int8).astype(np.float64) / 128)):
        blk = gpumimo.ofdm_fft(n, cps, [], True, "sc16", out_fmt, False, scale, channels=C,
                               backend=backend)
        srcs = [blocks.vector_source_s(w.tolist(), False, 2) for w in wire]
        sinks = run_forward(srcs, blk, sink_type, 2 * n)
        for c in range(C):
            want, _ = numpy_forward(quantised[c], n, cps, 0, nsym, list(range(n)), False, scale)
            parts = decode(np.array(sinks[c].data()))
            got = (parts[0::2] + 1j * parts[1::2]).reshape(-1, n)
            err = np.max(np.abs(np.concatenate([(got - want).real, (got - want).imag])))
            # Half: 11 significant bits; sc8: half a step (1/256), both plus the float sum.
            bound = (np.max(np.abs(want)) * 2.0 ** -11 if out_fmt == "fc16" else 1 / 256) + 1e-4
            assert err <= bound, (out_fmt, err, bound)


@pytest.mark.parametrize("tapped", [True, False])
@pytest.mark.parametrize("backend", BACKENDS)
def test_inverse_then_forward_returns_the_carriers(backend, tapped):
    """The modulator's time samples straight into the demodulator; tapped, also into a
    CPU sink, which a device-resident demodulator input cannot share (GNU Radio keeps one
    transfer type a buffer), so there the demodulator keeps its ports on the host."""
    rng = seeded_rng(22)
    n, cps, C, nsym = 128, [16, 9, 9, 9], 2, 13
    carriers = list(range(10, 60)) + list(range(69, 118))
    qpsk = (rng.choice([-1, 1], (C, nsym * len(carriers)))
            + 1j * rng.choice([-1, 1], (C, nsym * len(carriers)))) / np.sqrt(2)
    mod = gpumimo.ofdm_fft(n, cps, carriers, False, "fc32", "fc32", True, 1 / n, channels=C,
                           backend=backend, batch=5)
    dem = gpumimo.ofdm_fft(n, cps, carriers, True, "fc32", "fc32", True, 1.0, channels=C,
                           backend=backend, batch=4, device_buffers=not tapped)
    tb = gr.top_block()
    time_sinks, sinks = [], []
    for c in range(C):
        src = blocks.vector_source_c(qpsk[c].astype(np.complex64).tolist(), False, len(carriers))
        ts, snk = blocks.vector_sink_c(), blocks.vector_sink_c(len(carriers))
        tb.connect(src, (mod, c))
        if tapped:
            tb.connect((mod, c), ts)
        tb.connect((mod, c), (dem, c))
        tb.connect((dem, c), snk)
        time_sinks.append(ts)
        sinks.append(snk)
    tb.run()
    for c in range(C):
        np.testing.assert_allclose(np.array(sinks[c].data()), qpsk[c], atol=1e-5)
        if not tapped:
            continue
        t = np.array(time_sinks[c].data())
        assert len(t) == sum(cps[s % 4] + n for s in range(nsym))
        # The prefix repeats the symbol's tail.
        pos = 0
        for s in range(nsym):
            cp = cps[s % 4]
            np.testing.assert_allclose(t[pos:pos + cp], t[pos + n:pos + n + cp], atol=1e-6)
            pos += cp + n


def tag(offset, key, value=0):
    return gr.tag_utils.python_to_tag((offset, pmt.intern(key), pmt.from_long(value),
                                       pmt.intern("qa")))


@pytest.mark.parametrize("backend", BACKENDS)
def test_sync_tag_aligns_drops_incomplete_symbols_and_moves_tags(backend):
    rng = seeded_rng(23)
    n, cps, C = 64, [12, 8], 2
    lead = 37                               # noise before the first frame
    frame1 = 5                              # whole symbols, then a cut one
    cut = 30                                # samples of the cut symbol
    frame2 = 6
    len1 = sum(cps[s % 2] + n for s in range(frame1))
    len2 = sum(cps[s % 2] + n for s in range(frame2))
    total = lead + len1 + cut + len2
    x = [(rng.standard_normal(total) + 1j * rng.standard_normal(total)).astype(np.complex64)
         for _ in range(C)]
    start2 = lead + len1 + cut
    marker = lead + (cps[0] + n) + cps[1] + 3   # inside frame 1's symbol 1, channel 1
    src_tags = [[tag(lead, "frame_start"), tag(start2, "frame_start", 2), tag(5, "early")],
                [tag(marker, "marker", 7)]]
    blk = gpumimo.ofdm_fft(n, cps, [], True, "fc32", "fc32", False, 1.0, channels=C,
                           backend=backend, sync_tag="frame_start")
    srcs = [blocks.vector_source_c(x[c].tolist(), False, 1, src_tags[c]) for c in range(C)]
    sinks = run_forward(srcs, blk, blocks.vector_sink_c, n)
    for c in range(C):
        w1, _ = numpy_forward(x[c][lead:], n, cps, 0, frame1, list(range(n)), False, 1.0)
        w2, _ = numpy_forward(x[c][start2:], n, cps, 0, frame2, list(range(n)), False, 1.0)
        got = np.array(sinks[c].data()).reshape(-1, n)
        want = np.vstack([w1, w2])
        assert got.shape == want.shape
        assert np.linalg.norm(got - want) / np.linalg.norm(want) < 1e-5
    assert blk.dropped_symbols() == 1
    assert blk.dropped_samples() == lead + cut
    assert blk.symbols() == frame1 + frame2
    got_tags = {(pmt.symbol_to_string(t.key), t.offset) for t in sinks[0].tags()}
    # The frame starts on their first symbols; the tag on dropped noise on the next one.
    assert ("frame_start", 0) in got_tags and ("frame_start", frame1) in got_tags
    assert ("early", 0) in got_tags
    assert [(pmt.symbol_to_string(t.key), t.offset) for t in sinks[1].tags()] == [("marker", 1)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_back_to_back_frames_share_calls_and_keep_their_tags(backend):
    """Frames back to back, as mimo_ofdm_sync writes them: those of whole prefix periods
    go through in one batch (the prefix pattern runs on across their tags), the one of
    a period and a half makes the next realign; every symbol as numpy's, every
    frame_start tag on its frame's first symbol."""
    rng = seeded_rng(26)
    n, cps, C = 64, [12, 8], 2
    frames = [4, 4, 4, 3, 4, 2]            # symbols; 3 is a period and a half
    lens = [sum(cps[s % 2] + n for s in range(k)) for k in frames]
    starts = np.cumsum([0] + lens[:-1])
    x = [(rng.standard_normal(sum(lens)) + 1j * rng.standard_normal(sum(lens)))
         .astype(np.complex64) for _ in range(C)]
    tags = [tag(int(a), "frame_start", f) for f, a in enumerate(starts)]
    blk = gpumimo.ofdm_fft(n, cps, [], True, "fc32", "fc32", False, 1.0, channels=C,
                           backend=backend, batch=64, sync_tag="frame_start")
    srcs = [blocks.vector_source_c(x[c].tolist(), False, 1, tags if c == 0 else [])
            for c in range(C)]
    sinks = run_forward(srcs, blk, blocks.vector_sink_c, n)
    for c in range(C):
        want = np.vstack([numpy_forward(x[c][a:], n, cps, 0, k, list(range(n)), False, 1.0)[0]
                          for a, k in zip(starts, frames)])
        got = np.array(sinks[c].data()).reshape(-1, n)
        assert got.shape == want.shape
        assert np.linalg.norm(got - want) / np.linalg.norm(want) < 1e-5
    assert blk.dropped_samples() == 0 and blk.dropped_symbols() == 0
    first_symbols = np.cumsum([0] + frames[:-1]).tolist()
    assert sorted((t.offset, pmt.to_long(t.value)) for t in sinks[0].tags()) == \
        list(zip(first_symbols, range(len(frames))))


@pytest.mark.parametrize("backend", BACKENDS)
def test_nan_symbols_come_out_zero_and_are_counted(backend):
    rng = seeded_rng(24)
    n, cp, nsym = 128, 16, 8
    x = (rng.standard_normal(nsym * (n + cp)) + 1j * rng.standard_normal(nsym * (n + cp)))
    x = x.astype(np.complex64)
    x[3 * (n + cp) + cp + 5] = np.nan
    blk = gpumimo.ofdm_fft(n, [cp], [], True, backend=backend)
    snk = run_forward([blocks.vector_source_c(x.tolist())], blk, blocks.vector_sink_c, n)[0]
    got = np.array(snk.data()).reshape(nsym, n)
    assert np.all(np.isfinite(got))
    assert np.all(got[3] == 0)
    assert blk.zeroed_symbols() == 1
    want, _ = numpy_forward(x, n, [cp], 0, nsym, list(range(n)), True, 1.0)
    keep = [s for s in range(nsym) if s != 3]
    assert np.linalg.norm(got[keep] - want[keep]) / np.linalg.norm(want[keep]) < 1e-5


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("forward", [True, False])
def test_streamed_calls_equal_unstreamed(backend, forward):
    """One transform in flight across calls (streamed, the default on host buffers; on the
    GPU device_buffers=False, as device-resident ports are never streamed) and
    every call finished before it returns: the same output, the same tags at the same
    items, the same counts, over many small calls with frames cut short by sync tags,
    stray tags on every channel and a NaN symbol."""
    rng = seeded_rng(27)
    n, cps, C = 64, [12, 8, 8], 2
    if forward:
        total = 9000
        x = [(rng.standard_normal(total) + 1j * rng.standard_normal(total)).astype(np.complex64)
             for _ in range(C)]
        starts = 50 + np.cumsum(rng.integers(150, 700, 12))  # frames of 2 to 9 symbols
        x[1][starts[0] + cps[0] + 5] = np.nan                # inside the first symbol
        src_tags = [[tag(int(a), "frame_start", i) for i, a in enumerate(starts)],
                    []]
    else:
        total = 140                      # carrier vectors
        x = [(rng.standard_normal(total * n) + 1j * rng.standard_normal(total * n))
             .astype(np.complex64) for _ in range(C)]
        starts = np.sort(rng.choice(np.arange(1, total - 1), 9, replace=False))
        src_tags = [[tag(int(a), "frame_start", i) for i, a in enumerate(starts)], []]
    strays = 400 if forward else 60  # near symbol boundaries too, where the pattern counts
    for c in range(C):
        src_tags[c] += [tag(int(o), "stray", c)
                        for o in rng.choice(total - 1, strays, replace=False)]
    runs = []
    for streamed in (True, False):
        blk = gpumimo.ofdm_fft(n, cps, [], forward, "fc32", "fc32", True, 0.5, channels=C,
                               backend=backend, batch=5, sync_tag="frame_start",
                               device_buffers=False, streamed=streamed)
        vlen = n if forward else 1
        srcs = [blocks.vector_source_c(x[c].tolist(), False, 1 if forward else n, src_tags[c])
                for c in range(C)]
        # Every block's output held to 300 items a call: the block works in many calls,
        # a streamed transform in flight across most of them.
        sinks = run_forward(srcs, blk, blocks.vector_sink_c, vlen, max_items=300)
        runs.append(dict(
            data=[np.array(s.data()) for s in sinks],
            tags=[sorted((t.offset, pmt.symbol_to_string(t.key), pmt.to_long(t.value))
                         for t in s.tags()) for s in sinks],
            counts=(blk.symbols(), blk.dropped_samples(), blk.dropped_symbols(),
                    blk.zeroed_symbols(), blk.work_failures())))
    streamed, unstreamed = runs
    assert streamed["counts"] == unstreamed["counts"]
    assert streamed["counts"][0] > 0 and streamed["counts"][4] == 0
    if forward:
        assert streamed["counts"][2] > 0 and streamed["counts"][3] == 1  # cut and NaN symbols
    for c in range(C):
        assert len(streamed["data"][c]) == len(unstreamed["data"][c]) > 0
        np.testing.assert_array_equal(streamed["data"][c], unstreamed["data"][c])
        assert streamed["tags"][c] == unstreamed["tags"][c]
        assert len(streamed["tags"][c]) >= strays // 2


@pytest.mark.parametrize("kwargs, error", [
    (dict(fft_len=7, cp_lengths=[0]), ValueError),
    (dict(fft_len=64, cp_lengths=[-1]), ValueError),
    (dict(fft_len=64, cp_lengths=[8], occupied_carriers=[64]), ValueError),
    (dict(fft_len=64, cp_lengths=[8], occupied_carriers=[3, 3]), ValueError),
    (dict(fft_len=64, cp_lengths=[8], input_format="sc12"), ValueError),
    (dict(fft_len=64, cp_lengths=[8], window=[1.0] * 63), ValueError),
    (dict(fft_len=64, cp_lengths=[8], channels=0), ValueError),
    (dict(fft_len=64, cp_lengths=[8], backend="gpu"), ValueError),
    (dict(fft_len=64, cp_lengths=[8], batch=-1), ValueError),
])
def test_bad_parameters_are_refused(kwargs, error):
    with pytest.raises(error):
        gpumimo.ofdm_fft(**kwargs)


def test_cuda_backend_without_gpu_is_refused():
    if HAVE_GPU:
        pytest.skip("a GPU is usable here")
    with pytest.raises(RuntimeError, match="not usable"):
        gpumimo.ofdm_fft(64, [8], backend="cuda")
    assert gpumimo.ofdm_fft(64, [8], backend="auto").backend() == "cpu"
