#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""MIMO detection on numpy arrays: detect(), constellation() and simulate()."""

from collections import namedtuple

import numpy as np

from . import gpumimo_python as _core

# The detectors of the core's registry (core/detect/registry.h), in its order.
ALGORITHMS = tuple(_core.algorithm_names())
MODULATIONS = ("bpsk", "pi/2-bpsk", "qpsk", "16qam", "64qam", "256qam", "1024qam")
_OUTPUTS = ("llr", "int8", "hard")
_PARAMS = ("kbest_k", "nway_passes", "list_llr_clip", "psd_lvl", "psd_exp", "llr_clip",
           "psd_block_search", "psd_max_nodes")

Constellation = namedtuple("Constellation", "name points labels bits_per_symbol")
Constellation.__doc__ = """A constellation as TS 38.211 5.1 labels it: Gray-mapped square QAM,
BPSK, or pi/2-BPSK (BPSK's points for even symbol indices, turned by j for odd ones).

points: complex64 [Q], unit average energy; labels: uint8 [Q, m], labels[i, k] is bit
b_k of point i; point index i = sum_k b_k 2^(m-1-k) (b_0 most significant)."""

Simulation = namedtuple("Simulation", "bits symbols H y noise_var group snr_db")
Simulation.__doc__ = """A simulated batch: bits uint8 [B, nt*m], symbols complex64 [B, nt],
H complex64 [C, nr, nt], y complex64 [B, nr], noise_var float32 [C], group G."""


def constellation(modulation="16qam"):
    """The constellation of `modulation` (one of MODULATIONS)."""
    points, labels = _core._constellation(str(modulation))
    return Constellation(str(modulation).lower(), points, labels, labels.shape[1])


def _whole_number(name, value, minimum, maximum=2**31 - 1):
    """value as an int in [minimum, maximum] (a C++ int by default); ValueError for 2.7,
    "3", None, -5, 2**31 and the like (int() would truncate 2.7 silently, and pybind11
    answers a value its C++ type cannot hold with a TypeError and its signature list)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if not (isinstance(value, (float, np.floating)) and float(value).is_integer()):
            raise ValueError(f"{name} must be a whole number, not {value!r}")
    if value < minimum or value > maximum:
        raise ValueError(f"{name} must be from {minimum} to {maximum}, not {value!r}")
    return int(value)


def _real_number(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a real number, not {value!r}")
    return float(value)


def _complex_array(name, value, ndim):
    try:
        arr = np.asarray(value)
    except Exception as exc:  # e.g. ragged nested lists
        raise ValueError(f"{name} is not an array: {exc}") from None
    if arr.dtype.kind not in "biufc":
        raise ValueError(f"{name} must be numeric, not {arr.dtype}")
    if arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, not shape {arr.shape}")
    return np.ascontiguousarray(arr, dtype=np.complex64)


def detect(y, H, noise_var, modulation="16qam", algorithm="mtt", backend="auto",
           group=None, output="llr", int8_scale=None, threads=0, device=0,
           precision="single", **params):
    """Soft-output MIMO detection of y = H s + n.

    y:         [B, nr] received vectors (complex).
    H:         [C, nr, nt] channel matrices, one per group of `group` consecutive
               vectors (C = ceil(B / group)); or [nr, nt], one matrix for all.
    noise_var: N0 = E|n_r|^2, a scalar or one value per matrix ([C]).
    group:     vectors per matrix; by default B / C, which must then be a whole number.
    algorithm: a name of ALGORITHMS (the core's detector registry).
    backend:   "cpu", "cuda" or "auto" (the GPU when usable and the algorithm has a CUDA
               version, else the CPU, with a warning logged once through GNU Radio's
               logger). device: the CUDA device index. precision: the GPU kernels'
               arithmetic, "single" (float32, fast, within the rounding bound of
               docs/gpu.md) or "double" (float64, equal to the CPU reference).
    output:    "llr": float32 max-log LLRs [B, nt*m], ln P(b=1)/P(b=0), stream 0's bits
               b_0..b_{m-1} first; "int8": those as int8, round(llr * int8_scale)
               saturated to +-127 (int8_scale defaults to 8); "hard": uint8 bits.
    params:    kbest_k (16), nway_passes (0 = nt), list_llr_clip (8: the list
               detectors' clipping and psd's output magnitude), psd_lvl / psd_exp (the
               paper's Table 5 set by default), psd_block_search (the GPU psd in the
               paper's block-per-problem mapping instead of one problem per thread),
               psd_max_nodes (2^20: psd's node budget per vector, CPU and GPU, past
               which the best decision found so far stands for ML's), llr_clip (0 = none),
               threads (0 = all).

    Bad input (shapes, NaN/Inf, rank-deficient H, noise_var <= 0, unknown names,
    invalid parameters) raises ValueError; nothing is computed then.
    """
    if precision not in ("single", "double"):
        raise ValueError(f"unknown precision '{precision}' (expected single or double)")
    if output not in _OUTPUTS:
        raise ValueError(f"unknown output '{output}' (expected one of {', '.join(_OUTPUTS)})")
    unknown = sorted(set(params) - set(_PARAMS))
    if unknown:
        raise ValueError(f"unknown detector parameter(s) {', '.join(unknown)} "
                         f"(expected some of {', '.join(_PARAMS)})")

    y = _complex_array("y", y, 2)
    H = np.asarray(H)
    if H.ndim == 2:
        H = H[np.newaxis]
        if group is None:
            group = max(1, y.shape[0])
    H = _complex_array("H", H, 3)
    batch, nr = y.shape
    nch = H.shape[0]
    if H.shape[1] != nr:
        raise ValueError(f"H has {H.shape[1]} receive antennas, y has {nr}")
    nt = H.shape[2]
    if group is None:
        if nch == 0 or batch % nch:
            raise ValueError(f"cannot infer group: {batch} vectors are not a whole "
                             f"multiple of {nch} channel matrices; pass group=")
        group = max(1, batch // nch)
    group = _whole_number("group", group, minimum=1)
    if nch != -(-batch // group) and batch > 0:
        raise ValueError(f"{batch} vectors in groups of {group} need "
                         f"{-(-batch // group)} channel matrices, H has {nch}")

    try:
        noise = np.atleast_1d(np.asarray(noise_var))
    except Exception as exc:  # e.g. ragged nested lists
        raise ValueError(f"noise_var is not an array: {exc}") from None
    if noise.dtype.kind not in "biuf":
        raise ValueError(f"noise_var must be real numbers, not {noise.dtype} "
                         f"({type(noise_var).__name__})")
    if noise.ndim != 1 or noise.size not in (1, nch):
        raise ValueError(f"noise_var must be a scalar or hold {nch} values")
    noise = np.ascontiguousarray(noise, dtype=np.float32)

    p = _core.detector_params()
    for key, value in params.items():
        if key in ("psd_lvl", "psd_exp"):
            value = [_whole_number(key, v, minimum=0) for v in value]
        elif key in ("kbest_k", "nway_passes"):
            value = _whole_number(key, value, minimum=0)
        elif key in ("list_llr_clip", "llr_clip"):
            value = _real_number(key, value)
        elif key == "psd_block_search":
            value = bool(value)
        elif key == "psd_max_nodes":
            value = _whole_number(key, value, minimum=1, maximum=2**40)
        setattr(p, key, value)

    threads = _whole_number("threads", threads, minimum=0)
    device = _whole_number("device", device, minimum=0)
    det = _core.batch_detector(str(algorithm), str(modulation), int(nt), int(nr), p,
                               str(backend), device, precision == "double")
    if batch == 0:
        return np.zeros((0, det.bits_per_vector()),
                        dtype={"llr": np.float32, "int8": np.int8, "hard": np.uint8}[output])
    llr = det.detect(y, H, noise, group, threads)
    if output == "int8":
        scale = _core.default_int8_scale if int8_scale is None else float(int8_scale)
        return _core._llr_to_int8(llr, scale)
    if output == "hard":
        return (llr > 0).astype(np.uint8)
    return llr


def simulate(batch, nt, nr, modulation="16qam", snr_db=10.0, group=1, seed=None):
    """A batch of y = H s + n: uniformly random bits, mapped onto the constellation,
    i.i.d. Rayleigh CN(0, 1) channel matrices (one per `group` vectors) and AWGN.
    Vector b holds symbol index b of every stream (pi/2-BPSK turns odd ones by j).

    snr_db is the SNR per receive antenna, E||Hs||^2 / E||n||^2 = nt / N0, so
    N0 = nt * 10^(-snr_db / 10). The same seed gives the same batch."""
    if batch < 0 or group < 1 or nt < 1 or nr < 1:
        raise ValueError("batch >= 0, group >= 1, nt >= 1 and nr >= 1 are required")
    rng = np.random.default_rng(seed)
    const = constellation(modulation)
    m = const.bits_per_symbol
    bits = rng.integers(0, 2, size=(batch, nt * m), dtype=np.uint8)
    weights = 1 << np.arange(m - 1, -1, -1)
    index = (bits.reshape(batch, nt, m) * weights).sum(axis=2)
    symbols = const.points[index].astype(np.complex64)
    if const.name in ("pi/2-bpsk", "pi2bpsk", "pi2-bpsk"):
        symbols[1::2] *= np.complex64(1j)
    nch = -(-batch // group)
    H = ((rng.standard_normal((nch, nr, nt)) + 1j * rng.standard_normal((nch, nr, nt)))
         / np.sqrt(2)).astype(np.complex64)
    n0 = nt * 10.0 ** (-snr_db / 10.0)
    noise = np.sqrt(n0 / 2) * (rng.standard_normal((batch, nr))
                               + 1j * rng.standard_normal((batch, nr)))
    Hv = np.repeat(H, group, axis=0)[:batch]
    y = (np.einsum("brt,bt->br", Hv, symbols) + noise).astype(np.complex64)
    return Simulation(bits, symbols, H, y, np.full(nch, n0, dtype=np.float32), group,
                      snr_db)
