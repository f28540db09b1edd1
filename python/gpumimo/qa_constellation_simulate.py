#!/usr/bin/env python3
#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gpumimo.constellation() against TS 38.211 and gpumimo.simulate()'s statistics."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import seeded_rng, ts38211_points  # noqa: E402

from gnuradio import gpumimo  # noqa: E402


@pytest.mark.parametrize("mod,m", [("qpsk", 2), ("16qam", 4), ("64qam", 6), ("256qam", 8),
                                   ("1024qam", 10)])
def test_constellation_is_ts38211(mod, m):
    c = gpumimo.constellation(mod)
    points, labels = ts38211_points(m)
    assert c.bits_per_symbol == m and c.points.dtype == np.complex64
    np.testing.assert_allclose(c.points, points, atol=1e-6)
    np.testing.assert_array_equal(c.labels, labels)
    assert abs(np.mean(np.abs(c.points.astype(np.complex128)) ** 2) - 1) < 1e-6


@pytest.mark.parametrize("mod", ["bpsk", "pi/2-bpsk"])
def test_bpsk_and_pi2_bpsk_are_ts38211(mod):
    """5.1.2 and 5.1.1: (1 - 2b)(1 + j)/sqrt(2), pi/2-BPSK's odd symbols turned by j
    (the points are the even symbols'; simulate() turns the odd ones)."""
    c = gpumimo.constellation(mod)
    assert c.bits_per_symbol == 1
    np.testing.assert_allclose(c.points, np.array([1 + 1j, -1 - 1j]) / np.sqrt(2), atol=1e-7)
    np.testing.assert_array_equal(c.labels, [[0], [1]])
    s = gpumimo.simulate(64, 2, 2, mod, snr_db=10.0, seed=5)
    sent = (1 - 2.0 * s.bits) * (1 + 1j) / np.sqrt(2)            # [B, nt]
    turn = np.where(np.arange(64) % 2 == 1, 1j, 1.0)[:, None] if mod != "bpsk" else 1.0
    np.testing.assert_allclose(s.symbols, sent * turn, atol=1e-6)


def test_unknown_constellation():
    with pytest.raises(ValueError):
        gpumimo.constellation("32qam")


def test_simulate_is_seeded_and_consistent():
    rng = seeded_rng(7)
    seed = int(rng.integers(2**31))
    a = gpumimo.simulate(600, 3, 4, "16qam", snr_db=7.0, group=5, seed=seed)
    b = gpumimo.simulate(600, 3, 4, "16qam", snr_db=7.0, group=5, seed=seed)
    c = gpumimo.simulate(600, 3, 4, "16qam", snr_db=7.0, group=5, seed=seed + 1)
    for x, z in zip(a[:5], b[:5]):
        np.testing.assert_array_equal(x, z)
    assert not np.array_equal(a.y, c.y)
    assert a.bits.shape == (600, 12) and a.symbols.shape == (600, 3)
    assert a.H.shape == (120, 4, 3) and a.y.shape == (600, 4) and a.noise_var.shape == (120,)

    # Symbols carry their bits; the noise has the variance N0 = nt 10^(-SNR/10).
    const = gpumimo.constellation("16qam")
    index = (a.bits.reshape(600, 3, 4) * (1 << np.arange(3, -1, -1))).sum(axis=2)
    np.testing.assert_array_equal(a.symbols, const.points[index])
    Hv = np.repeat(a.H, 5, axis=0)
    noise = a.y - np.einsum("brt,bt->br", Hv, a.symbols)
    n0 = 3 * 10 ** (-0.7)
    np.testing.assert_allclose(a.noise_var, n0, rtol=1e-6)
    # 2400 complex samples: the variance estimate's relative sd is 1/sqrt(2400) ~ 2%.
    assert abs(np.mean(np.abs(noise) ** 2) / n0 - 1) < 0.1
    assert abs(np.mean(np.abs(a.H) ** 2) - 1) < 0.1


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
