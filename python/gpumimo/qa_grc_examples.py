#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The module's GRC blocks as GNU Radio Companion sees them: every example flowgraph in
examples/ compiles with grcc against grc/*.block.yml, and the generated flowgraph runs
and gives what it promises."""

import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

SOURCE = pathlib.Path(__file__).resolve().parents[2]


def compile_example(name, out_dir):
    grcc = shutil.which("grcc")
    assert grcc, "grcc (GNU Radio Companion's compiler) not found"
    env = dict(os.environ, GRC_BLOCKS_PATH=str(SOURCE / "grc"))
    result = subprocess.run([grcc, "-o", str(out_dir),
                             str(SOURCE / "examples" / f"{name}.grc")],
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Error" not in result.stdout + result.stderr, result.stdout + result.stderr
    spec = importlib.util.spec_from_file_location(name, out_dir / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_example_has_a_test():
    examples = sorted(p.stem for p in (SOURCE / "examples").glob("*.grc"))
    assert examples == ["ofdm_fft_loopback"], "add a test for each new example"


def test_ofdm_fft_loopback(tmp_path):
    module = compile_example("ofdm_fft_loopback", tmp_path)
    tb = module.ofdm_fft_loopback()
    tb.start()
    tb.wait()
    ncar = len(tb.carriers)
    sent = [np.array(tb.qpsk), np.array(tb.qpsk[::-1])]
    for sink, want in zip((tb.sink_0, tb.sink_1), sent):
        got = np.array(sink.data())
        assert got.size == want.size == 100 * ncar
        np.testing.assert_allclose(got, want, atol=1e-4)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
