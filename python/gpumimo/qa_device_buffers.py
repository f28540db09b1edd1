#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Device-resident stream buffers between GPU blocks (lib/block_support/device_stream_buffer.h):
mimo_ofdm_sync on the GPU writes its corrected frames into GPU memory, ofdm_fft on the
GPU reads them there and writes its carriers there, mimo_chanest on the GPU reads them
there and writes its payload there (and, with the estimate stream, its channel
estimates), and mimo_detector on the GPU reads them there and writes its LLRs there for
the LDPC decoder on the GPU. Every mix of the blocks' backends gives the host chain's
frames, tags and LLRs (or decoded bits): all on the GPU (nothing but the LLRs, or the
decoded bits, leaves the device after synchronisation), and
each block on the CPU between GPU ones (the buffer's page-locked host side then, which
the GPU end copies by DMA); long enough that the single-mapped buffers wrap. Frames with
NaN, Inf or out-of-range carriers are dropped by mimo_chanest on either backend (on the
GPU checked on the device) and the rest come out as without them. A device output
feeding a GPU and a CPU block at once is refused at start. Without a GPU the same
flowgraphs run on the CPU ("auto") and must give the host chain's LLRs bit for bit
(GPUMIMO_REQUIRE_GPU=1 makes a missing GPU a failure)."""

import os
import sys

import numpy as np
import pytest

import pmt
from gnuradio import blocks, gr, gpumimo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_mimo_receiver import SEED, rx_samples  # noqa: E402

HAVE_GPU = gpumimo.cuda_device_count()[0] > 0
GPU = "cuda" if HAVE_GPU else "auto"
STREAMS, ANTENNAS, MOD, NSYM = 2, 4, "16qam", 3
BITS = 8  # LLRs per vector: 2 streams x 4 bits
# n = 1056: a frame's payload (3 symbols x 44 data carriers x 8 bits) is one codeword.
CODE = "wimax_1056"


def test_gpu_presence_is_as_required():
    if os.environ.get("GPUMIMO_REQUIRE_GPU") == "1":
        assert HAVE_GPU, gpumimo.cuda_device_count()[1]


def make_fft(backend):
    num = gpumimo.numerology("small")
    return gpumimo.ofdm_fft(num["fft_len"], num["cp_lengths"], num["carriers"], forward=True,
                            scale=num["scale"], channels=ANTENNAS, backend=backend,
                            sync_tag="frame_start")


def chain(x, chanest_backend, detector_backend, tap_payload=False, fft_backend="cpu",
          sync_backend="cpu", device_buffers=True, ldpc_backend=None, estimate_stream=False):
    """x through mimo_ofdm_sync, ofdm_fft, mimo_chanest and mimo_detector on the backends
    given; tap_payload: mimo_chanest's antenna 0 also into a CPU sink; ldpc_backend: the
    LLRs through an ldpc_decoder (CODE) on that backend into a byte sink, the decoder
    returned after the detector; estimate_stream: the estimates from mimo_chanest's
    estimate output into the detector's estimate input, not in the tags."""
    tb = gr.top_block()
    num = gpumimo.numerology("small")
    sync = gpumimo.mimo_ofdm_sync("small", STREAMS, MOD, NSYM, ANTENNAS, 0.0, sync_backend)
    fft = make_fft(fft_backend)
    chanest = gpumimo.mimo_chanest("small", STREAMS, MOD, NSYM, ANTENNAS, "lmmse", False,
                                   chanest_backend, device_buffers=device_buffers)
    detector = gpumimo.mimo_detector("small", STREAMS, MOD, ANTENNAS, "mmse", detector_backend,
                                     device_buffers=device_buffers, payload_symbols=NSYM)
    for a in range(ANTENNAS):
        tb.connect(blocks.vector_source_c(x[a].tolist()), (sync, a), (fft, a), (chanest, a),
                   (detector, a))
    if estimate_stream:
        tb.connect((chanest, ANTENNAS), (detector, ANTENNAS))
    if ldpc_backend is not None:
        # A few codewords a call, so that the decoder is called many times.
        decoder = gpumimo.ldpc_decoder(CODE, "min_sum", 10, ldpc_backend, 0, 4,
                                       device_buffers=device_buffers)
        sink = blocks.vector_sink_b()
        tb.connect(detector, decoder, sink)
        return tb, (sync, fft, chanest, detector, decoder), sink
    sink = blocks.vector_sink_f()
    tb.connect(detector, sink)
    if tap_payload:
        tap = blocks.vector_sink_c(num["used_carriers"])
        tb.connect((chanest, 0), tap)
        return tb, chanest, detector, sink, tap
    return tb, chanest, detector, sink


def run_chain(x, chanest_backend, detector_backend, fft_backend="cpu", sync_backend="cpu",
              estimate_stream=False):
    tb, chanest, detector, sink = chain(x, chanest_backend, detector_backend,
                                        fft_backend=fft_backend, sync_backend=sync_backend,
                                        estimate_stream=estimate_stream)
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


def assert_llrs_close(got, want):
    """The GPU's float smoothing and detection: within 1e-3 of each vector's largest LLR
    (as test_chanest_smoothing_backends_agree)."""
    scale = np.maximum(1.0, np.abs(want).reshape(-1, BITS).max(axis=1)).repeat(BITS)
    assert np.all(np.abs(got - want) <= 1e-3 * scale), np.max(np.abs(got - want) / scale)


# (mimo_ofdm_sync, ofdm_fft, mimo_chanest, mimo_detector)
MIXES = {"all-on-gpu": (GPU, GPU, GPU, GPU), "sync-on-cpu": ("cpu", GPU, GPU, GPU),
         "fft-on-cpu": (GPU, "cpu", GPU, GPU), "chanest-on-cpu": (GPU, GPU, "cpu", GPU),
         "detector-on-cpu": (GPU, GPU, GPU, "cpu"), "sync-only-on-gpu": (GPU, "cpu", "cpu", "cpu"),
         "fft-only-on-gpu": ("cpu", GPU, "cpu", "cpu"),
         "chanest-only-on-gpu": ("cpu", "cpu", GPU, "cpu"),
         "detector-only-on-gpu": ("cpu", "cpu", "cpu", GPU)}


@pytest.mark.parametrize("estimates", ["tags", "stream"])
@pytest.mark.parametrize("backends", list(MIXES.values()), ids=list(MIXES))
def test_every_mix_of_backends_gives_the_host_chains_llrs(samples, host_chain, backends,
                                                          estimates):
    """The host chain (every block on the CPU, estimates in the tags) against every mix
    of backends, the estimates in the tags or in mimo_chanest's estimate stream (on the
    GPU between GPU blocks, device memory read by the detector's GPU engine in place)."""
    want, frames, symbols = host_chain
    sync_backend, fft_backend, chanest_backend, detector_backend = backends
    got, chanest, detector = run_chain(samples, chanest_backend, detector_backend, fft_backend,
                                       sync_backend, estimate_stream=estimates == "stream")
    on_gpu = [b != "cpu" and HAVE_GPU for b in backends]
    assert [chanest.backend() == "cuda", detector.backend() == "cuda"] == on_gpu[2:]
    # The same frames, symbols and tags' worth of LLRs: nothing lost or doubled in the
    # buffers' copies and wraps.
    assert chanest.frames() == frames and chanest.dropped_frames() == 0
    assert detector.symbols() == symbols and detector.erased_symbols() == 0
    assert got.size == want.size
    assert np.all(np.isfinite(got))
    if not any(on_gpu):  # the CPU fallback: the host chain exactly
        np.testing.assert_array_equal(got, want)
        return
    assert_llrs_close(got, want)


def carrier_stream(x):
    """x through sync and FFT on the CPU: each antenna's carrier vectors and their
    frame_start tags, as mimo_chanest gets them."""
    tb = gr.top_block()
    num = gpumimo.numerology("small")
    sync = gpumimo.mimo_ofdm_sync("small", STREAMS, MOD, NSYM, ANTENNAS, 0.0, "cpu")
    fft = make_fft("cpu")
    sinks = [blocks.vector_sink_c(num["used_carriers"]) for _ in range(ANTENNAS)]
    for a in range(ANTENNAS):
        tb.connect(blocks.vector_source_c(x[a].tolist()), (sync, a), (fft, a), sinks[a])
    tb.run()
    U = num["used_carriers"]
    carriers = [np.array(s.data(), dtype=np.complex64).reshape(-1, U) for s in sinks]
    tags = [[t for t in s.tags() if pmt.symbol_to_string(t.key) == "frame_start"]
            for s in sinks]
    return carriers, tags


def chanest_on(carriers, tags, backend):
    """The carrier vectors (with their frame_start tags) through mimo_chanest on backend
    and a CPU mimo_detector: the LLRs and the estimator."""
    tb = gr.top_block()
    U = carriers[0].shape[1]
    chanest = gpumimo.mimo_chanest("small", STREAMS, MOD, NSYM, ANTENNAS, "lmmse", False,
                                   backend)
    detector = gpumimo.mimo_detector("small", STREAMS, MOD, ANTENNAS, "mmse", "cpu")
    sink = blocks.vector_sink_f()
    for a in range(ANTENNAS):
        src_tags = [gr.tag_utils.python_to_tag((t.offset, t.key, t.value, t.srcid))
                    for t in tags[a]]
        src = blocks.vector_source_c(carriers[a].reshape(-1).tolist(), False, U, src_tags)
        tb.connect(src, (chanest, a), (detector, a))
    tb.connect(detector, sink)
    tb.run()
    return np.array(sink.data(), dtype=np.float32), chanest


@pytest.mark.parametrize("backend", ["cpu", GPU])
def test_frames_with_unusable_carriers_are_dropped_and_the_rest_kept(samples, backend):
    """A NaN, an Inf and a value beyond 1e15 in three frames' carriers (one antenna each,
    a random symbol of the frame): mimo_chanest drops those three frames, counted (on the
    GPU found on the device), and every other frame's LLRs are the clean stream's."""
    rng = np.random.default_rng(SEED + 42)
    carriers, tags = carrier_stream(samples)
    starts = sorted(t.offset for t in tags[0])
    clean, clean_est = chanest_on(carriers, tags, backend)
    assert clean_est.dropped_frames() == 0 and clean_est.frames() == len(starts)
    symbols_per_frame = 1 + STREAMS + NSYM
    bad = sorted(rng.choice(np.arange(1, len(starts) - 1), 3, replace=False))
    damaged = [c.copy() for c in carriers]
    for value, f in zip([np.nan, np.inf, 2e15], bad):
        a, s = rng.integers(ANTENNAS), rng.integers(symbols_per_frame)
        damaged[a][starts[f] + s, rng.integers(damaged[a].shape[1])] = value
    got, est = chanest_on(damaged, tags, backend)
    assert est.backend() == ("cuda" if HAVE_GPU and backend != "cpu" else "cpu")
    assert est.dropped_frames() == 3 and est.frames() == len(starts) - 3
    per_frame = NSYM * 44 * BITS
    keep = np.ones(len(starts), dtype=bool)
    keep[bad] = False
    want = clean.reshape(len(starts), per_frame)[keep].reshape(-1)
    assert got.size == want.size and np.all(np.isfinite(got))
    if est.backend() == "cpu":  # the same engine: the same estimates
        np.testing.assert_array_equal(got, want)
    else:  # batched otherwise around the dropped frames
        assert_llrs_close(got, want)


def test_a_device_output_feeding_gpu_and_cpu_blocks(samples, host_chain):
    """GNU Radio keeps one transfer type a buffer: mimo_chanest's antenna 0 on the GPU read
    by the GPU detector and a CPU sink at once is refused when the flowgraph starts, a
    RuntimeError before any thread runs; with device_buffers=False on the two blocks the
    same flowgraph runs on the GPU, through host buffers. On the CPU (no GPU: host
    buffers) it runs either way, the sink getting the host chain's payload."""
    want, frames, _ = host_chain
    tb, chanest, _, sink, tap = chain(samples, GPU, GPU, tap_payload=True)
    if HAVE_GPU:
        with pytest.raises(RuntimeError, match="Cannot change to transfer type"):
            tb.run()
        tb, chanest, _, sink, tap = chain(samples, GPU, GPU, tap_payload=True,
                                          device_buffers=False)
        tb.run()
        assert chanest.backend() == "cuda" and chanest.frames() == frames
        assert_llrs_close(np.array(sink.data(), dtype=np.float32), want)
        return
    tb.run()
    np.testing.assert_array_equal(np.array(sink.data(), dtype=np.float32), want)
    tb_host, _, _, _, tap_host = chain(samples, "cpu", "cpu", tap_payload=True)
    tb_host.run()
    payload = np.array(tap.data(), dtype=np.complex64)
    assert chanest.frames() == frames and payload.size == frames * NSYM * 48
    np.testing.assert_array_equal(payload, np.array(tap_host.data(), dtype=np.complex64))


@pytest.fixture(scope="module")
def coded():
    """60 frames whose payload bytes are codewords of CODE (one a frame, most significant
    bit first, as the frame source packs them), five random ones in turn, and their
    information bits."""
    rng = np.random.default_rng(SEED + 43)
    enc = gpumimo.ldpc_encoder(gpumimo.ldpc_code_by_name(CODE))
    info = rng.integers(0, 2, size=(5, enc.k), dtype=np.uint8)
    payload = np.packbits(enc.encode(info).reshape(-1))
    x, _ = rx_samples(STREAMS, ANTENNAS, MOD, NSYM, 60, snr_db=24, cfo=0.1 / 64, delay=21,
                      taps=(0.7, 0.2, 0.1), seed=SEED + 43, payload_bytes=payload.tolist())
    return x, info


def decoded(sink, info, erasures=False):
    """The decoder's codewords (rows of information bits) and their ok flags; each row
    that decoded is checked against the sent words, which follow each other in turn.
    erasures: codewords whose LLRs were all zero (symbols the detector erased) are
    expected; the decoder does not count them as decoded (ok false), and an all-zero row
    is not taken as decoded here either (a random word sent is never all zero)."""
    k = info.shape[1]
    rows = np.array(sink.data(), dtype=np.uint8).reshape(-1, k)
    tags = [t for t in sink.tags() if pmt.symbol_to_string(t.key) == "ldpc"]
    assert [t.offset for t in tags] == [i * k for i in range(len(rows))]
    ok = [pmt.to_bool(pmt.dict_ref(t.value, pmt.intern("ok"), pmt.PMT_NIL)) for t in tags]
    if erasures:
        ok = [o and rows[i].any() for i, o in enumerate(ok)]
    good = [i for i in range(len(rows)) if ok[i]]
    assert good, "no codeword decoded"
    first = [j for j in range(len(info)) if np.array_equal(rows[good[0]], info[j])]
    assert first, "a codeword decoded to words never sent"
    for i in good:
        np.testing.assert_array_equal(rows[i], info[(first[0] + i - good[0]) % len(info)])
    return rows, ok


# (mimo_detector, ldpc_decoder): both on the GPU the LLRs stay on the device.
DECODER_MIXES = {"both-on-gpu": (GPU, GPU), "decoder-on-cpu": (GPU, "cpu"),
                 "detector-on-cpu": ("cpu", GPU), "both-on-cpu": ("cpu", "cpu")}


@pytest.mark.parametrize("backends", list(DECODER_MIXES.values()), ids=list(DECODER_MIXES))
def test_llrs_into_the_ldpc_decoder_on_the_device_decode_as_on_the_host(coded, backends):
    """The receiver chain on the GPU with its LLRs into the LDPC decoder block: with both
    on the GPU they go from the detector to the decoder in device memory; every codeword
    decodes to the word sent, as in the host chain (host buffers, every block on the
    CPU), whichever of the two blocks runs where."""
    x, info = coded
    tb, _, sink = chain(x, "cpu", "cpu", device_buffers=False, ldpc_backend="cpu")
    tb.run()
    want, want_ok = decoded(sink, info)
    assert len(want) >= 55 and all(want_ok)
    detector_backend, ldpc_backend = backends
    tb, made, sink = chain(x, GPU, detector_backend, fft_backend=GPU, sync_backend=GPU,
                           ldpc_backend=ldpc_backend, estimate_stream=True)
    tb.run()
    detector, decoder = made[3], made[4]
    assert [detector.backend() == "cuda", decoder.backend() == "cuda"] == \
        [b != "cpu" and HAVE_GPU for b in backends]
    got, ok = decoded(sink, info)
    assert all(ok) and decoder.failed_codewords() == 0
    np.testing.assert_array_equal(got, want)
    assert all(b.work_failures() == 0 for b in made)


@pytest.mark.skipif(not HAVE_GPU, reason="a GPU failure needs a GPU")
def test_a_gpu_failure_mid_run_moves_the_chain_to_the_cpu_through_host_memory(
        coded, monkeypatch):
    """Every GPU block of the device-resident chain (synchroniser, FFT, estimator,
    detector, LDPC decoder) has its first GPU call fail (GPUMIMO_INJECT_GPU_FAILURE=0,
    read when the blocks make their engines): each drops or erases what it held, counted
    once, and goes on with its CPU engine, its ports still in device memory, through host
    copies (lib/block_support/host_stand_in.h). Nothing stalls; every codeword after that decodes to
    the word sent, none decodes wrongly, and the decoder's LLRs stay finite."""
    x, info = coded
    monkeypatch.setenv("GPUMIMO_INJECT_GPU_FAILURE", "0")
    tb, made, sink = chain(x, GPU, GPU, fft_backend=GPU, sync_backend=GPU, ldpc_backend=GPU,
                           estimate_stream=True)
    monkeypatch.delenv("GPUMIMO_INJECT_GPU_FAILURE")
    tb.run()
    assert [b.backend() for b in made] == ["cpu"] * 5
    assert [b.work_failures() for b in made] == [1] * 5
    rows, ok = decoded(sink, info, erasures=True)  # every other ok codeword: the word sent
    # Lost at most: the synchroniser's first call's frames, a batch of the estimator's,
    # the detector's first call's symbols, the decoder's first 4 codewords.
    assert sum(ok) >= 30 and all(ok[-20:]), ok


@pytest.mark.parametrize("backend", ["cpu", GPU])
def test_the_estimate_stream_carries_the_tags_estimates(samples, backend):
    """mimo_chanest's estimate output (core::estimate_items, one item per payload
    symbol, tapped to a CPU sink) holds at each frame's first payload symbol the H and
    noise per carrier that its mimo_chan_est tag holds without the output, bit for bit
    on the CPU (the same engine, the same frames; on the GPU within float rounding of
    two runs); connected, the tags carry neither."""
    U = gpumimo.numerology("small")["used_carriers"]
    item = gpumimo.estimate_item_bytes("small", STREAMS, ANTENNAS, NSYM)
    h_bytes = U * ANTENNAS * STREAMS * 8
    assert item * NSYM >= h_bytes + 4 * U and item % 16 == 0

    def run(with_stream):
        tb = gr.top_block()
        sync = gpumimo.mimo_ofdm_sync("small", STREAMS, MOD, NSYM, ANTENNAS, 0.0, "cpu")
        fft = make_fft("cpu")
        # Host buffers: the estimate output feeds a CPU sink.
        est = gpumimo.mimo_chanest("small", STREAMS, MOD, NSYM, ANTENNAS, "lmmse", False,
                                   backend, device_buffers=False)
        payload = blocks.vector_sink_c(U)
        for a in range(ANTENNAS):
            tb.connect(blocks.vector_source_c(samples[a].tolist()), (sync, a), (fft, a),
                       (est, a))
            tb.connect((est, a), payload if a == 0 else blocks.null_sink(8 * U))
        records = blocks.vector_sink_b(item)
        if with_stream:
            tb.connect((est, ANTENNAS), records)
        tb.run()
        tags = [t for t in payload.tags() if pmt.symbol_to_string(t.key) == "mimo_chan_est"]
        return tags, np.array(records.data(), dtype=np.uint8), est

    tags, _, est_tags = run(False)
    stream_tags, records, est = run(True)
    assert len(tags) == est.frames() == est_tags.frames() >= 55
    assert [t.offset for t in stream_tags] == [t.offset for t in tags]
    assert records.size == est.frames() * NSYM * item
    for t, st in zip(tags, stream_tags):
        assert pmt.is_null(pmt.dict_ref(st.value, pmt.intern("h"), pmt.PMT_NIL))
        r = records[t.offset * item:(t.offset + NSYM) * item]
        h = np.array(pmt.c32vector_elements(pmt.dict_ref(t.value, pmt.intern("h"), pmt.PMT_NIL)),
                     dtype=np.complex64)
        noise = np.array(pmt.f32vector_elements(
            pmt.dict_ref(t.value, pmt.intern("noise_eff"), pmt.PMT_NIL)), dtype=np.float32)
        if est.backend() == "cpu":
            np.testing.assert_array_equal(r[:h_bytes].view(np.complex64), h)
            np.testing.assert_array_equal(r[h_bytes:h_bytes + 4 * U].view(np.float32), noise)
        else:  # two runs of the GPU engine, batched as each run's calls fell
            np.testing.assert_allclose(r[:h_bytes].view(np.complex64), h, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(r[h_bytes:h_bytes + 4 * U].view(np.float32), noise,
                                       rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("estimates", ["tags", "stream"])
@pytest.mark.parametrize("backend", ["cpu", GPU])
def test_frames_split_across_detector_calls_keep_their_estimate(samples, host_chain, backend,
                                                                estimates):
    """mimo_detector's output buffer cut to about two symbols' LLRs: each call detects a
    symbol or two, so every frame (3 payload symbols) spans calls and its later symbols
    use the estimate of a record (or tag) the call before consumed (kept by the block,
    on the device where the stream lies there). The LLRs are the host chain's."""
    want, frames, symbols = host_chain
    tb, chanest, detector, sink = chain(samples, backend, backend, fft_backend=backend,
                                        sync_backend=backend,
                                        estimate_stream=estimates == "stream")
    detector.set_max_output_buffer(0, 2 * 44 * BITS)
    tb.run()
    got = np.array(sink.data(), dtype=np.float32)
    assert chanest.frames() == frames and detector.symbols() == symbols
    assert detector.erased_symbols() == 0 and got.size == want.size
    if detector.backend() == "cpu" and chanest.backend() == "cpu":
        np.testing.assert_array_equal(got, want)
    else:
        assert_llrs_close(got, want)


# Run in a child process: GNU Radio reads its performance counters' switch once.
FRAMES_A_CALL = r"""
import sys
import numpy as np
from gnuradio import blocks, gr, gpumimo
backend = sys.argv[1]
tx = gpumimo.mimo_ofdm_tx("lte20", 2, "qpsk", 2, seed=7, gap=0)
frame = tx.frame_len()
frames = 40
tb = gr.top_block()
sinks = [blocks.vector_sink_c() for _ in range(2)]
for k in range(2):
    tb.connect((tx, k), blocks.head(gr.sizeof_gr_complex, (frames + 1) * frame), sinks[k])
tb.run()
x = [s.data() for s in sinks]


def frames_a_call(block, item_size, items_a_frame):
    tb = gr.top_block()  # every source keeps GNU Radio's default output buffer
    for a in range(2):
        tb.connect(blocks.vector_source_c(x[a]), (block, a))
    for p in range(block.output_signature().max_streams()):
        tb.connect((block, p), blocks.null_sink(item_size))
    tb.run()
    assert block.frames() >= frames - 1, block.frames()
    return block.pc_nproduced_avg() / items_a_frame


sync = gpumimo.mimo_ofdm_sync("lte20", 2, "qpsk", 2, 2, 0.0, backend)
stream = gpumimo.stream_receiver("lte20", 2, "qpsk", 2, 2, gpumimo.detector_spec("mmse"),
                                 backend)
print(frames_a_call(sync, gr.sizeof_gr_complex, frame),
      frames_a_call(stream, gr.sizeof_float, stream.payload_bits()))
"""


@pytest.mark.parametrize("backend", ["cpu", GPU])
def test_receivers_take_a_batch_of_frames_a_call_from_default_source_buffers(backend):
    """A radio or file source keeps GNU Radio's default output buffer unless the user
    sets one (GRC: Advanced): it is sized from the blocks reading it, and at the
    receivers' true rate holds two lte20 frames, so that each call of the synchroniser
    and of the stream receiver carried one frame (and each GPU block after the
    synchroniser one: the chain at 0.4 of its rate, docs/performance.md). The two blocks
    ask for a buffer of a call's frames (lib/block_support/stream_buffer_sizes.h): with sources left at
    their defaults, calls average several frames (up to 8 and 16)."""
    import subprocess
    env = dict(os.environ, GR_CONF_PERFCOUNTERS_ON="True")
    result = subprocess.run([sys.executable, "-c", FRAMES_A_CALL, backend], env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    sync, stream = map(float, result.stdout.split()[-2:])
    print(f"frames a call: mimo_ofdm_sync {sync:.2f}, stream_receiver {stream:.2f}")
    assert sync >= 3 and stream >= 3


@pytest.mark.parametrize("backend", ["cpu", GPU])
def test_frames_tracked_in_time_through_the_chain_give_the_host_chains_llrs(backend):
    """lte20 frames with pilot blocks (2x2 16-QAM, 8 payload symbols, a block every 4:
    15 symbols, not whole periods of lte20's seven prefixes, so ofdm_fft gets one
    frame's pattern) through mimo_ofdm_rx's chain on backend, the estimate per payload
    symbol in the estimate stream (on the GPU device memory, a detector run a symbol,
    their channels selected in one launch a wait): the host chain's frames and LLRs."""
    frames, nsym, interval = 24, 8, 4
    x, _ = rx_samples(2, 2, "16qam", nsym, frames, snr_db=30, cfo=0.05 / 2048, delay=40,
                      taps=(0.8, 0.2), seed=SEED + 47, pilot_interval=interval, gap=0,
                      preset="lte20")
    got = {}
    for b in ("cpu", backend):
        tb = gr.top_block()
        rx = gpumimo.mimo_ofdm_rx("lte20", 2, "16qam", nsym, 2, "mmse", backend=b,
                                  fft_backend=b, sync_backend=b, pilot_interval=interval)
        sink = blocks.vector_sink_f()
        for a in range(2):
            tb.connect(blocks.vector_source_c(x[a].tolist()), (rx, a))
        tb.connect(rx, sink)
        tb.run()
        assert rx.detector.backend() == ("cuda" if b != "cpu" and HAVE_GPU else "cpu")
        assert rx.chanest.frames() >= frames - 1 and rx.chanest.dropped_frames() == 0
        assert rx.detector.erased_symbols() == 0 and rx.fft.dropped_symbols() == 0
        got[b] = np.array(sink.data(), dtype=np.float32)
    assert got[backend].size == got["cpu"].size > 0 and np.all(np.isfinite(got[backend]))
    want = got["cpu"]
    scale = np.maximum(1.0, np.abs(want).reshape(-1, 8).max(axis=1)).repeat(8)
    assert np.all(np.abs(got[backend] - want) <= 1e-3 * scale), \
        np.max(np.abs(got[backend] - want) / scale)
