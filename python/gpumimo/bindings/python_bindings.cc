/*
 * Copyright 2020 Free Software Foundation, Inc.
 * Copyright 2026 gr-gpumimo authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <pybind11/pybind11.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

namespace py = pybind11;

void bind_core(py::module& m);
void bind_link(py::module& m);
void bind_batch_detector(py::module& m);
void bind_ofdm_fft(py::module& m);
void bind_apsm_detector(py::module& m);
void bind_frame(py::module& m);
void bind_receiver(py::module& m);
void bind_sigmf(py::module& m);

// import_array() returns NULL on newer Pythons, hence the wrapper.
void* init_numpy()
{
    import_array();
    return NULL;
}

PYBIND11_MODULE(gpumimo_python, m)
{
    init_numpy();

    // Allow access to base block methods
    py::module::import("gnuradio.gr");

    bind_core(m);
    bind_link(m);
    bind_batch_detector(m);
    bind_ofdm_fft(m);
    bind_apsm_detector(m);
    bind_frame(m);
    bind_receiver(m);
    bind_sigmf(m);
}
