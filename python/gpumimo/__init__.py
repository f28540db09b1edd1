#
# Copyright 2008,2009 Free Software Foundation, Inc.
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
gr-gpumimo: GPU MIMO detection for GNU Radio.

Detection on numpy arrays:
    gpumimo.detect(y, H, noise_var, modulation="16qam", algorithm="mtt", backend="auto")
and the helpers gpumimo.constellation() and gpumimo.simulate(). docs/conventions.md
gives the data layout, the labelling and the LLR sign.
'''

try:
    # import pybind11 generated symbols into the gpumimo namespace
    from .gpumimo_python import *
except ModuleNotFoundError:
    # Only the source tree lacks the compiled bindings (pytest imports it as a package
    # while collecting the qa_*.py files there); an installed module always has them.
    pass
else:
    # import any pure python here
    from .detection import (ALGORITHMS, MODULATIONS, Constellation, Simulation,
                            constellation, detect, simulate)
    from .link import link_simulate, plot_link_results, read_link_csv, snr_at_fer
    from .mimo_ofdm_rx import frame_cp_lengths, mimo_ofdm_rx
    from .apsm_ofdm_rx import apsm_beside_mmse, apsm_ofdm_rx
    from .loopback import free_port_range
    from .shipped_files import shipped_file
