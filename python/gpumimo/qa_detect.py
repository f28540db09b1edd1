#!/usr/bin/env python3
#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gpumimo.detect(): ml against a numpy brute force, output modes, batch layout and
every kind of bad input."""

import itertools
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import random_problems, seeded_rng, ts38211_points  # noqa: E402

from gnuradio import gpumimo  # noqa: E402


def detect_cpu(*args, **kwargs):
    """The CPU reference: tests of its semantics must not depend on whether the machine
    has a GPU ("auto" takes the float32 GPU detectors there)."""
    return gpumimo.detect(*args, backend="cpu", **kwargs)

BITS = {"bpsk": 1, "pi/2-bpsk": 1, "qpsk": 2, "16qam": 4, "64qam": 6, "256qam": 8, "1024qam": 10}


def brute_force_llr(y, H, n0, m, group):
    """Max-log LLRs by enumerating every transmit vector with numpy, in float64."""
    points, labels = ts38211_points(m)
    batch, nr = y.shape
    nt = H.shape[2]
    cand = np.array(list(itertools.product(range(len(points)), repeat=nt)))  # [V, nt]
    s = points[cand]                                                        # [V, nt]
    cand_bits = labels[cand].reshape(len(cand), nt * m)                     # [V, nt*m]
    out = np.empty((batch, nt * m))
    for b in range(batch):
        h = H[b // group].astype(np.complex128)
        d = np.sum(np.abs(y[b].astype(np.complex128)[None, :] - s @ h.T) ** 2, axis=1)
        noise = n0[b // group] if np.ndim(n0) else n0
        for k in range(nt * m):
            out[b, k] = (d[cand_bits[:, k] == 0].min() - d[cand_bits[:, k] == 1].min()) / noise
    return out


@pytest.mark.parametrize("nt,nr,mod", [(1, 1, "qpsk"), (2, 2, "qpsk"), (3, 3, "qpsk"),
                                       (2, 3, "16qam"), (1, 2, "64qam"), (2, 2, "64qam"),
                                       (1, 2, "1024qam")])
def test_ml_equals_numpy_brute_force(nt, nr, mod):
    rng = seeded_rng(1000 + 10 * nt + nr)
    m = BITS[mod]
    for snr in (0.0, 12.0, 30.0):
        y, H, n0, _ = random_problems(rng, nt, nr, m, 30, snr, group=2)
        got = gpumimo.detect(y, H, n0, modulation=mod, algorithm="ml", backend="cpu", group=2)
        want = brute_force_llr(y, H, n0, m, 2)
        assert got.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mod", ["bpsk", "pi/2-bpsk"])
def test_bpsk_detectors_against_numpy_brute_force(mod):
    """BPSK and pi/2-BPSK (odd vectors turned by j, as simulate() makes them): ml, and
    mtt for 2 streams, equal max-log ML by numpy enumeration of the turned-back vectors;
    zf/mmse give finite LLRs of the right sign at high SNR; the lattice searches and the
    GPU refuse them by name."""
    rng = seeded_rng(1101)
    for nt, nr in ((1, 2), (2, 2), (3, 4)):
        s = gpumimo.simulate(60, nt, nr, mod, snr_db=float(rng.uniform(0, 20)), group=3,
                             seed=int(rng.integers(2**31)))
        y = s.y.astype(np.complex128)
        if mod != "bpsk":
            y[1::2] *= -1j
        want = brute_force_llr(y, s.H, s.noise_var, 1, 3)
        for algorithm in ("ml", "mtt") if nt <= 2 else ("ml",):
            got = gpumimo.detect(s.y, s.H, s.noise_var, modulation=mod, algorithm=algorithm,
                                 backend="cpu", group=3)
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=algorithm)
    s = gpumimo.simulate(200, 2, 4, mod, snr_db=30.0, seed=int(rng.integers(2**31)))
    for algorithm in ("zf", "mmse", "mtt"):
        llr = gpumimo.detect(s.y, s.H, s.noise_var, modulation=mod, algorithm=algorithm,
                             backend="cpu")
        assert np.all(np.isfinite(llr))
        np.testing.assert_array_equal((llr > 0).astype(np.uint8), s.bits)  # docs/conventions.md
    for algorithm in ("kbest", "nway", "psd"):
        with pytest.raises(ValueError, match="square-QAM"):
            gpumimo.detect(s.y, s.H, s.noise_var, modulation=mod, algorithm=algorithm,
                           backend="cpu")


def test_mtt_2x2_equals_ml():
    rng = seeded_rng(2)
    for mod in ("qpsk", "16qam", "64qam"):
        y, H, n0, _ = random_problems(rng, 2, 2, BITS[mod], 200, rng.uniform(0, 30))
        ml = detect_cpu(y, H, n0, modulation=mod, algorithm="ml")
        mtt = detect_cpu(y, H, n0, modulation=mod, algorithm="mtt")
        np.testing.assert_allclose(mtt, ml, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("algorithm", gpumimo.ALGORITHMS)
def test_outputs_of_every_algorithm(algorithm):
    rng = seeded_rng(3)
    y, H, n0, bits = random_problems(rng, 4, 4, 4, 97, 25.0)
    llr = detect_cpu(y, H, n0, algorithm=algorithm)
    assert llr.shape == (97, 16) and llr.dtype == np.float32
    assert np.all(np.isfinite(llr))
    assert np.mean((llr > 0) != bits) < 0.05  # 25 dB: few errors, and the sign is right
    hard = detect_cpu(y, H, n0, algorithm=algorithm, output="hard")
    assert hard.dtype == np.uint8
    np.testing.assert_array_equal(hard, (llr > 0).astype(np.uint8))
    q = detect_cpu(y, H, n0, algorithm=algorithm, output="int8", int8_scale=4.0)
    assert q.dtype == np.int8
    np.testing.assert_array_equal(q, np.clip(np.rint(llr * 4.0), -127, 127).astype(np.int8))
    clipped = detect_cpu(y, H, n0, algorithm=algorithm, llr_clip=2.0)
    np.testing.assert_array_equal(clipped, np.clip(llr, -2.0, 2.0))


def test_batch_layout():
    rng = seeded_rng(4)
    y, H, n0, _ = random_problems(rng, 2, 3, 4, 20, 10.0, group=4)
    by_group = detect_cpu(y, H, n0, algorithm="nway")           # group inferred: 4
    explicit = detect_cpu(y, H, n0, algorithm="nway", group=4)
    repeated = detect_cpu(y, np.repeat(H, 4, axis=0), np.repeat(n0, 4), algorithm="nway")
    scalar = detect_cpu(y, H, float(n0[0]), algorithm="nway")
    np.testing.assert_array_equal(by_group, explicit)
    np.testing.assert_array_equal(by_group, repeated)
    np.testing.assert_array_equal(by_group, scalar)
    one_h = detect_cpu(y, H[0], n0[0], algorithm="mmse")          # [nr, nt]: for all
    np.testing.assert_array_equal(one_h, detect_cpu(y, np.repeat(H[:1], 20, axis=0),
                                                        n0[0], algorithm="mmse"))
    # A short last group: 21 vectors in groups of 4 need 6 matrices.
    y21 = np.vstack([y, y[:1]])
    H6 = np.vstack([H, H[:1]])
    assert detect_cpu(y21, H6, n0[0], group=4).shape == (21, 8)
    assert detect_cpu(y[:0], H[:0], 1.0, group=1).shape == (0, 8)


def test_backend_selection():
    rng = seeded_rng(5)
    y, H, n0, _ = random_problems(rng, 2, 2, 2, 8, 10.0)
    count, why = gpumimo.cuda_device_count()
    det = gpumimo.batch_detector("mtt", "qpsk", 2, 2, gpumimo.detector_params(), "auto")
    if det.backend() == "cpu":
        assert det.fallback_reason() != ""
    det.detect(y, H, n0, 1)
    assert det.gpu_batches() == (1 if det.backend() == "cuda" else 0)
    auto = gpumimo.detect(y, H, n0, modulation="qpsk", backend="auto")
    cpu = gpumimo.detect(y, H, n0, modulation="qpsk", backend="cpu")
    if det.backend() == "cpu":
        np.testing.assert_array_equal(auto, cpu)
    else:  # the float32 GPU detector: within float rounding of the reference
        np.testing.assert_allclose(auto, cpu, rtol=1e-4, atol=1e-4)
    if count == 0:
        assert why != ""
        with pytest.raises(RuntimeError, match="not usable"):
            gpumimo.detect(y, H, n0, modulation="qpsk", backend="cuda")
    with pytest.raises(ValueError, match="backend"):
        gpumimo.detect(y, H, n0, backend="gpu")


GPU_ALGORITHMS = gpumimo.ALGORITHMS  # every detector of the registry has a GPU entry


def test_cuda_backend_equals_cpu():
    """On a machine with a GPU: every CUDA detector, in double precision, gives the CPU
    reference's LLRs; float32 gives the same hard decisions on nearly every bit.
    GPUMIMO_REQUIRE_GPU=1 makes a missing GPU a failure instead of a skip."""
    count, why = gpumimo.cuda_device_count()
    if count == 0:
        assert os.environ.get("GPUMIMO_REQUIRE_GPU") != "1", f"no GPU: {why}"
        pytest.skip(f"no usable GPU: {why}")
    rng = seeded_rng(8)
    for algorithm in GPU_ALGORITHMS:
        y, H, n0, _ = random_problems(rng, 2, 3, 4, 301, 12.0, group=2)
        det = gpumimo.batch_detector(algorithm, "16qam", 2, 3, gpumimo.detector_params(), "cuda")
        assert det.backend() == "cuda"
        # The detector's own call is served by the GPU, not by the reference it holds.
        served = det.detect(y, H, n0, 2)
        assert det.gpu_batches() == 1
        cpu = gpumimo.detect(y, H, n0, algorithm=algorithm, backend="cpu", group=2)
        gpu64 = gpumimo.detect(y, H, n0, algorithm=algorithm, backend="cuda", group=2,
                               precision="double")
        np.testing.assert_allclose(gpu64, cpu, rtol=1e-4, atol=1e-5)
        gpu32 = gpumimo.detect(y, H, n0, algorithm=algorithm, backend="cuda", group=2)
        assert np.mean((gpu32 > 0) != (cpu > 0)) < 0.01
        np.testing.assert_array_equal(served, gpu32)


def _bad(**overrides):
    rng = seeded_rng(6)
    y, H, n0, _ = random_problems(rng, 2, 2, 4, 6, 10.0)
    args = dict(y=y, H=H, noise_var=n0, modulation="16qam", algorithm="mtt")
    args.update(overrides)
    return args


@pytest.mark.parametrize("case", [
    "y_1d", "y_wrong_nr", "H_wrong_count", "H_4d", "noise_count", "nan_y", "inf_y", "nan_H",
    "rank_deficient", "zero_H", "noise_zero", "noise_negative", "noise_nan", "modulation",
    "algorithm", "output", "unknown_param", "psd_levels", "psd_exp", "kbest_k", "nway_passes",
    "group_zero", "text_y", "too_many_streams", "nt_gt_nr", "ml_too_big", "threads_negative",
    "noise_none", "group_fraction", "kbest_k_fraction", "y_far_beyond_its_model",
    "y_beyond_sample_range", "kbest_k_2_31", "nway_passes_2_31", "threads_2_32", "device_2_31",
    "psd_lvl_2_40", "algorithm_with_nul", "modulation_with_nul"])
def test_bad_input_raises_value_error(case):
    args = _bad()
    y, H = args["y"], args["H"]
    if case == "y_1d":
        args["y"] = y[0]
    elif case == "y_wrong_nr":
        args["y"] = np.hstack([y, y[:, :1]])
    elif case == "H_wrong_count":
        args["H"] = H[:4]
    elif case == "H_4d":
        args["H"] = H[None]
    elif case == "noise_count":
        args["noise_var"] = np.ones(3)
    elif case == "nan_y":
        y[2, 1] = np.nan
    elif case == "inf_y":
        y[5, 0] = np.inf
    elif case == "nan_H":
        H[3, 0, 1] = complex(0, np.nan)
    elif case == "rank_deficient":
        H[1, :, 1] = 3 * H[1, :, 0]
    elif case == "zero_H":
        H[0] = 0
    elif case == "noise_zero":
        args["noise_var"] = 0.0
    elif case == "noise_negative":
        args["noise_var"] = -1.0
    elif case == "noise_nan":
        args["noise_var"] = np.nan
    elif case == "modulation":
        args["modulation"] = "8psk"
    elif case == "algorithm":
        args["algorithm"] = "sphere"
    elif case == "output":
        args["output"] = "bits"
    elif case == "unknown_param":
        args["kbest"] = 4
    elif case == "psd_levels":
        args.update(algorithm="psd", psd_lvl=[5, 5, 1], psd_exp=[1, 1])
    elif case == "psd_exp":
        args.update(algorithm="psd", psd_lvl=[5, 3, 1], psd_exp=[1, 99])
    elif case == "kbest_k":
        args.update(algorithm="kbest", kbest_k=0)
    elif case == "nway_passes":
        args.update(algorithm="nway", nway_passes=3)
    elif case == "group_zero":
        args["group"] = 0
    elif case == "text_y":
        args["y"] = np.array([["a", "b"]])
    elif case == "too_many_streams":
        args.update(y=np.ones((1, 9)), H=np.eye(9)[None], noise_var=1.0)
    elif case == "nt_gt_nr":
        args.update(H=np.ones((6, 2, 3)))
    elif case == "ml_too_big":
        args.update(y=np.ones((1, 5)), H=np.eye(5)[None], noise_var=1.0,
                    modulation="64qam", algorithm="ml")
    elif case == "threads_negative":
        args["threads"] = -5
    elif case == "noise_none":
        args["noise_var"] = None
    elif case == "group_fraction":
        args["group"] = 2.7
    elif case == "kbest_k_fraction":
        args.update(algorithm="kbest", kbest_k=4.5)
    elif case == "y_far_beyond_its_model":
        y[3] *= 1e12
    elif case == "y_beyond_sample_range":
        y[3, 0] = 1e19
    elif case == "kbest_k_2_31":  # values no C++ int holds: ValueError, not TypeError
        args.update(algorithm="kbest", kbest_k=2**31)
    elif case == "nway_passes_2_31":
        args.update(algorithm="nway", nway_passes=2**31)
    elif case == "threads_2_32":
        args.update(threads=2**32)
    elif case == "device_2_31":
        args.update(device=2**31)
    elif case == "psd_lvl_2_40":
        args.update(algorithm="psd", psd_lvl=[2**40])
    elif case == "algorithm_with_nul":  # a NUL once cut the message at "unknown algorithm 'mm"
        args["algorithm"] = "mm\0se"
    elif case == "modulation_with_nul":
        args["modulation"] = "16q\0am"
    with pytest.raises(ValueError) as error:
        gpumimo.detect(**args)
    # A message a user can act on: never empty, never pybind11's signature dump.
    assert str(error.value) and "incompatible function arguments" not in str(error.value)
    if case.endswith("_with_nul"):  # the whole name, its NUL written out
        assert "\\x00" in str(error.value), str(error.value)


@pytest.mark.parametrize("algorithm", gpumimo.ALGORITHMS)
@pytest.mark.parametrize("noise_var", [1e-38, 1e16])
def test_degenerate_noise_gives_finite_llrs(algorithm, noise_var):
    """Every finite input gives finite LLRs: N0 = 1e-38 overflowed to Inf, N0 = 1e16
    (a -150 dB estimate) made mmse raise an internal error."""
    args = _bad(algorithm=algorithm, noise_var=noise_var)
    llr = gpumimo.detect(**args, backend="cpu")
    assert np.all(np.isfinite(llr))


def test_ldpc_encoder_takes_bits_only():
    enc = gpumimo.ldpc_encoder(gpumimo.wimax_rate_half_code(576))
    for value in (2, -1, 0.5, np.nan):
        info = np.zeros(enc.k)
        info[7] = value
        with pytest.raises(ValueError, match=r"info\[7\]"):
            enc.encode(info)
    assert enc.encode(np.ones(enc.k, dtype=bool)).shape == (576,)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


def test_a_channel_seed_out_of_range_is_a_value_error():
    """mimo_channel.set_seed(-1) and 2^64 name the seed and its range (pybind11's own
    conversion raised TypeError with its signature list); 2^64 - 1 is taken."""
    ch = gpumimo.mimo_channel(1, 1)
    for bad in (-1, 2**64):
        with pytest.raises(ValueError, match="seed must be a whole number from 0 to 2\\^64 - 1"):
            ch.set_seed(bad)
    ch.set_seed(2**64 - 1)
    assert ch.seed() == 2**64 - 1
