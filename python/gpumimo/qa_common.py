#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Helpers shared by the QA tests: a printed seed, and TS 38.211's constellations
written out independently of the module."""

import os

import numpy as np


def seeded_rng(salt):
    """A fresh generator per test; GPUMIMO_TEST_SEED=<n> repeats a run."""
    env = os.environ.get("GPUMIMO_TEST_SEED")
    seed = int(env) if env else int(np.random.SeedSequence().entropy % 2**63)
    print(f"GPUMIMO_TEST_SEED={seed} (salt {salt})")
    return np.random.default_rng([seed, salt])


def ts38211_points(m):
    """Points of the 2^m-QAM of TS 38.211 5.1, index = bits b_0..b_{m-1}, b_0 first;
    m = 1: BPSK (5.1.2, pi/2-BPSK's even symbols)."""
    q = 1 << m
    b = (np.arange(q)[:, None] >> np.arange(m - 1, -1, -1)) & 1
    s = 1 - 2 * b
    if m == 1:
        return (s[:, 0] + 1j * s[:, 0]) / np.sqrt(2), b
    if m == 2:
        return (s[:, 0] + 1j * s[:, 1]) / np.sqrt(2), b
    if m == 4:
        return (s[:, 0] * (2 - s[:, 2]) + 1j * s[:, 1] * (2 - s[:, 3])) / np.sqrt(10), b
    if m == 6:
        return (s[:, 0] * (4 - s[:, 2] * (2 - s[:, 4]))
                + 1j * s[:, 1] * (4 - s[:, 3] * (2 - s[:, 5]))) / np.sqrt(42), b
    if m == 8:
        return (s[:, 0] * (8 - s[:, 2] * (4 - s[:, 4] * (2 - s[:, 6])))
                + 1j * s[:, 1] * (8 - s[:, 3] * (4 - s[:, 5] * (2 - s[:, 7])))) / np.sqrt(170), b
    if m == 10:  # 5.1.7
        return (s[:, 0] * (16 - s[:, 2] * (8 - s[:, 4] * (4 - s[:, 6] * (2 - s[:, 8]))))
                + 1j * s[:, 1] * (16 - s[:, 3] * (8 - s[:, 5] * (4 - s[:, 7] * (2 - s[:, 9]))))
                ) / np.sqrt(682), b
    raise ValueError(m)


def random_problems(rng, nt, nr, m, batch, snr_db, group=1):
    """y = H s + n with independent numpy code: (y, H, noise_var, bits)."""
    points, _ = ts38211_points(m)
    idx = rng.integers(0, len(points), size=(batch, nt))
    nch = -(-batch // group)
    H = (rng.standard_normal((nch, nr, nt)) + 1j * rng.standard_normal((nch, nr, nt))) / np.sqrt(2)
    n0 = nt * 10 ** (-snr_db / 10)
    Hv = np.repeat(H, group, axis=0)[:batch]
    y = np.einsum("brt,bt->br", Hv, points[idx])
    y += np.sqrt(n0 / 2) * (rng.standard_normal(y.shape) + 1j * rng.standard_normal(y.shape))
    bits = ((idx[:, :, None] >> np.arange(m - 1, -1, -1)) & 1).reshape(batch, nt * m)
    return (y.astype(np.complex64), H.astype(np.complex64),
            np.full(nch, n0, dtype=np.float32), bits.astype(np.uint8))


def grc_blocks_dir():
    """The module's GRC block files as built: the detector blocks' menus are written at
    build time from the core's detector registry (grc/detector_menus.cc). ctest gives
    their folder in GPUMIMO_GRC_DIR; on the GPU machine's bundle it is the packed
    prefix's (DEVICE_GR_PREFIX); else build/grc beside the source."""
    import pathlib
    source = pathlib.Path(__file__).resolve().parents[2]
    candidates = [os.environ.get("GPUMIMO_GRC_DIR")]
    if os.environ.get("DEVICE_GR_PREFIX"):
        candidates.append(os.path.join(os.environ["DEVICE_GR_PREFIX"],
                                       "share", "gnuradio", "grc", "blocks"))
    candidates.append(str(source / "build" / "grc"))
    for c in candidates:
        if c and os.path.isfile(os.path.join(c, "gpumimo_mimo_detector.block.yml")):
            return pathlib.Path(c)
    raise FileNotFoundError("no built GRC block files (set GPUMIMO_GRC_DIR to build/grc)")


def grc_environment():
    """The environment for GNU Radio Companion's tools (grcc, GRC itself) with the
    module's built block files: GRC loads the global block folders after
    GRC_BLOCKS_PATH, and a later file wins, so that an installed gr-gpumimo (a run of the
    README's install command, say) would stand in for the build's blocks. Its folder is
    left out of the global path (GNU Radio reads GR_CONF_<SECTION>_<OPTION> before its
    config files)."""
    import pathlib
    from gnuradio import gr
    ours = grc_blocks_dir()
    configured = gr.prefs().get_string("grc", "global_blocks_path", "")
    others = [d for d in configured.split(os.pathsep) if d and pathlib.Path(d) != ours and
              not any(pathlib.Path(d).glob("gpumimo_*.block.yml"))]
    return dict(os.environ, GRC_BLOCKS_PATH=str(ours),
                GR_CONF_GRC_GLOBAL_BLOCKS_PATH=os.pathsep.join(others))


def compile_flowgraph(grc_file, out_dir, cwd=None):
    """grc_file compiled with grcc against the module's built block files (as GNU Radio
    Companion does), and the generated Python module imported: the flowgraph's class is
    the module's attribute named as the file's options id. cwd: where relative paths in
    the flowgraph start."""
    import importlib.util
    import pathlib
    import shutil
    import subprocess
    grcc = shutil.which("grcc")
    assert grcc, "grcc (GNU Radio Companion's compiler) not found"
    result = subprocess.run([grcc, "-o", str(out_dir), str(grc_file)], env=grc_environment(),
                            capture_output=True, text=True, timeout=300, cwd=cwd)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Error" not in result.stdout + result.stderr, result.stdout + result.stderr
    name = pathlib.Path(grc_file).stem
    spec = importlib.util.spec_from_file_location(name, pathlib.Path(out_dir) / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
