#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Where the files the module ships (the recordings and codes of the repository's
examples/ folder) lie, for the examples and the tools, wherever they are run from."""

import os
import pathlib


def _install_share():
    """share/gr-gpumimo of the prefix this package is installed in, if any: the first
    folder above this file that holds one (the prefix is not fixed: /usr, /usr/local, a
    conda environment)."""
    for parent in pathlib.Path(__file__).resolve().parents:
        share = parent / "share" / "gr-gpumimo"
        if share.is_dir():
            return share
    return None


def shipped_file(relative):
    """The path of `relative`, a file or folder under the repository's examples/ folder
    (e.g. "recordings/sim_4x4_16qam.sigmf-collection"), as found from the working
    directory (GNU Radio Companion runs a flowgraph from its own folder, examples/), from
    the repository's root (./examples/...), or in the install's share/gr-gpumimo (where
    examples/recordings is installed as recordings/). The first that exists; where none
    does, `relative` itself, so that the block reading it names what it did not find
    (an example's default value must not fail when the flowgraph is built)."""
    candidates = [pathlib.Path(relative), pathlib.Path("examples") / relative]
    share = _install_share()
    if share is not None:
        candidates.append(share / relative)
    for c in candidates:
        if c.exists():
            return os.fspath(c)
    return os.fspath(relative)
