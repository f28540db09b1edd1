#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The APSM detector block in flowgraphs, on fresh random multiuser mixtures: outputs
after a training tag equal the core reference (gpumimo.apsm_reference) trained on the
same pilots, and decide the sent symbols; zeros before the first training; a second
tag retrains; a message starts a training; NaN vectors are erased and counted; a bad
training set keeps the previous filters; pilots from a file; bad parameters refused;
the over-the-air recording. The CPU path everywhere; the GPU path against it where a
GPU is usable (GPUMIMO_REQUIRE_GPU=1 makes its absence a failure)."""

import os
import pathlib
import sys

import numpy as np
import pmt
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import seeded_rng, ts38211_points  # noqa: E402

from gnuradio import blocks, gr, gpumimo  # noqa: E402

HAVE_GPU = gpumimo.cuda_device_count()[0] > 0
BACKENDS = ["cpu", "cuda"] if HAVE_GPU else ["cpu"]
BITS = {"bpsk": 1, "qpsk": 2, "16qam": 4}
TAG = "apsm_train"


def test_gpu_presence_is_as_required():
    if os.environ.get("GPUMIMO_REQUIRE_GPU") == "1":
        assert HAVE_GPU, gpumimo.cuda_device_count()[1]


def mixture(rng, antennas, users, n, modulation, noise=0.05):
    """rx [n, antennas] = H s + noise over a random channel; sent [users, n] on the
    unit-energy constellation; numpy only."""
    points, _ = ts38211_points(BITS[modulation])
    sent = points[rng.integers(0, len(points), size=(users, n))]
    h = rng.standard_normal((antennas, users)) + 1j * rng.standard_normal((antennas, users))
    rx = (h @ sent).T
    rx += noise * (rng.standard_normal(rx.shape) + 1j * rng.standard_normal(rx.shape))
    return rx.astype(np.complex64), sent.astype(np.complex64)


def nearest(soft, modulation):
    """The index of the nearest constellation point (compare these, not floats)."""
    points, _ = ts38211_points(BITS[modulation])
    return np.argmin(np.abs(soft[..., None] - points), axis=-1)


def run_block(rx, users, modulation, pilots, tags=(), messages=0, **kw):
    """rx [N, antennas] through the block (training tags at the given offsets of input
    0, `messages` train messages posted before the start): (soft [users, N],
    llr [users, N, bits], block)."""
    n, antennas = rx.shape
    tb = gr.top_block()
    det = gpumimo.apsm_detector(antennas, users, modulation,
                                pilots=list(np.asarray(pilots).ravel()), **kw)
    for m in range(antennas):
        tag_list = [gr.tag_utils.python_to_tag((int(o), pmt.intern(TAG), pmt.PMT_T, pmt.PMT_F))
                    for o in tags] if m == 0 else []
        tb.connect(blocks.vector_source_c(rx[:, m].tolist(), False, 1, tag_list), (det, m))
    bits = BITS[modulation]
    soft_sinks = [blocks.vector_sink_c() for _ in range(users)]
    llr_sinks = [blocks.vector_sink_f(bits) for _ in range(users)]
    for u in range(users):
        tb.connect((det, u), soft_sinks[u])
        tb.connect((det, users + u), llr_sinks[u])
    for _ in range(messages):
        det._post(pmt.intern("train"), pmt.PMT_T)
    tb.run()
    soft = np.array([s.data() for s in soft_sinks], dtype=np.complex64)
    llr = np.array([s.data() for s in llr_sinks], dtype=np.float32).reshape(users, n, bits)
    return soft, llr, det


def reference(rx_train, sent_train, rx, modulation):
    soft, llr, noise = gpumimo.apsm_reference(rx_train, sent_train, rx, modulation)
    return soft, llr.reshape(soft.shape[0], soft.shape[1], -1), noise


def test_outputs_after_the_tag_equal_the_reference_and_decide_the_sent_symbols():
    rng = seeded_rng(901)
    antennas, users, pre, L, data = 6, 3, 37, 150, 700
    rx, sent = mixture(rng, antennas, users, pre + L + data, "16qam")
    pilots = sent[:, pre:pre + L]
    soft, llr, det = run_block(rx, users, "16qam", pilots, tags=[pre], backend="cpu")
    assert soft.shape == (users, pre + L + data)
    # Nothing learned before the pilots have all arrived: erasures.
    assert np.all(soft[:, :pre + L] == 0) and np.all(llr[:, :pre + L] == 0)
    assert det.untrained() == pre + L and det.trainings() == 1 and det.detected() == data
    want_soft, want_llr, noise = reference(rx[pre:pre + L], pilots, rx[pre + L:], "16qam")
    np.testing.assert_array_equal(soft[:, pre + L:], want_soft)
    # The block's LLRs one dimension at a time (core::soft_llr_mapper), the reference's by
    # exhaustive search: equal to float rounding.
    np.testing.assert_allclose(llr[:, pre + L:], want_llr, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(det.noise_variances(), noise, rtol=1e-12)
    # Independent of the reference: at this SNR every data symbol is decided right and
    # every LLR has the sign of its bit (positive: 1).
    assert np.array_equal(nearest(soft[:, pre + L:], "16qam"), nearest(sent[:, pre + L:], "16qam"))
    _, labels = ts38211_points(4)
    assert np.array_equal(llr[:, pre + L:] > 0, labels[nearest(sent[:, pre + L:], "16qam")] == 1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_tracking_follows_a_drifting_channel_as_the_reference(backend):
    """track=True: after the training the filters follow the data symbols (apsm_track,
    on the CPU reference whatever the backend), in the block's many calls exactly as the
    reference in one call; on a channel whose phase drifts by 2e-3 rad a symbol after
    the training the tracked block decides what the untracked one loses."""
    rng = seeded_rng(905)
    antennas, users, L, data = 4, 2, 200, 1500
    rx, sent = mixture(rng, antennas, users, L + data, "qpsk")
    rx[L:] *= np.exp(1j * 2e-3 * np.arange(data))[:, None].astype(np.complex64)
    pilots = sent[:, :L]
    soft, llr, det = run_block(rx, users, "qpsk", pilots, tags=[0], backend=backend,
                               track=True)
    want_soft, want_llr, _ = gpumimo.apsm_reference(rx[:L], pilots, rx[L:], "qpsk", track=True)
    if det.backend() == "cpu":  # training on the GPU rounds differently: decisions only
        np.testing.assert_array_equal(soft[:, L:], want_soft)
    assert np.array_equal(nearest(soft[:, L:], "qpsk"), nearest(want_soft, "qpsk"))
    still, _, _ = run_block(rx, users, "qpsk", pilots, tags=[0], backend=backend)
    wrong = lambda s: int(np.sum(nearest(s[:, L:], "qpsk") != nearest(sent[:, L:], "qpsk")))
    assert wrong(still) > data // 4
    assert wrong(soft) <= data // 100
    with pytest.raises(ValueError, match="linear_weight"):
        gpumimo.apsm_detector(antennas, users, "qpsk", pilots=list(pilots.ravel()),
                              linear_weight=0.0, track=True)


def test_a_second_tag_retrains_on_a_new_channel():
    rng = seeded_rng(902)
    antennas, users, L, data = 8, 2, 120, 400
    points, _ = ts38211_points(2)

    def burst(h, sent):
        return (h @ sent).T + 0.05 * (rng.standard_normal((L + data, antennas))
                                      + 1j * rng.standard_normal((L + data, antennas)))

    h1 = rng.standard_normal((antennas, users)) + 1j * rng.standard_normal((antennas, users))
    sent1 = points[rng.integers(0, 4, size=(users, L + data))]
    rx1 = burst(h1, sent1)
    pilots = sent1[:, :L]
    # A second burst: the same pilots, new data, over another channel: the first with
    # its users swapped, so that the first channel's filters would give each user the
    # other's symbols (an independent draw may leave them right, as one seed did).
    sent2 = np.concatenate([pilots, points[rng.integers(0, 4, size=(users, data))]], axis=1)
    rx2 = burst(h1[:, ::-1], sent2)
    rx = np.concatenate([rx1, rx2]).astype(np.complex64)
    soft, _, det = run_block(rx, users, "qpsk", pilots, tags=[0, L + data], backend="cpu")
    assert det.trainings() == 2
    second = slice(L + data + L, None)
    want, _, _ = reference(rx[L + data:L + data + L], pilots, rx[second], "qpsk")
    np.testing.assert_array_equal(soft[:, second], want)
    assert np.array_equal(nearest(soft[:, second], "qpsk"), nearest(sent2[:, L:], "qpsk"))
    # Without the second training the first channel's filters would be wrong there.
    stale, _, _ = reference(rx[:L], pilots, rx[second], "qpsk")
    assert not np.array_equal(nearest(stale, "qpsk"), nearest(sent2[:, L:], "qpsk"))


def test_a_message_starts_a_training_at_the_next_vector():
    rng = seeded_rng(904)
    rx, sent = mixture(rng, 4, 2, 300, "qpsk")
    L = 100
    soft, _, det = run_block(rx, 2, "qpsk", sent[:, :L], messages=1, backend="cpu")
    assert det.trainings() == 1 and det.untrained() == L
    want, _, _ = reference(rx[:L], sent[:, :L], rx[L:], "qpsk")
    np.testing.assert_array_equal(soft[:, L:], want)


def test_nan_vectors_give_erasures_and_the_rest_is_untouched():
    rng = seeded_rng(905)
    rx, sent = mixture(rng, 4, 2, 400, "16qam")
    L = 120
    bad = [L + 3, L + 50, 399]
    rx[bad[0], 1] = np.nan
    rx[bad[1], 0] = np.inf
    rx[bad[2], 3] = complex(0, np.nan)
    soft, llr, det = run_block(rx, 2, "16qam", sent[:, :L], tags=[0], backend="cpu")
    assert np.all(np.isfinite(soft)) and np.all(np.isfinite(llr))
    assert np.all(soft[:, bad] == 0) and np.all(llr[:, bad] == 0)
    assert det.erased() == len(bad)
    good = np.setdiff1d(np.arange(L, 400), bad)
    want, want_llr, _ = reference(rx[:L], sent[:, :L], rx[good], "16qam")
    np.testing.assert_array_equal(soft[:, good], want)
    np.testing.assert_allclose(llr[:, good], want_llr, rtol=1e-6, atol=1e-6)


def test_a_bad_training_set_is_refused_and_the_previous_filters_stay():
    rng = seeded_rng(906)
    rx, sent = mixture(rng, 4, 2, 500, "qpsk")
    L = 100
    rx[250, 2] = np.nan  # inside the second training's pilots
    soft, _, det = run_block(rx, 2, "qpsk", sent[:, :L], tags=[0, 200], backend="cpu")
    assert det.trainings() == 1 and det.failed_trainings() == 1
    after = np.arange(300, 500)
    want, _, _ = reference(rx[:L], sent[:, :L], rx[after], "qpsk")
    np.testing.assert_array_equal(soft[:, after], want)


def test_pilots_from_a_file_equal_pilots_as_a_parameter(tmp_path):
    rng = seeded_rng(907)
    rx, sent = mixture(rng, 4, 2, 300, "qpsk")
    L = 90
    path = tmp_path / "pilots.c64"
    sent[:, :L].astype(np.complex64).tofile(path)
    a, _, _ = run_block(rx, 2, "qpsk", sent[:, :L], tags=[0], backend="cpu")
    b, _, det = run_block(rx, 2, "qpsk", [], tags=[0], backend="cpu", pilot_file=str(path))
    assert det.training_len() == L
    np.testing.assert_array_equal(a, b)


def test_bpsk_users_are_detected():
    """Three BPSK users (TS 38.211's diagonal points) on 4 antennas: the block's soft
    symbols decide every sent symbol after training, its LLRs' signs give the bits."""
    rng = seeded_rng(1802)
    users, n, train = 3, 600, 150
    rx, sent = mixture(rng, 4, users, n, "bpsk")
    soft, llr, det = run_block(rx, users, "bpsk", sent[:, :train], tags=[0], backend="cpu")
    assert det.trainings() == 1 and llr.shape == (users, n, 1)
    np.testing.assert_array_equal(nearest(soft[:, train:], "bpsk"), nearest(sent[:, train:], "bpsk"))
    bits = (sent[:, train:].real < 0).astype(np.uint8)  # b = 1 on -(1+j)/sqrt(2)
    np.testing.assert_array_equal((llr[:, train:, 0] > 0).astype(np.uint8), bits)


def test_an_antenna_subset_detects_as_a_block_given_those_ports_alone():
    """antenna_subset=[3, 0, 5] on 6 inputs: the same soft symbols and LLRs as a 3-input
    block fed ports 3, 0 and 5 (the others read and dropped); bad subsets refused."""
    rng = seeded_rng(1801)
    users, n, train = 2, 500, 120
    rx, sent = mixture(rng, 6, users, n, "qpsk")
    pilots = sent[:, :train]
    subset = [3, 0, 5]
    soft, llr, det = run_block(rx, users, "qpsk", pilots, tags=[0], backend="cpu",
                               antenna_subset=subset)
    want_soft, want_llr, _ = run_block(rx[:, subset], users, "qpsk", pilots, tags=[0],
                                       backend="cpu")
    assert det.trainings() == 1
    np.testing.assert_array_equal(soft, want_soft)
    np.testing.assert_array_equal(llr, want_llr)
    assert np.mean(nearest(soft[:, train:], "qpsk") == nearest(sent[:, train:], "qpsk")) > 0.95
    for bad in ([6], [-1], [1, 1]):
        with pytest.raises(ValueError, match="antenna_subset"):
            gpumimo.apsm_detector(6, users, "qpsk", pilots=list(pilots.ravel()),
                                  antenna_subset=bad)


def test_bad_parameters_are_refused(tmp_path):
    pilots = [0.7 + 0.7j] * 20
    with pytest.raises(ValueError, match="pilot"):
        gpumimo.apsm_detector(4, 2, "qpsk")  # no pilots
    with pytest.raises(ValueError, match="pi/2-bpsk"):
        gpumimo.apsm_detector(4, 2, "pi/2-bpsk", pilots=pilots)
    with pytest.raises(ValueError, match="split"):
        gpumimo.apsm_detector(4, 3, "qpsk", pilots=pilots)
    with pytest.raises(ValueError, match="expected"):
        gpumimo.apsm_detector(4, 2, "qpsk", pilots=pilots, training_len=7)
    with pytest.raises(ValueError, match="not both"):
        gpumimo.apsm_detector(4, 2, "qpsk", pilots=pilots, pilot_file="x")
    with pytest.raises(ValueError, match="cannot open"):
        gpumimo.apsm_detector(4, 2, "qpsk", pilot_file=str(tmp_path / "missing"))
    odd = tmp_path / "odd.c64"
    odd.write_bytes(b"\0" * 12)
    with pytest.raises(ValueError, match="whole number"):
        gpumimo.apsm_detector(4, 2, "qpsk", pilot_file=str(odd))
    with pytest.raises(ValueError, match="not finite"):
        gpumimo.apsm_detector(4, 2, "qpsk", pilots=[complex(np.nan, 0)] * 20)
    with pytest.raises(ValueError):
        gpumimo.apsm_detector(4, 2, "8psk", pilots=pilots)
    with pytest.raises(ValueError, match="backend"):
        gpumimo.apsm_detector(4, 2, "qpsk", pilots=pilots, backend="opencl")
    with pytest.raises(ValueError, match="window"):
        gpumimo.apsm_detector(4, 2, "qpsk", pilots=pilots, window=0)


@pytest.mark.skipif(not HAVE_GPU, reason="no usable CUDA device")
def test_gpu_equals_cpu():
    rng = seeded_rng(908)
    antennas, users, L, data = 16, 6, 300, 5000  # more than one detection chunk
    rx, sent = mixture(rng, antennas, users, L + data, "16qam", noise=0.1)
    cpu, cpu_llr, _ = run_block(rx, users, "16qam", sent[:, :L], tags=[0], backend="cpu")
    gpu, gpu_llr, det = run_block(rx, users, "16qam", sent[:, :L], tags=[0], backend="cuda")
    assert det.backend() == "cuda" and det.trainings() == 1
    # Float training and detection against double: the GPU tests bound the difference
    # (tests/apsm/test_gpu_apsm.cc); here, far from decision boundaries, it decides alike.
    np.testing.assert_allclose(gpu[:, L:], cpu[:, L:], atol=2e-3)
    assert np.array_equal(nearest(gpu[:, L:], "16qam"), nearest(cpu[:, L:], "16qam"))
    assert np.array_equal(nearest(gpu[:, L:], "16qam"), nearest(sent[:, L:], "16qam"))
    assert np.array_equal(gpu_llr[:, L:] > 0, cpu_llr[:, L:] > 0)


def ota_dir():
    env = os.environ.get("GPUMIMO_APSM_OTA_DIR")
    if env:
        return pathlib.Path(env)
    # The recordings the repository ships.
    return pathlib.Path(__file__).resolve().parents[2] / "examples" / "recordings" / "apsm-ota"


@pytest.mark.parametrize("backend", ["cpu", "cuda"])
def test_the_over_the_air_recording(backend):
    """The 16-QAM time recording replayed through the block: the pilots are its training
    symbols (tag at 0), its data symbols detected with the reference's error count."""
    if backend == "cuda" and not HAVE_GPU:
        pytest.skip("no usable CUDA device")
    d = ota_dir()
    rx_file = d / "rx" / "time" / "rxData_QAM16_alltx_converted.bin"
    tx_file = d / "tx" / "NOMA_signals_qam16_complex.bin"
    if not rx_file.exists():
        if os.environ.get("GPUMIMO_ALLOW_MISSING_DATA") == "1":
            pytest.skip(f"no recordings at {d}")
        pytest.fail(f"the recordings are missing at {d} (GPUMIMO_APSM_OTA_DIR)")
    rec = gpumimo.load_apsm_recording(str(rx_file), str(tx_file))
    mod, users = rec["modulation"], rec["sent_training"].shape[0]
    L = rec["rx_training"].shape[0]
    rx = np.concatenate([rec["rx_training"], rec["rx_data"]])
    soft, _, det = run_block(rx, users, mod, rec["sent_training"], tags=[0], backend=backend)
    assert det.backend() == backend
    want, _, _ = reference(rec["rx_training"], rec["sent_training"], rec["rx_data"], mod)
    sent = nearest(rec["sent_data"], mod)
    errors = (nearest(soft[:, L:], mod) != sent).sum(axis=1)
    want_errors = (nearest(want, mod) != sent).sum(axis=1)
    print("symbol errors per user:", errors.tolist(), "reference:", want_errors.tolist())
    if backend == "cpu":
        assert np.array_equal(errors, want_errors)
    else:  # float training: only symbols at a decision boundary may differ (2 of 3,840)
        assert np.all(np.abs(errors - want_errors) <= 2)
    assert np.all(errors <= 0.01 * rec["rx_data"].shape[0] + 2)


def test_more_users_than_the_gpu_takes_run_on_the_cpu():
    """Nine users exceed the GPU path (at most 8): auto runs on the CPU (with a logged
    reason) and still detects; cuda refuses where a GPU exists."""
    rng = seeded_rng(909)
    rx, sent = mixture(rng, 12, 9, 260, "qpsk", noise=0.02)
    L = 160
    soft, _, det = run_block(rx, 9, "qpsk", sent[:, :L], tags=[0], backend="auto")
    assert det.backend() == "cpu" and det.trainings() == 1
    assert np.array_equal(nearest(soft[:, L:], "qpsk"), nearest(sent[:, L:], "qpsk"))
    if HAVE_GPU:
        with pytest.raises(RuntimeError, match="at most 8 users"):
            gpumimo.apsm_detector(12, 9, "qpsk", pilots=list(sent[:, :L].ravel()),
                                  backend="cuda")


def test_recordings_and_pilot_files_must_be_regular_files(tmp_path):
    """A device, a FIFO or a folder given as a recording or a pilot file is refused at
    once, naming it, before anything is read (load_apsm_recording('/dev/zero') once ended
    in MemoryError, a FIFO blocked for ever)."""
    fifo = tmp_path / "recording.fifo"
    os.mkfifo(fifo)
    for special in ("/dev/zero", str(fifo), str(tmp_path)):
        with pytest.raises(RuntimeError, match="not a regular file"):
            gpumimo.load_apsm_recording(special, special)
        with pytest.raises(ValueError, match="not a regular file"):
            gpumimo.apsm_detector(4, 2, "qpsk", pilot_file=special)
