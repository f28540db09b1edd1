#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The live APSM chain (docs/apsm.md, "A live chain"): apsm_frame_demux against a numpy
restatement of its layout and phase corrections on fresh random frames, with tags,
frames cut short and symbols before a tag; its training tags (the first frame, every
n-th, on a message); and the whole simulated chain, mimo_ofdm_tx's users through the
channel simulator into apsm_ofdm_rx and llr_sink, every frame found and decided, next
to the MMSE chain on the same samples. The CPU path everywhere; the GPU detector
against it where a GPU is usable (GPUMIMO_REQUIRE_GPU=1 makes its absence a
failure)."""

import os
import sys

import numpy as np
import pmt
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import compile_flowgraph, seeded_rng  # noqa: E402

from gnuradio import blocks, gr, gpumimo  # noqa: E402

HAVE_GPU = gpumimo.cuda_device_count()[0] > 0
PRESET, MOD = "small", "16qam"


def test_gpu_presence_is_as_required():
    if os.environ.get("GPUMIMO_REQUIRE_GPU") == "1":
        assert HAVE_GPU, gpumimo.cuda_device_count()[1]


class SplitReference:
    """numpy restatement of core::apsm_frame_splitter: a frame of every antenna
    ([antennas, symbols, used carriers]) into [antennas, REs], training then data, the
    timing slope, the frame's phase against the reference frame and each payload
    symbol's phase against its pilots taken off."""

    def __init__(self, users, payload_symbols):
        num = gpumimo.numerology(PRESET)
        self.users, self.nsym = users, payload_symbols
        self.used = num["used_carriers"]
        self.bins = np.array(num["carriers"]) - num["fft_len"] // 2
        self.track = np.array(num["tracking_carriers"])
        self.data = np.array(num["data_carriers"])
        sent = gpumimo.apsm_frame_training(PRESET, users, MOD, payload_symbols)
        self.sent = sent.reshape(users, users, self.used).astype(np.complex128)  # [k, s, i]
        self.reference = None

    def split(self, frames, reference):
        K, bins = self.users, self.bins
        frames = frames.astype(np.complex128)
        h = np.einsum("asi,ksi->aki", frames[:, 1:1 + K, :], self.sent.conj())
        near = np.diff(bins) == 1  # neighbours, not across DC
        slope = np.angle(np.sum(h[:, :, 1:][:, :, near] * h[:, :, :-1][:, :, near].conj()))
        h = h * np.exp(-1j * slope * bins)
        if reference or self.reference is None:
            self.reference = h
        phase = np.angle(np.sum(h * self.reference.conj()))
        untwist = np.exp(-1j * (slope * bins + phase))
        # What the users send on the tracking carriers: their pilot values, which pilot
        # symbol 0 carries uncovered.
        predicted = np.einsum("aki,ki->ai", h[:, :, self.track], self.sent[:, 0, self.track])
        out = [list(np.concatenate([frames[a, 1 + s] * untwist for s in range(K)]))
               for a in range(frames.shape[0])]
        for s in range(self.nsym):
            y = frames[:, 1 + K + s, :] * np.exp(-1j * slope * bins)
            drift = np.angle(np.sum(y[:, self.track] * predicted.conj()))
            for a in range(frames.shape[0]):
                out[a].extend(frames[a, 1 + K + s, self.data] * untwist[self.data] *
                              np.exp(-1j * drift))
        return np.array(out)


def frame_tag(offset, number):
    return gr.tag_utils.python_to_tag((offset, pmt.intern("frame_start"),
                                       pmt.from_long(number), pmt.intern("test")))


def test_demux_cuts_whole_frames_on_their_tags_as_the_reference():
    """Random symbols in frames: 3 symbols before the first tag (dropped), frames 0
    and 1 tagged, frame 2 cut short by frame 3's tag (dropped), frame 4 untagged back to
    back after frame 3; what comes out equals the numpy restatement frame by frame
    (frame 0 the reference), with one training tag, at frame 0's first RE."""
    rng = seeded_rng(2801)
    users, antennas, nsym = 3, 4, 2
    num = gpumimo.numerology(PRESET)
    used = num["used_carriers"]
    S = 1 + users + nsym
    frames = [(rng.standard_normal((antennas, S, used)) +
               1j * rng.standard_normal((antennas, S, used))).astype(np.complex64)
              for _ in range(5)]
    junk = np.zeros((antennas, 3, used), np.complex64)
    cut = frames[2][:, :S - 2]
    stream = np.concatenate([junk, frames[0], frames[1], cut, frames[3], frames[4]], axis=1)
    starts = [3, 3 + S, 3 + 2 * S, 3 + 3 * S - 2]
    tb = gr.top_block()
    demux = gpumimo.apsm_frame_demux(PRESET, users, MOD, nsym, antennas)
    sinks = []
    for a in range(antennas):
        tags = [frame_tag(o, n) for n, o in enumerate(starts)] if a == 0 else []
        src = blocks.vector_source_c(stream[a].ravel().tolist(), False, used, tags)
        sinks.append(blocks.vector_sink_c())
        tb.connect(src, (demux, a), sinks[-1])
    tb.run()
    ref = SplitReference(users, nsym)
    want = np.concatenate([ref.split(frames[k], k == 0) for k in (0, 1, 3, 4)], axis=1)
    got = np.array([s.data() for s in sinks])
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
    assert demux.frames() == 4 and demux.dropped_symbols() == 3 + S - 2
    assert demux.training_len() == users * used
    assert demux.data_len() == nsym * len(num["data_carriers"])
    tags = sinks[0].tags()
    assert [(t.offset, pmt.symbol_to_string(t.key)) for t in tags] == [(0, "apsm_train")]


def test_training_tags_every_nth_frame_and_on_a_message():
    users, antennas, nsym = 2, 2, 1
    used = gpumimo.numerology(PRESET)["used_carriers"]
    S = 1 + users + nsym
    rng = seeded_rng(2802)
    n_frames = 7
    x = (rng.standard_normal((antennas, n_frames * S * used)) + 1j).astype(np.complex64)
    for train_every, want in ((0, [0]), (1, list(range(7))), (3, [0, 3, 6])):
        tb = gr.top_block()
        demux = gpumimo.apsm_frame_demux(PRESET, users, MOD, nsym, antennas, train_every)
        sink = blocks.vector_sink_c()
        for a in range(antennas):
            src = blocks.vector_source_c(x[a].tolist(), False, used)
            tb.connect(src, (demux, a))
            tb.connect((demux, a), sink if a == 0 else blocks.null_sink(gr.sizeof_gr_complex))
        tb.run()
        R = demux.training_len() + demux.data_len()
        assert demux.frames() == n_frames and demux.dropped_symbols() == 0  # untagged: back to back
        assert [t.offset // R for t in sink.tags()] == want, train_every
        assert all(t.offset % R == 0 for t in sink.tags())
        assert [pmt.to_uint64(t.value) for t in sink.tags()] == want
        assert demux.trainings_tagged() == len(want)
    # A message on "train": the next frame is tagged (posted before the flowgraph runs,
    # so the frame after the first).
    tb = gr.top_block()
    demux = gpumimo.apsm_frame_demux(PRESET, users, MOD, nsym, antennas)
    sink = blocks.vector_sink_c()
    for a in range(antennas):
        tb.connect(blocks.vector_source_c(x[a].tolist(), False, used), (demux, a))
        tb.connect((demux, a), sink if a == 0 else blocks.null_sink(gr.sizeof_gr_complex))
    demux.to_basic_block()._post(pmt.intern("train"), pmt.PMT_T)
    tb.run()
    assert demux.trainings_tagged() == 2
    assert demux.frames() == n_frames


def test_a_frame_with_nan_pilots_leaves_as_nan_and_its_training_moves_on():
    """NaN in frame 0's pilot symbols: its REs leave as NaN (the detector erases them),
    counted; the training due on it is tagged on frame 1 instead; frame 1 onwards equal
    the reference with frame 1 as the reference frame."""
    rng = seeded_rng(2804)
    users, antennas, nsym = 2, 3, 2
    used = gpumimo.numerology(PRESET)["used_carriers"]
    S = 1 + users + nsym
    frames = [(rng.standard_normal((antennas, S, used)) +
               1j * rng.standard_normal((antennas, S, used))).astype(np.complex64)
              for _ in range(3)]
    frames[0][1, 2, 7] = np.nan
    stream = np.concatenate(frames, axis=1)
    tb = gr.top_block()
    demux = gpumimo.apsm_frame_demux(PRESET, users, MOD, nsym, antennas)
    sinks = []
    for a in range(antennas):
        src = blocks.vector_source_c(stream[a].ravel().tolist(), False, used)
        sinks.append(blocks.vector_sink_c())
        tb.connect(src, (demux, a), sinks[-1])
    tb.run()
    R = demux.training_len() + demux.data_len()
    got = np.array([s.data() for s in sinks])
    assert demux.frames() == 3 and demux.damaged_frames() == 1
    assert np.all(np.isnan(got[:, :R]))
    ref = SplitReference(users, nsym)
    want = np.concatenate([ref.split(frames[1], True), ref.split(frames[2], False)], axis=1)
    np.testing.assert_allclose(got[:, R:], want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
    assert [(t.offset, pmt.to_uint64(t.value)) for t in sinks[0].tags()] == [(R, 1)]
    assert demux.trainings_tagged() == 1


def test_the_grc_block_makes_the_block(tmp_path):
    """The APSM Frame Demux as GNU Radio Companion builds it (its .block.yml compiled by
    grcc in a small flowgraph, no example uses it alone): frames of vectors in, each
    frame's training and data REs out, a training tag on frame 0."""
    import yaml
    users, nsym = 2, 4
    used = gpumimo.numerology(PRESET)["used_carriers"]
    frames = 3
    state = {"coordinate": [8, 8], "rotation": 0, "state": "enabled"}
    flowgraph = {
        "options": {"parameters": {"author": "qa", "category": "[GRC Hier Blocks]",
                                   "generate_options": "no_gui", "id": "demux_grc",
                                   "output_language": "python", "run": "True",
                                   "run_options": "run", "title": "demux"}, "states": state},
        "blocks": [
            {"name": "src", "id": "blocks_vector_source_x", "states": state,
             "parameters": {"type": "complex", "vlen": str(used), "repeat": "False",
                            "tags": "[]",
                            "vector": f"[1 + 1j] * {used * (1 + users + nsym) * frames}"}},
            {"name": "demux", "id": "gpumimo_apsm_frame_demux", "states": state,
             "parameters": {"preset": PRESET, "users": str(users), "modulation": MOD,
                            "payload_symbols": str(nsym), "antennas": "1",
                            "train_every": "0", "training_tag": "'apsm_train'"}},
            {"name": "sink", "id": "blocks_vector_sink_x", "states": state,
             "parameters": {"type": "complex", "vlen": "1", "reserve_items": "1024"}},
        ],
        "connections": [["src", "0", "demux", "0"], ["demux", "0", "sink", "0"]],
        "metadata": {"file_format": 1},
    }
    grc = tmp_path / "demux_grc.grc"
    grc.write_text(yaml.safe_dump(flowgraph, sort_keys=False))
    tb = compile_flowgraph(grc, tmp_path).demux_grc()
    tb.run()
    R = tb.demux.training_len() + tb.demux.data_len()
    assert R == users * used + nsym * len(gpumimo.numerology(PRESET)["data_carriers"])
    assert tb.demux.frames() == frames and len(tb.sink.data()) == frames * R
    assert [t.offset for t in tb.sink.tags()] == [0]


def test_bad_parameters_are_refused():
    for args in [("nope", 2, MOD, 1, 2), (PRESET, 0, MOD, 1, 2), (PRESET, 9, MOD, 1, 2),
                 (PRESET, 2, "17qam", 1, 2), (PRESET, 2, MOD, 0, 2), (PRESET, 2, MOD, 1, 0)]:
        with pytest.raises((ValueError, RuntimeError)):
            gpumimo.apsm_frame_demux(*args)
    with pytest.raises(ValueError):
        gpumimo.apsm_frame_demux(PRESET, 2, MOD, 1, 2, -1)


def test_frame_info_names_the_modulation_the_detector_decides():
    assert gpumimo.frame_info(PRESET, 2, "pi/2-bpsk", 4)["detected_modulation"] == "bpsk"
    for mod in ("bpsk", "qpsk", "16qam", "1024qam"):
        assert gpumimo.frame_info(PRESET, 2, mod, 4)["detected_modulation"] == mod


def chain(modulation, snr_db, cfo, frames, backend="cpu", users=4, antennas=8, nsym=4, **apsm):
    """The small preset's users through the channel simulator (flat, the carrier offset)
    into the APSM chain and, beside it, the MMSE chain (gpumimo.apsm_beside_mmse); both
    scored by llr_sink against the PRBS."""
    return gpumimo.apsm_beside_mmse(PRESET, users, modulation, nsym, antennas, snr_db, frames,
                                    cfo=cfo, backend=backend, **apsm)


@pytest.mark.parametrize("modulation,snr_db,cfo", [("qpsk", 25, 0.0), ("16qam", 30, 1e-3),
                                                    ("16qam", 18, 0.0), ("pi/2-bpsk", 25, 0.0)])
def test_the_simulated_chain_finds_and_decides_every_frame(modulation, snr_db, cfo):
    """Four users, eight antennas: every frame found and scored, no partial frame, one
    training; error-free at high SNR (a carrier offset of 1e-3 cycles a sample too:
    the frame's phase and the symbols' drift are taken off; pi/2-BPSK detected as BPSK,
    frame_info's detected_modulation, after the demux's turn back), and at 18 dB 16-QAM
    within twice the MMSE chain's bit errors on the same samples (the MMSE chain
    estimates every carrier of every frame; APSM fits one filter on the first frame's
    192 pilot REs: 2.3e-4 against 1.7e-4 seen at 20 dB)."""
    frames = 40
    apsm, sink, mmse = chain(modulation, snr_db, cfo, frames)
    print(f"{modulation} {snr_db} dB: APSM BER {sink.ber():.2e}, MMSE {mmse.ber():.2e}")
    assert sink.frames() == frames and sink.partial_frames() == 0
    assert sink.non_finite_llrs() == 0
    assert apsm.demux.frames() == frames and apsm.demux.dropped_symbols() == 0
    assert apsm.detector.trainings() == 1 and apsm.detector.failed_trainings() == 0
    assert sink.bits() == frames * sink.frame_bits()
    if snr_db >= 25:
        assert sink.bit_errors() == 0
    else:
        assert 0 < mmse.bit_errors() and sink.bit_errors() <= 2 * mmse.bit_errors() + 10


def test_a_training_on_a_subset_of_the_pilots_still_decides_every_frame():
    """max_training: the detector trains on that many of the frame's pilots, evenly
    spread (core::training_subset): half of the small frame's 192 (4 users, 8 antennas,
    16-QAM at 25 dB) still decides every bit of every frame; the GPU's limit (4096)
    is what an lte20 frame of 6 users (7200 pilots) takes it down to. Negative values
    are refused."""
    frames = 20
    apsm, sink, mmse = chain("16qam", 25, 0.0, frames, max_training=96)
    assert apsm.detector.training_len() == 192 and apsm.detector.training_used() == 96
    assert apsm.detector.trainings() == 1 and apsm.detector.failed_trainings() == 0
    assert sink.frames() == frames and sink.bit_errors() == 0
    full = gpumimo.apsm_detector(4, 2, "qpsk", [1 + 0j] * 20)
    assert full.training_used() == full.training_len() == 10
    assert gpumimo.apsm_detector(4, 2, "qpsk", [1 + 0j] * 20, max_training=50).training_used() == 10
    with pytest.raises(ValueError, match="max_training"):
        gpumimo.apsm_detector(4, 2, "qpsk", [1 + 0j] * 20, max_training=-1)


@pytest.mark.skipif(not HAVE_GPU, reason="no usable GPU")
def test_an_lte20_frame_of_six_users_trains_on_the_gpu_with_max_training():
    """The paper's scale in users and antennas on lte20: 6 users, 16 antennas, 7200
    pilot REs a frame, more than the GPU trainer takes; with max_training=4096 the
    detector stays on the GPU (not refused to the CPU) and decides 16-QAM at 18 dB
    about as the MMSE chain does (CPU, 4096 pilots: 1.76e-4 against 1.72e-4)."""
    frames = 3
    apsm, sink, mmse = gpumimo.apsm_beside_mmse("lte20", 6, "16qam", 4, 16, 18.0, frames + 1,
                                                backend="cuda", max_training=4096)
    print(f"lte20 6x16 on {apsm.detector.backend()}: BER {sink.ber():.2e} (MMSE "
          f"{mmse.ber():.2e}), training "
          f"{apsm.detector.last_training_ms():.1f} ms on {apsm.detector.training_used()} pilots")
    assert apsm.detector.backend() == "cuda"
    assert apsm.detector.training_len() == 7200 and apsm.detector.training_used() == 4096
    assert apsm.detector.trainings() == 1 and apsm.detector.failed_trainings() == 0
    assert sink.frames() >= frames and sink.ber() < 2e-3


@pytest.mark.skipif(not HAVE_GPU, reason="no usable GPU")
def test_the_gpu_detector_decides_as_the_cpu():
    _, cpu, _ = chain("16qam", 18, 0.0, 20, backend="cpu")
    apsm, gpu, _ = chain("16qam", 18, 0.0, 20, backend="cuda")
    assert apsm.detector.backend() == "cuda"
    assert gpu.frames() == cpu.frames() == 20
    # float training on the GPU: a bit at a decision boundary may go the other way
    assert abs(gpu.bit_errors() - cpu.bit_errors()) <= max(4, cpu.bit_errors() // 10)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
